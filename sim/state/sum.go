// Package state holds the hash function (Sum64) of the explored world's canonical state hash and
// of the world's digest caches, and the encoding of the values they hash (AppendBool, AppendBytes,
// AppendNullableBytes, AppendString).
package state

import (
	"encoding/binary"
	"math/bits"
)

// Sum64 is a 64-bit hash of byte strings for the explorer's state hash and cached digests: the
// wyhash construction (the one the Go runtime falls back to without AES), keyed by fixed secrets
// instead of per-process random ones, so a state hashes to the same value in every process and
// the explorer's deduplication is reproducible bit for bit. It is not a defence against chosen
// inputs, which the simulator does not have.
type Sum64 struct {
	key [4]uint64
}

// NewSum64 derives a hash function's secrets from seed (splitmix64), so that hashes with
// different seeds behave as independent functions.
func NewSum64(seed uint64) Sum64 {
	var h Sum64
	for i := range h.key {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		h.key[i] = z ^ z>>31
	}
	return h
}

// Sum returns the hash of b.
func (h *Sum64) Sum(b []byte) uint64 {
	n := uint64(len(b))
	seed := h.key[0] ^ n
	var x, y uint64
	if len(b) > 16 {
		if len(b) > 48 {
			seed1, seed2 := seed, seed
			for len(b) > 48 {
				seed = wymix(le64(b)^h.key[1], le64(b[8:])^seed)
				seed1 = wymix(le64(b[16:])^h.key[2], le64(b[24:])^seed1)
				seed2 = wymix(le64(b[32:])^h.key[3], le64(b[40:])^seed2)
				b = b[48:]
			}
			seed ^= seed1 ^ seed2
		}
		for len(b) > 16 {
			seed = wymix(le64(b)^h.key[1], le64(b[8:])^seed)
			b = b[16:]
		}
	}
	switch i := len(b); {
	case i == 0:
	case i < 4:
		x = uint64(b[0])<<16 | uint64(b[i>>1])<<8 | uint64(b[i-1])
	default:
		m := (i >> 3) << 2
		x = uint64(le32(b))<<32 | uint64(le32(b[m:]))
		y = uint64(le32(b[i-4:]))<<32 | uint64(le32(b[i-4-m:]))
	}
	return wymix(0x1d8e4e27c47d124f^n, wymix(x^h.key[1], y^seed))
}

func wymix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

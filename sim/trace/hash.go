package trace

import (
	"encoding/binary"
	"strconv"
)

// FNV-1a 64-bit parameters. FNV is fixed by its specification (unlike hash/maphash, whose seed is
// random per process), so the same events give the same hash on every machine and in every run.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// HashSink folds every event into a running 64-bit FNV-1a hash over a canonical binary encoding
// (AppendCanonical). Two runs have the same hash exactly when they produced the same events in
// the same order, field for field.
type HashSink struct {
	sum uint64
	n   int
	buf []byte
}

// NewHashSink returns a hash sink at the FNV offset basis.
func NewHashSink() *HashSink { return &HashSink{sum: fnvOffset64} }

// Record folds ev into the running hash.
func (h *HashSink) Record(ev *Event) {
	if h.n == 0 && h.sum == 0 {
		h.sum = fnvOffset64 // zero value usable: HashSink{} starts at the basis too
	}
	h.buf = AppendCanonical(h.buf[:0], ev)
	s := h.sum
	for _, b := range h.buf {
		s ^= uint64(b)
		s *= fnvPrime64
	}
	h.sum = s
	h.n++
}

// Sum64 returns the running hash.
func (h *HashSink) Sum64() uint64 {
	if h.n == 0 {
		return fnvOffset64
	}
	return h.sum
}

// Sum returns the running hash as 16 lowercase hex digits, the form printed by simrun and stored
// in replay files.
func (h *HashSink) Sum() string { return FormatHash(h.Sum64()) }

// Events returns how many events have been folded in.
func (h *HashSink) Events() int { return h.n }

// FormatHash renders a 64-bit trace hash as 16 lowercase hex digits.
func FormatHash(sum uint64) string {
	s := strconv.FormatUint(sum, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// AppendCanonical appends the canonical binary encoding of ev to dst: every field in declaration
// order, integers as fixed-width little-endian, strings as a uvarint length then the bytes. The
// encoding is injective, so distinct events never encode alike. ActionName is not encoded apart
// from Action when it is empty or equal to Action.String() (sinks fill it in), so a producer may
// leave it empty without changing the hash.
func AppendCanonical(dst []byte, ev *Event) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(ev.Step))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(ev.TimeMicros))
	dst = append(dst, byte(ev.Action))
	name := ev.ActionName
	if name == ev.Action.String() {
		name = ""
	}
	dst = appendString(dst, name)
	dst = appendString(dst, ev.Kind)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(ev.Process)))
	dst = appendString(dst, ev.Topic)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(int64(ev.Incarn)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(ev.Partition))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(ev.Position))
	dst = binary.LittleEndian.AppendUint64(dst, ev.Msg)
	return appendString(dst, ev.Detail)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

package node

import (
	"encoding/binary"
	"math/bits"
)

// decodeRoom is the number of entries decodeFast may fill for b: pairsMax of its length and topic
// count, 0 when b does not start with a version byte and a short topic count (decodeFast then
// refuses it at once). The callers reserve it before the walk, so the walk makes no call.
func decodeRoom(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	topics, off := varintShort(b, 1)
	if off < 0 {
		return 0
	}
	return pairsMax(len(b)-off, topics)
}

// decodeFast is the decoder's hot path: one tight left-to-right pass that accepts only inputs the
// strict parser (decodeInto) accepts, yielding the same frontier, but does not say why it turns
// anything down. It fills pairs up to their capacity (the caller reserves decodeRoom(b) entries),
// returns how many it filled, and never allocates. On any breach — and on the rare valid spelling
// it leaves to the strict parser, a varint of three or more bytes (a partition, partition count or
// topic count of 16384 or more) — it returns false with the contents of pairs unspecified, and the
// caller reruns decodeInto from scratch, which either accepts or finds the first violation and
// builds the DecodeError. Keeping the explanations, the allocation and every call out of the loop
// keeps its state in registers: a call on a cold branch still makes the compiler spill and reload
// around the hot one.
//
// The checks, in the strict parser's terms: version byte; minimal varints (one- and two-byte
// spellings inline); every topic ID strictly above the previous one, starting from the all-zero
// ID, which covers both zero-topic-id and topics-not-ascending; partition count ≥ 1; partitions
// strictly ascending; positions below 2^63−1 as unsigned integers, which covers negative and
// reserved positions; exact length. TestDecodeFastMatchesStrict holds the two parsers to the same
// answers.
//
// One length check per group and per pair covers the reads that follow it. A topic ID is read as
// two machine words in memory order, stored as they are, and byte-swapped only to compare it with
// the previous one: the pair's Topic gets the bytes of the input without a copy through the stack.
// A group of one partition with a one-byte number, the commonest, is decoded straight-line.
func decodeFast(pairs []Cause, b []byte) (int, bool) {
	if len(b) < 2 || b[0] != wireVersion {
		return 0, false
	}
	topics, off := varintShort(b, 1)
	if off < 0 {
		return 0, false
	}
	pairs = pairs[:cap(pairs)]
	n := 0
	var prevHi, prevLo uint64 // all-zero: the first ID must sort above it, which refuses a zero ID
	for ; topics > 0; topics-- {
		if off > len(b)-(groupBytesMin+pairBytesMin) {
			return 0, false
		}
		w0, w1 := binary.LittleEndian.Uint64(b[off:]), binary.LittleEndian.Uint64(b[off+8:])
		hi, lo := bits.ReverseBytes64(w0), bits.ReverseBytes64(w1)
		if hi < prevHi || hi == prevHi && lo <= prevLo {
			return 0, false
		}
		prevHi, prevLo = hi, lo
		if b[off+16] == 1 && b[off+17] < 0x80 && n < len(pairs) {
			// The commonest group: one partition with a one-byte number, read in place.
			pos := binary.BigEndian.Uint64(b[off+18:])
			if pos >= uint64(MaxOffset) {
				return 0, false
			}
			p := &pairs[n]
			binary.LittleEndian.PutUint64(p.Channel.Topic[:8], w0)
			binary.LittleEndian.PutUint64(p.Channel.Topic[8:], w1)
			p.Channel.Partition, p.Position = Partition(b[off+17]), Offset(pos)
			n++
			off += groupBytesMin + pairBytesMin
			continue
		}
		count, next := varintShort(b, off+topicIDBytes)
		if next < 0 || count == 0 || int(count) > len(pairs)-n {
			return 0, false
		}
		off = next
		group := pairs[n : n+int(count)]
		n += int(count)
		// The topic ID goes into the group's first entry here and is copied from there into the
		// others, so the walk over the pairs keeps fewer values in registers.
		binary.LittleEndian.PutUint64(group[0].Channel.Topic[:8], w0)
		binary.LittleEndian.PutUint64(group[0].Channel.Topic[8:], w1)
		least := uint32(0) // the least partition the next pair may name
		for k := range group {
			if off > len(b)-pairBytesMin {
				return 0, false
			}
			w := b[off : off+pairBytesMin]
			part, pos := uint32(w[0]), binary.BigEndian.Uint64(w[1:])
			off += pairBytesMin
			if part >= 0x80 {
				if part, off = varintShort(b, off-pairBytesMin); off < 0 || off > len(b)-positionBytes {
					return 0, false
				}
				pos = binary.BigEndian.Uint64(b[off:])
				off += positionBytes
			}
			if part < least || pos >= uint64(MaxOffset) {
				return 0, false
			}
			least = part + 1
			p := &group[k]
			p.Channel.Topic = group[0].Channel.Topic
			p.Channel.Partition, p.Position = Partition(part), Offset(pos)
		}
	}
	if off != len(b) {
		return 0, false
	}
	return n, true
}

// varintShort reads a minimal one- or two-byte varint at off (0..16383) and returns it with the
// offset after it. The offset is −1 when the varint is truncated, non-minimal or longer than two
// bytes; decodeFast then leaves the input to the strict parser. Small enough to inline.
func varintShort(b []byte, off int) (uint32, int) {
	if off >= len(b) {
		return 0, -1
	}
	v := uint32(b[off])
	if v < 0x80 {
		return v, off + 1
	}
	if off+1 >= len(b) {
		return 0, -1
	}
	c := uint32(b[off+1])
	if c-1 >= 0x7F { // c == 0 is non-minimal, c ≥ 0x80 a third byte
		return 0, -1
	}
	return v&0x7F | c<<7, off + 2
}

// simpleGroupBytes is the length of a group naming one partition whose number takes one byte:
// topic ID, partition count, partition, position.
const simpleGroupBytes = topicIDBytes + 1 + 1 + positionBytes

// simpleList reports whether list (a decoded frontier: valid, in channel order) is one a value can
// spell only as one group per entry, each one partition with a one-byte number: no two entries
// share a topic, and every partition is below 0x80. decodeSame decodes values naming such a list.
func simpleList(list []Cause) bool {
	for k := range list {
		if list[k].Channel.Partition >= 0x80 || k > 0 && list[k].Channel.Topic == list[k-1].Channel.Topic {
			return false
		}
	}
	return len(list) > 0
}

// decodeSame decodes b into pairs (of len(list) entries) when b names exactly the channels of
// list, a simple list (simpleList), in order, and reports whether it did; false says nothing about
// b's validity (the caller then decodes it with decodeFast or the strict parser). It accepts only
// what the strict parser accepts, yielding the same frontier: a value naming a simple list has one
// layout, so it is the version byte, the entry count as a minimal varint, then per entry the
// list's topic ID, a partition count of 1 and the list's partition number in one byte (minimal,
// as it is below 0x80), and a position below 2^63−1 as an unsigned integer; the topic IDs ascend
// strictly and are not zero because the list's do. Comparing a group with the list's entry takes
// the place of the ascending check, and the length is checked once, so a value with a sender's
// usual channel list decodes in one pass over fixed offsets. TestDecodeSameMatchesStrict holds it
// to the strict parser.
//
// The shape check is sameShape's, written out so that the walk makes no call; the walk takes the
// groups from the last to the first, cutting each off b's end, so b's start never moves (moving
// it costs a pointer mask a group), and stops before the count; the answer does not depend on
// the order.
func decodeSame(pairs []Cause, b []byte, list []Cause) bool {
	if len(pairs) != len(list) || len(b) < 2 || b[0] != wireVersion {
		return false
	}
	if count, off := varintShort(b, 1); off < 0 || int(count) != len(list) || len(b)-off != len(list)*simpleGroupBytes {
		return false
	}
	for k := len(list) - 1; k >= 0; k-- {
		if len(b) < simpleGroupBytes {
			return false // never: the length was checked, but the reads need it said
		}
		g := (*[simpleGroupBytes]byte)(b[len(b)-simpleGroupBytes:])
		b = b[:len(b)-simpleGroupBytes]
		l := &list[k].Channel
		// The group's topic ID (compared as two words read in place), its tag (a partition
		// count of 1, then the list's partition, below 0x80) and its big-endian position, below
		// 2^63−1 (pos+1 is then positive as a signed integer). The entry's channel, equal to the
		// list's, is copied from the list.
		pos := binary.BigEndian.Uint64(g[18:])
		if binary.LittleEndian.Uint64(g[:8]) != binary.LittleEndian.Uint64(l.Topic[:8]) ||
			binary.LittleEndian.Uint64(g[8:16]) != binary.LittleEndian.Uint64(l.Topic[8:]) ||
			g[16] != 1 || Partition(g[17]) != l.Partition || int64(pos+1) <= 0 {
			return false
		}
		p := &pairs[k]
		p.Channel, p.Position = *l, Offset(pos)
	}
	return true
}

// sameShape returns where b's first group starts when b has the shape of a value naming a simple
// list of n channels (the version byte, n as a minimal varint of one or two bytes, then exactly n
// groups of simpleGroupBytes), else −1.
func sameShape(b []byte, n int) int {
	if len(b) < 2 || b[0] != wireVersion {
		return -1
	}
	count, off := varintShort(b, 1)
	if off < 0 || int(count) != n || len(b)-off != n*simpleGroupBytes {
		return -1
	}
	return off
}

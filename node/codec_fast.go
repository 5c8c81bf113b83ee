package node

import "encoding/binary"

// decodeFast is the decoder's hot path: one tight left-to-right pass that accepts only inputs the
// strict parser (decodeInto) accepts, yielding the same frontier, but does not say why it turns
// anything down. On any breach — and on the rare valid spelling it leaves to the strict parser, a
// varint of three or more bytes (a partition, partition count or topic count of 16384 or more) — it
// returns false with dst's contents unspecified, and the caller reruns decodeInto from scratch,
// which either accepts or finds the first violation and builds the DecodeError. Keeping the
// explanations and every call out of the loop keeps its state in registers: a call on a cold
// branch still makes the compiler spill and reload around the hot one.
//
// The checks, in the strict parser's terms: version byte; minimal varints (one- and two-byte
// spellings inline); every topic ID strictly above the previous one, starting from the all-zero
// ID, which covers both zero-topic-id and topics-not-ascending; partition count ≥ 1; partitions
// strictly ascending from −1; positions below 2^63−1 as unsigned integers, which covers negative
// and reserved positions; exact length. TestDecodeFastMatchesStrict holds the two parsers to the
// same answers.
func decodeFast(dst *Causes, b []byte) bool {
	if len(b) < 2 || b[0] != wireVersion {
		return false
	}
	topics, off := varintShort(b, 1)
	if off < 0 {
		return false
	}
	need := pairsMax(len(b)-off, topics)
	pairs := dst.pairs[:0]
	if cap(pairs) < need {
		pairs = make([]Cause, 0, need)
	}
	pairs = pairs[:cap(pairs)]
	n := 0
	var prev TopicID // all-zero: the first ID must sort above it, which refuses a zero ID
	for ; topics > 0; topics-- {
		if off > len(b)-groupBytesMin {
			return false
		}
		id := TopicID(b[off : off+topicIDBytes])
		if compareTopicIDs(&id, &prev) <= 0 {
			return false
		}
		prev = id
		count, next := varintShort(b, off+topicIDBytes)
		if next < 0 || count == 0 {
			return false
		}
		off = next
		prevPart := int64(-1)
		for ; count > 0; count-- {
			if off > len(b)-pairBytesMin || n >= len(pairs) {
				return false
			}
			part := uint32(b[off])
			off++
			if part >= 0x80 {
				if part, off = varintShort(b, off-1); off < 0 || off > len(b)-positionBytes {
					return false
				}
			}
			pos := binary.BigEndian.Uint64(b[off : off+positionBytes])
			if int64(part) <= prevPart || pos >= uint64(MaxOffset) {
				return false
			}
			prevPart = int64(part)
			off += positionBytes
			p := &pairs[n]
			p.Channel.Topic, p.Channel.Partition, p.Position = id, Partition(part), Offset(pos)
			n++
		}
	}
	if off != len(b) {
		return false
	}
	dst.pairs = pairs[:n]
	return true
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

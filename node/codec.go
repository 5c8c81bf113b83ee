package node

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// HeaderKey is the Kafka record header that carries a message's causes.
const HeaderKey = "parsley.causes"

// ReservedHeaderPrefix is reserved for Parsley: applications must not attach headers with it.
const ReservedHeaderPrefix = "parsley."

// wireVersion is the only version of the causes grammar.
const wireVersion = 0x01

// Sizes of the fixed-width fields of the grammar.
const (
	topicIDBytes   = 16
	positionBytes  = 8
	varintBytesMax = 5
)

// Family names the class of an undecodable value. The set is fixed; see DecodeError.
type Family string

// The families of undecodable input. When bytes break several rules, the family is that of the
// first violation met in a left-to-right parse.
const (
	FamilyNullValue              Family = "null-value"
	FamilyTruncated              Family = "truncated"
	FamilyTrailingBytes          Family = "trailing-bytes"
	FamilyUnknownVersion         Family = "unknown-version"
	FamilyNegativePosition       Family = "negative-position"
	FamilyReservedPosition       Family = "reserved-position"
	FamilyZeroTopicID            Family = "zero-topic-id"
	FamilyTopicsNotAscending     Family = "topics-not-ascending"
	FamilyPartitionsNotAscending Family = "partitions-not-ascending"
	FamilyZeroPartitions         Family = "zero-partitions"
	FamilyNonMinimalVarint       Family = "non-minimal-varint"
	FamilyVarintOverflow         Family = "varint-overflow"
	FamilyDuplicateHeader        Family = "duplicate-header"
)

// DecodeError says why a parsley.causes value (or a CausalPast token) is undecodable: the family
// of the rule broken, the byte offset where the parse met it, and a detail naming the offending
// value. An undecodable value must be refused, never salvaged or treated as absent.
type DecodeError struct {
	Family Family
	Offset int
	Detail string
}

// Error renders the error as "family at byte N: detail".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s at byte %d: %s", e.Family, e.Offset, e.Detail)
}

func decodeErr(f Family, offset int, format string, args ...any) *DecodeError {
	return &DecodeError{Family: f, Offset: offset, Detail: fmt.Sprintf(format, args...)}
}

// EncodedLen returns the exact length of Encode(c) (SPEC §4.5).
func EncodedLen(c Causes) int {
	n := 1 + varintLen(uint32(countTopics(c)))
	for i := 0; i < len(c.pairs); {
		j := i
		for j < len(c.pairs) && c.pairs[j].Channel.Topic == c.pairs[i].Channel.Topic {
			j++
		}
		n += topicIDBytes + varintLen(uint32(j-i))
		for _, p := range c.pairs[i:j] {
			n += varintLen(uint32(p.Channel.Partition)) + positionBytes
		}
		i = j
	}
	return n
}

// Encode returns the canonical version-1 encoding of c: one frontier, one spelling. The empty
// frontier encodes as 01 00.
func Encode(c Causes) []byte { return AppendEncode(make([]byte, 0, EncodedLen(c)), c) }

// AppendEncode appends the canonical encoding of c to dst and returns the extended slice.
func AppendEncode(dst []byte, c Causes) []byte {
	dst = append(dst, wireVersion)
	dst = appendVarint(dst, uint32(countTopics(c)))
	for i := 0; i < len(c.pairs); {
		topic := c.pairs[i].Channel.Topic
		j := i
		for j < len(c.pairs) && c.pairs[j].Channel.Topic == topic {
			j++
		}
		dst = append(dst, topic[:]...)
		dst = appendVarint(dst, uint32(j-i))
		for _, p := range c.pairs[i:j] {
			dst = appendVarint(dst, uint32(p.Channel.Partition))
			dst = binary.BigEndian.AppendUint64(dst, uint64(p.Position))
		}
		i = j
	}
	return dst
}

// countTopics counts the distinct topics of c (its groups on the wire).
func countTopics(c Causes) int {
	n := 0
	for i, p := range c.pairs {
		if i == 0 || p.Channel.Topic != c.pairs[i-1].Channel.Topic {
			n++
		}
	}
	return n
}

// Decode strictly decodes a version-1 parsley.causes value. Every rule of the wire format is
// enforced; any breach returns a *DecodeError and no causes. A nil value is a null header value
// (FamilyNullValue); an empty one is truncated. Decode never panics and allocates at most in
// proportion to len(b).
func Decode(b []byte) (Causes, error) {
	if oneEntry(b) {
		p := new([1]Cause)
		p[0].Channel.Topic = TopicID(b[2:18])
		p[0].Channel.Partition, p[0].Position = Partition(b[19]), Offset(binary.BigEndian.Uint64(b[20:28]))
		return Causes{pairs: p[:]}, nil
	}
	return decodeMany(b)
}

// decodeMany is Decode for every value but oneEntry's.
func decodeMany(b []byte) (Causes, error) {
	var c Causes
	if need := decodeRoom(b); need > 0 {
		c.pairs = make([]Cause, need)
		if n, ok := decodeFast(c.pairs, b); ok {
			c.pairs = c.pairs[:n]
			return c, nil
		}
	}
	if err := decodeStrict(&c, b); err != nil {
		return Causes{}, err
	}
	return c, nil
}

// oneEntryLen is the length of a value naming one channel whose partition number takes one byte:
// version, topic count, topic ID, partition count, partition, position.
const oneEntryLen = 1 + 1 + topicIDBytes + 1 + 1 + positionBytes

// oneEntry reports whether b is a value of the commonest shape, one channel with a one-byte
// partition number, which Decode reads into one allocation of exactly one entry without the
// general walk: b[2:18] is the topic ID, b[19] the partition and b[20:28] the position. It accepts
// exactly the values of that shape the strict parser accepts (false for any other, valid or not):
// a one-byte varint below 0x80 is minimal, one topic needs no order, and the position compared as
// unsigned refuses both negative and reserved positions. It is small enough to inline, so
// Decode's common case is one frame.
func oneEntry(b []byte) bool {
	if len(b) != oneEntryLen || b[0] != wireVersion || b[1] != 1 || b[18] != 1 || b[19] >= 0x80 {
		return false
	}
	w0, w1 := binary.LittleEndian.Uint64(b[2:10]), binary.LittleEndian.Uint64(b[10:18])
	return w0|w1 != 0 && binary.BigEndian.Uint64(b[20:28]) < uint64(MaxOffset)
}

// DecodeInto decodes b into dst, reusing dst's storage, so a hot path with a reused frontier
// decodes without allocating. On error dst is left empty. Valid input takes the register-resident
// fast path (codec_fast.go); the strict parser below runs only to explain a refusal, or for the
// rare valid spelling the fast path leaves to it.
func DecodeInto(dst *Causes, b []byte) error {
	if need := decodeRoom(b); cap(dst.pairs) < need {
		dst.pairs = make([]Cause, 0, need)
	}
	if n, ok := decodeFast(dst.pairs, b); ok {
		dst.pairs = dst.pairs[:n]
		return nil
	}
	return decodeStrict(dst, b)
}

// decodeStrict runs the strict parser into dst from scratch, leaving dst empty on error.
func decodeStrict(dst *Causes, b []byte) error {
	dst.Reset()
	if err := decodeInto(dst, b); err != nil {
		dst.Reset()
		return err
	}
	return nil
}

// decodeInto parses b left to right into dst. It keeps the offset in a local and compares topic
// IDs as two big-endian integers, so the per-entry work stays in registers.
func decodeInto(dst *Causes, b []byte) error {
	if b == nil {
		return decodeErr(FamilyNullValue, 0, "header value is null")
	}
	if len(b) == 0 {
		return decodeErr(FamilyTruncated, 0, "empty value: no version byte")
	}
	if b[0] != wireVersion {
		return decodeErr(FamilyUnknownVersion, 0, "version byte 0x%02x, want 0x01", b[0])
	}
	topics, off, err := readVarint(b, 1, "topic count")
	if err != nil {
		return err
	}
	if need := pairsMax(len(b)-off, topics); cap(dst.pairs) < need {
		dst.pairs = make([]Cause, 0, need)
	}
	var prevHi, prevLo uint64
	for g := uint32(0); g < topics; g++ {
		if len(b)-off < topicIDBytes {
			return decodeErr(FamilyTruncated, off, "group %d of %d: topic ID needs 16 bytes, %d left", g+1, topics, len(b)-off)
		}
		id := TopicID(b[off : off+topicIDBytes])
		hi, lo := binary.BigEndian.Uint64(b[off:off+8]), binary.BigEndian.Uint64(b[off+8:off+16])
		if hi|lo == 0 {
			return decodeErr(FamilyZeroTopicID, off, "group %d names the all-zero topic ID", g+1)
		}
		if g > 0 && (hi < prevHi || hi == prevHi && lo <= prevLo) {
			var prev TopicID
			binary.BigEndian.PutUint64(prev[:8], prevHi)
			binary.BigEndian.PutUint64(prev[8:], prevLo)
			return decodeErr(FamilyTopicsNotAscending, off, "topic %s does not sort after %s", id, prev)
		}
		prevHi, prevLo = hi, lo
		if off, err = decodeGroup(dst, b, off+topicIDBytes, id); err != nil {
			return err
		}
	}
	if off < len(b) {
		return decodeErr(FamilyTrailingBytes, off, "%d byte(s) after the last of %d group(s)", len(b)-off, topics)
	}
	return nil
}

// Smallest encodings: a group is at least a topic ID and a one-byte partition count, a pair at
// least a one-byte partition and a position.
const (
	groupBytesMin = topicIDBytes + 1
	pairBytesMin  = 1 + positionBytes
)

// pairsMax bounds the number of pairs that rest bytes holding topics groups can carry, so the
// decoder reserves storage in proportion to the input, never to a claimed count: a value claiming
// 2^31−1 topics in six bytes reserves nothing and fails as truncated.
func pairsMax(rest int, topics uint32) int {
	if uint64(topics)*groupBytesMin > uint64(rest) {
		return 0 // truncated; the parse reports where
	}
	return (rest - int(topics)*groupBytesMin) / pairBytesMin
}

// decodeGroup decodes one group's partition count and pairs for topic id, starting at off, and
// returns the offset after the group.
func decodeGroup(dst *Causes, b []byte, off int, id TopicID) (int, error) {
	countOff := off
	count, off, err := readVarint(b, off, "partition count")
	if err != nil {
		return off, err
	}
	if count == 0 {
		return off, decodeErr(FamilyZeroPartitions, countOff, "topic %s has a partition count of 0", id)
	}
	var prev uint32
	for i := uint32(0); i < count; i++ {
		partOff := off
		var part uint32
		if part, off, err = readVarint(b, off, "partition"); err != nil {
			return off, err
		}
		if i > 0 && part <= prev {
			return off, decodeErr(FamilyPartitionsNotAscending, partOff, "topic %s: partition %d does not follow %d", id, part, prev)
		}
		prev = part
		if len(b)-off < positionBytes {
			return off, decodeErr(FamilyTruncated, off, "topic %s partition %d: position needs 8 bytes, %d left", id, part, len(b)-off)
		}
		pos := int64(binary.BigEndian.Uint64(b[off : off+positionBytes]))
		if pos < 0 {
			return off, decodeErr(FamilyNegativePosition, off, "topic %s partition %d: position %d", id, part, pos)
		}
		if Offset(pos) == MaxOffset {
			return off, decodeErr(FamilyReservedPosition, off, "topic %s partition %d: position 2^63-1 is reserved", id, part)
		}
		off += positionBytes
		// Fill the new element in place: building a Cause on the stack and copying it in makes
		// the CPU reload fresh partial stores as one wide load, which stalls.
		dst.pairs = append(dst.pairs, Cause{})
		p := &dst.pairs[len(dst.pairs)-1]
		p.Channel.Topic, p.Channel.Partition, p.Position = id, Partition(part), Offset(pos)
	}
	return off, nil
}

// readVarint reads a minimal unsigned base-128 varint in 0..2^31−1 at off (at most five bytes,
// the fifth carrying only its low three bits) and returns it with the offset after it. The
// one-byte spelling, by far the commonest, is inlined.
func readVarint(b []byte, off int, what string) (uint32, int, error) {
	if off < len(b) && b[off] < 0x80 {
		return uint32(b[off]), off + 1, nil
	}
	return readVarintSlow(b, off, what)
}

// readVarintSlow is readVarint for multi-byte, truncated and malformed spellings.
func readVarintSlow(b []byte, start int, what string) (uint32, int, error) {
	var v uint32
	off := start
	for i := 0; i < varintBytesMax; i++ {
		if off >= len(b) {
			return 0, off, decodeErr(FamilyTruncated, off, "%s varint ends after %d byte(s)", what, i)
		}
		c := b[off]
		off++
		if i == varintBytesMax-1 && c&0xF8 != 0 {
			return 0, off, decodeErr(FamilyVarintOverflow, start, "%s varint: fifth byte 0x%02x exceeds 2^31-1", what, c)
		}
		v |= uint32(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, off, decodeErr(FamilyNonMinimalVarint, start, "%s varint ends in a zero byte after %d byte(s)", what, i+1)
			}
			return v, off, nil
		}
	}
	panic("unreachable: the fifth byte check rejects a continuation bit")
}

// varintLen is the number of bytes of the minimal varint spelling of v.
func varintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

// appendVarint appends the minimal varint spelling of v.
func appendVarint(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

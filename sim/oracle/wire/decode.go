package wire

import (
	"bytes"
	"encoding/binary"
)

// DecodeHeaders reads the causes of a record from its whole header list, as a receiver must
// (seed "Placement"), and appends them to dst (nil: a list of its own; a caller that converts
// the causes at once can decode into storage of its own): no parsley.causes header means no
// causes (present is false); two or more are undecodable whatever their values; exactly one is
// decoded by Decode. Headers with other keys, including other parsley.* keys, are not looked
// at. It returns dst unchanged when there are no causes or a refusal.
func DecodeHeaders(dst []Cause, headers []Header) (causes []Cause, present bool, r *Refusal) {
	found := 0
	var value []byte
	for _, h := range headers {
		if h.Key != HeaderKey {
			continue
		}
		found++
		if found == 1 {
			value = h.Value
		}
	}
	switch found {
	case 0:
		return dst, false, nil
	case 1:
		causes, r = AppendDecode(dst, value)
		return causes, true, r
	}
	return dst, true, refuse(DuplicateHeader, 0, "%d %s headers on one record", found, HeaderKey)
}

// Decode reads one parsley.causes header value (nil is a null value) and returns its causes in
// the order the value lists them, which is channel order, or the first rule the value breaks.
// It never returns both and never panics; it allocates in proportion to the input, since a cause
// is kept only once its nine or more bytes have been read.
//
// The grammar (seed "Grammar"):
//
//	value          := version topicCount group*
//	version        := uint8    -- 0x01
//	topicCount     := varint   -- number of groups
//	group          := topicId partitionCount pair*
//	topicId        := 16 bytes
//	partitionCount := varint   -- number of pairs, >= 1
//	pair           := partition position
//	partition      := varint
//	position       := int64    -- big-endian, 0 .. 2^63-2
func Decode(value []byte) ([]Cause, *Refusal) {
	causes, r := AppendDecode(nil, value)
	if len(causes) == 0 {
		return nil, r
	}
	return causes, nil
}

// AppendDecode is Decode appending the causes to dst, for a caller that converts them at once
// and so can decode into storage of its own. It returns dst unchanged on a refusal.
func AppendDecode(dst []Cause, value []byte) ([]Cause, *Refusal) {
	if value == nil {
		return dst, refuse(NullValue, 0, "the header value is null")
	}
	d := decoder{in: value}
	causes, r := d.value(dst)
	if r != nil {
		return dst, r
	}
	return causes, nil
}

// decoder reads a value from front to back; at is the offset of the next unread byte.
type decoder struct {
	in []byte
	at int
}

// value reads the whole value: the version, the topic count, that many groups, and nothing
// after them (constraint 2), appending its causes to dst.
func (d *decoder) value(dst []Cause) ([]Cause, *Refusal) {
	version, ok := d.byte()
	if !ok {
		return nil, refuse(Truncated, 0, "the value is empty: no version byte")
	}
	if version != Version {
		return nil, refuse(UnknownVersion, 0, "version byte 0x%02x; the only version is 0x01", version)
	}
	topicCount, r := d.varint("the topic count")
	if r != nil {
		return nil, r
	}
	// Every cause takes at least nine bytes (a one-byte partition and a position), so the rest of
	// the value bounds how many there can be: a list of its own gets room for that many, while a
	// caller's list, whose room is its caller's guess, grows only if the causes outgrow it.
	causes := dst
	if cap(dst) == 0 && len(d.in) > d.at {
		causes = make([]Cause, 0, (len(d.in)-d.at)/9)
	}
	var previous TopicID
	for g := uint32(1); g <= topicCount; g++ {
		if causes, r = d.group(causes, g, topicCount, &previous); r != nil {
			return nil, r
		}
	}
	if d.at < len(d.in) {
		return nil, refuse(TrailingBytes, d.at, "%d byte(s) after the last of %d group(s)", len(d.in)-d.at, topicCount)
	}
	return causes, nil
}

// group reads group g of count: its topic ID, which must not be zero (constraint 5) and must
// sort strictly after the previous group's, *previous (constraint 3), its partition count, at
// least one (constraint 4), and its pairs. It returns causes with the group's entries appended,
// and leaves the group's topic ID in *previous. (IDs go by pointer and causes are appended in
// place: arrays are passed and returned through memory.)
func (d *decoder) group(causes []Cause, g, count uint32, previous *TopicID) ([]Cause, *Refusal) {
	idAt := d.at
	b, ok := d.take(len(TopicID{}))
	if !ok {
		return nil, refuse(Truncated, idAt, "group %d of %d: the topic ID ends after %d of 16 bytes", g, count, len(b))
	}
	id := TopicID(b)
	if id == (TopicID{}) {
		return nil, refuse(ZeroTopicID, idAt, "group %d names the all-zero topic ID", g)
	}
	if g > 1 && bytes.Compare(previous[:], id[:]) >= 0 {
		return nil, refuse(TopicsNotAscending, idAt, "group %d: topic %s does not sort after %s", g, id, *previous)
	}
	*previous = id
	countAt := d.at
	pairs, r := d.varint("a partition count")
	if r != nil {
		return nil, r
	}
	if pairs == 0 {
		return nil, refuse(ZeroPartitions, countAt, "group %d (topic %s) has a partition count of 0", g, id)
	}
	previousPartition := int64(-1)
	for i := uint32(1); i <= pairs; i++ {
		if causes, r = d.pair(causes, &id, previousPartition); r != nil {
			return nil, r
		}
		previousPartition = int64(causes[len(causes)-1].Channel.Partition)
	}
	return causes, nil
}

// pair reads one partition of topic *id and its position and appends the cause to causes; the
// partition must be above the previous one of its group (constraint 4), the position in
// 0 .. 2^63−2 (constraints 6 and 7).
func (d *decoder) pair(causes []Cause, id *TopicID, previousPartition int64) ([]Cause, *Refusal) {
	partitionAt := d.at
	partition, r := d.varint("a partition")
	if r != nil {
		return nil, r
	}
	if int64(partition) <= previousPartition {
		return nil, refuse(PartitionsNotAscending, partitionAt, "topic %s: partition %d follows partition %d", *id, partition, previousPartition)
	}
	positionAt := d.at
	b, ok := d.take(8)
	if !ok {
		return nil, refuse(Truncated, positionAt, "topic %s partition %d: the position ends after %d of 8 bytes", *id, partition, len(b))
	}
	u := binary.BigEndian.Uint64(b) // the most significant byte first
	if u >= 1<<63 {
		return nil, refuse(NegativePosition, positionAt, "topic %s partition %d: position %d", *id, partition, int64(u))
	}
	if u == 1<<63-1 {
		return nil, refuse(ReservedPosition, positionAt, "topic %s partition %d: position 2^63-1 is reserved", *id, partition)
	}
	return append(causes, Cause{Channel: Channel{Topic: *id, Partition: int32(partition)}, Position: int64(u)}), nil
}

// varint reads an unsigned base-128 varint: seven payload bits per byte, lowest first, the high
// bit set on every byte but the last. Only the minimal spelling of a value in 0 .. 2^31−1 is
// valid: a last byte of zero after the first byte is not minimal, and a fifth byte may carry
// only the low three bits (anything else, its continuation bit included, spells more than 31
// bits, or aliases a shorter spelling for a 32-bit reader). what names the field for the detail.
func (d *decoder) varint(what string) (uint32, *Refusal) {
	start := d.at
	var v uint32
	for i := 0; ; i++ {
		b, ok := d.byte()
		if !ok {
			return 0, refuse(Truncated, start, "%s varint ends after %d byte(s)", what, i)
		}
		if i == 4 && b > 0x07 {
			return 0, refuse(VarintOverflow, start, "%s varint: fifth byte 0x%02x carries more than 31 bits", what, b)
		}
		v |= uint32(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			if i > 0 && b == 0 {
				return 0, refuse(NonMinimalVarint, start, "%s varint of %d bytes ends in a zero byte", what, i+1)
			}
			return v, nil
		}
	}
}

// take reads the next n bytes; ok is false when fewer are left, and then it returns those.
func (d *decoder) take(n int) (b []byte, ok bool) {
	if len(d.in)-d.at < n {
		b, d.at = d.in[d.at:], len(d.in)
		return b, false
	}
	b = d.in[d.at : d.at+n]
	d.at += n
	return b, true
}

// byte reads the next byte; ok is false at the end of the value.
func (d *decoder) byte() (b byte, ok bool) {
	if d.at >= len(d.in) {
		return 0, false
	}
	b = d.in[d.at]
	d.at++
	return b, true
}

package corrupt

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/oracle/wire"
)

// A value as the grammar lays it out: groups of pairs, and the fields they are written as. The
// field-level shapes (truncation, respelt varints) act on the fields of a canonical value; the
// group-level ones rebuild the fields from changed groups.

// group is one topic's entries in a value.
type group struct {
	id    wire.TopicID
	pairs []pair
}

// pair is one partition and its position, kept unsigned so a shape can set any 64 bits.
type pair struct {
	partition uint32
	position  uint64
}

// groupsOf lays causes out as the canonical value does: by topic ID, then partition.
func groupsOf(causes []wire.Cause) []group {
	sorted := slices.Clone(causes)
	slices.SortFunc(sorted, wire.CompareCauses)
	var out []group
	for _, c := range sorted {
		if len(out) == 0 || out[len(out)-1].id != c.Channel.Topic {
			out = append(out, group{id: c.Channel.Topic})
		}
		last := &out[len(out)-1]
		last.pairs = append(last.pairs, pair{partition: uint32(c.Channel.Partition), position: uint64(c.Position)})
	}
	return out
}

// fieldKind is what a field of a value holds.
type fieldKind uint8

const (
	fieldVersion fieldKind = iota
	fieldTopicCount
	fieldTopicID
	fieldPartitionCount
	fieldPartition
	fieldPosition
)

// field is one field of a value and its bytes. value is a varint field's value.
type field struct {
	kind  fieldKind
	value uint32
	bytes []byte
}

// isVarint reports whether the field is a varint.
func (f field) isVarint() bool {
	return f.kind == fieldTopicCount || f.kind == fieldPartitionCount || f.kind == fieldPartition
}

// fieldsOf writes groups as fields, each count the number of what follows it.
func fieldsOf(groups []group) []field {
	out := []field{{kind: fieldVersion, bytes: []byte{wire.Version}}, varint(fieldTopicCount, uint32(len(groups)))}
	for _, g := range groups {
		out = append(out, field{kind: fieldTopicID, bytes: slices.Clone(g.id[:])}, varint(fieldPartitionCount, uint32(len(g.pairs))))
		for _, p := range g.pairs {
			pos := make([]byte, 8)
			for i := range pos {
				pos[i] = byte(p.position >> (56 - 8*i))
			}
			out = append(out, varint(fieldPartition, p.partition), field{kind: fieldPosition, bytes: pos})
		}
	}
	return out
}

// varint returns a varint field holding v in its minimal spelling.
func varint(k fieldKind, v uint32) field {
	f := field{kind: k, value: v}
	for v >= 0x80 {
		f.bytes = append(f.bytes, byte(v&0x7f)|0x80)
		v >>= 7
	}
	f.bytes = append(f.bytes, byte(v))
	return f
}

// join concatenates the fields' bytes.
func join(fields []field) []byte {
	var out []byte
	for _, f := range fields {
		out = append(out, f.bytes...)
	}
	return out
}

// truncate cuts the value inside or at the start of a field drawn among all but the version byte
// (cutting that leaves the empty value, a shape of its own).
func truncate(src Source, fields []field) []byte {
	i := 1 + src.IntN(len(fields)-1)
	return cutAt(fields, i, src.IntN(len(fields[i].bytes)))
}

// cutAt cuts the value within bytes into field i.
func cutAt(fields []field, i, within int) []byte {
	cut := within
	for _, f := range fields[:i] {
		cut += len(f.bytes)
	}
	return join(fields)[:cut]
}

// respell spells one varint field drawn among the value's varints in a way the grammar refuses:
// padded past its minimal length with a last byte of zero (NonMinimalVarint), or (VarintOverflow)
// in five bytes whose fifth carries bits above the low three — half the time only bits a 32-bit
// reader shifts away, the alias of the value SPEC §4.3 warns of, otherwise bit 31 too (a value
// over 2^31−1) — or in six bytes.
func respell(s Shape, src Source, fields []field) []byte {
	var varints []int
	for i, f := range fields {
		if f.isVarint() && (s != NonMinimalVarint || len(f.bytes) < 5) { // five bytes cannot be padded
			varints = append(varints, i)
		}
	}
	i := varints[src.IntN(len(varints))]
	if s == NonMinimalVarint {
		return padAt(fields, i, 1+src.IntN(5-len(fields[i].bytes)))
	}
	switch src.IntN(4) {
	case 0, 1:
		return fiveBytesAt(fields, i, byte(1+src.IntN(7))<<4)
	case 2:
		return fiveBytesAt(fields, i, 0x08|byte(src.IntN(8))<<4)
	}
	return sixBytesAt(fields, i, byte(1+src.IntN(0x7f)))
}

// padAt spells varint field i in extra more bytes than its minimal spelling, the last one zero.
func padAt(fields []field, i, extra int) []byte {
	f := &fields[i]
	v, n := f.value, len(f.bytes)+extra
	f.bytes = f.bytes[:0]
	for range n - 1 {
		f.bytes = append(f.bytes, byte(v&0x7f)|0x80)
		v >>= 7
	}
	f.bytes = append(f.bytes, 0) // v is 0 by now: the minimal spelling was shorter
	return join(fields)
}

// fiveBytesAt spells varint field i in five bytes, the fifth carrying high (bits above the low
// three) besides the value's own top bits.
func fiveBytesAt(fields []field, i int, high byte) []byte {
	f := &fields[i]
	f.bytes = continued(f.value)
	f.bytes = append(f.bytes, byte(f.value>>28)|high)
	return join(fields)
}

// sixBytesAt spells varint field i in six bytes: the fifth continues, the sixth is last.
func sixBytesAt(fields []field, i int, last byte) []byte {
	f := &fields[i]
	f.bytes = continued(f.value)
	f.bytes = append(f.bytes, byte(f.value>>28)|0x80, last)
	return join(fields)
}

// continued returns v's four low 7-bit groups, each with its continuation bit set.
func continued(v uint32) []byte {
	out := make([]byte, 4)
	for j := range out {
		out[j] = byte(v>>(7*j))&0x7f | 0x80
	}
	return out
}

// firstOf returns the index of the first field of kind k, or -1.
func firstOf(fields []field, k fieldKind) int {
	for i, f := range fields {
		if f.kind == k {
			return i
		}
	}
	return -1
}

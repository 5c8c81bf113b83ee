// Package corrupt generates corrupt parsley.causes headers: from a seeded source and a frontier
// (usually one a real writer stamped), a header list drawn from every undecodable family of
// SPEC §4.7 — a null or empty value, a duplicated header, an unknown version, a truncation at any
// field, trailing bytes, a non-minimal or over-range varint at any varint field, a zero topic ID,
// topics or partitions out of order or repeated, a group of no partitions, a negative or
// reserved position — and near misses of the frontier's own encoding (a byte flipped, an entry
// dropped, a position moved), some of which decode, to something the writer did not mean.
//
// The simulator's corrupt produce and the node's fuzz corpus draw from it. What a generated
// header means is decided by the reference decoder (package wire), never here: a shape says only
// which family its values are built to break, and near misses break none in particular.
package corrupt

import (
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/sim/oracle/wire"
)

// Source is where a corruption's randomness comes from; *rand.Rand is one.
type Source interface {
	IntN(n int) int
	Uint64() uint64
}

// Shape names one way of corrupting a header.
type Shape string

// The shapes. Each undecodable shape builds values that break exactly the rule of its family;
// the near misses (FlipByte, DropEntry, MovePosition) change the frontier's canonical encoding in
// one place and may or may not decode.
const (
	NullValue              Shape = "null-value"
	EmptyValue             Shape = "empty-value"
	DuplicateHeader        Shape = "duplicate-header"
	UnknownVersion         Shape = "unknown-version"
	Truncated              Shape = "truncated"
	TrailingBytes          Shape = "trailing-bytes"
	NonMinimalVarint       Shape = "non-minimal-varint"
	VarintOverflow         Shape = "varint-overflow"
	ZeroTopicID            Shape = "zero-topic-id"
	TopicsNotAscending     Shape = "topics-not-ascending"
	PartitionsNotAscending Shape = "partitions-not-ascending"
	ZeroPartitions         Shape = "zero-partitions"
	NegativePosition       Shape = "negative-position"
	ReservedPosition       Shape = "reserved-position"
	FlipByte               Shape = "flip-byte"
	DropEntry              Shape = "drop-entry"
	MovePosition           Shape = "move-position"
)

// Shapes lists every shape in a fixed order: Draw draws an index into it, and an explorer
// enumerates it.
var Shapes = []Shape{NullValue, EmptyValue, DuplicateHeader, UnknownVersion, Truncated, TrailingBytes,
	NonMinimalVarint, VarintOverflow, ZeroTopicID, TopicsNotAscending, PartitionsNotAscending,
	ZeroPartitions, NegativePosition, ReservedPosition, FlipByte, DropEntry, MovePosition}

// Family returns the family the shape's values are refused with, and false for a near miss,
// whose values may decode.
func (s Shape) Family() (wire.Family, bool) {
	switch s {
	case FlipByte, DropEntry, MovePosition:
		return "", false
	case EmptyValue:
		return wire.Truncated, true
	}
	return wire.Family(s), true
}

// Corruption is one generated header list: the parsley.causes header values a record carries, in
// order (a nil value is a null one). Every shape but DuplicateHeader gives one value.
type Corruption struct {
	Shape  Shape
	Values [][]byte
}

// Undecodable lists the shapes whose values are always refused (every shape but the near misses),
// in the order of Shapes.
var Undecodable = slices.DeleteFunc(slices.Clone(Shapes), func(s Shape) bool { _, ok := s.Family(); return !ok })

// Draw draws a shape uniformly from shapes and makes it from base (see Make).
func Draw(src Source, shapes []Shape, base []wire.Cause) Corruption {
	return Make(shapes[src.IntN(len(shapes))], src, base)
}

// Representatives returns the small fixed set of corruptions an exhaustive exploration tries,
// in a fixed order and a number that does not depend on base: for each shape one made with a
// source fixed per shape, but for the shapes that act on one field, one per kind of field, since a
// decoder may read each kind with code of its own — a truncation inside the topic count, a topic
// ID, a partition count, a partition and a position; a non-minimal spelling and the five-byte
// alias of the topic count, a partition count and a partition; and a six-byte partition.
func Representatives(base []wire.Cause) []Corruption {
	src := func(i int) Source { return rand.New(rand.NewPCG(representativeSeed, uint64(i))) }
	if len(base) == 0 {
		base = []wire.Cause{synthetic(src(len(Shapes)))}
	}
	fields := func() []field { return fieldsOf(groupsOf(base)) }
	one := func(s Shape, b []byte) Corruption { return Corruption{Shape: s, Values: [][]byte{b}} }
	var out []Corruption
	for si, s := range Shapes {
		switch s {
		case Truncated:
			for _, k := range []fieldKind{fieldTopicCount, fieldTopicID, fieldPartitionCount, fieldPartition, fieldPosition} {
				fs := fields()
				i := firstOf(fs, k)
				out = append(out, one(s, cutAt(fs, i, len(fs[i].bytes)/2)))
			}
		case NonMinimalVarint, VarintOverflow:
			for _, k := range []fieldKind{fieldTopicCount, fieldPartitionCount, fieldPartition} {
				fs := fields()
				i := firstOf(fs, k)
				switch {
				case s == VarintOverflow:
					out = append(out, one(s, fiveBytesAt(fs, i, 0x10)))
				case len(fs[i].bytes) == 5: // no padding left: pad the topic count again
					out = append(out, one(s, padAt(fs, firstOf(fs, fieldTopicCount), 1)))
				default:
					out = append(out, one(s, padAt(fs, i, 1)))
				}
			}
			if s == VarintOverflow {
				fs := fields()
				out = append(out, one(s, sixBytesAt(fs, firstOf(fs, fieldPartition), 0x01)))
			}
		default:
			out = append(out, Make(s, src(si), base))
		}
	}
	return out
}

// representativeSeed seeds the representatives' sources.
const representativeSeed = 0x636f7272757074

// Make builds a corruption of shape s from the frontier base (any order, distinct channels, each
// cause encodable), drawing its details from src: which field, which byte, which value. A base
// with no causes is first given one, on a topic drawn from src, since most shapes act on an
// entry.
func Make(s Shape, src Source, base []wire.Cause) Corruption {
	if len(base) == 0 {
		base = []wire.Cause{synthetic(src)}
	}
	g := groupsOf(base)
	one := func(b []byte) Corruption { return Corruption{Shape: s, Values: [][]byte{b}} }
	switch s {
	case NullValue:
		return one(nil)
	case EmptyValue:
		return one([]byte{})
	case DuplicateHeader:
		second := wire.Encode(base)
		if src.IntN(2) == 0 {
			second = wire.Encode(dropEntry(src, base))
		}
		return Corruption{Shape: s, Values: [][]byte{wire.Encode(base), second}}
	case UnknownVersion:
		v := byte(src.IntN(255))
		if v >= wire.Version {
			v++
		}
		return one(append([]byte{v}, wire.Encode(base)[1:]...))
	case Truncated:
		return one(truncate(src, fieldsOf(g)))
	case TrailingBytes:
		out := wire.Encode(base)
		for range 1 + src.IntN(4) {
			out = append(out, byte(src.Uint64()))
		}
		return one(out)
	case NonMinimalVarint, VarintOverflow:
		return one(respell(s, src, fieldsOf(g)))
	case FlipByte:
		out := wire.Encode(base)
		out[src.IntN(len(out))] ^= byte(1 + src.IntN(255))
		return one(out)
	case DropEntry:
		return one(wire.Encode(dropEntry(src, base)))
	case MovePosition:
		return one(wire.Encode(movePosition(src, base)))
	}
	return one(join(fieldsOf(reorder(s, src, g))))
}

// synthetic draws one cause on a non-zero topic.
func synthetic(src Source) wire.Cause {
	var id wire.TopicID
	for i := range id {
		id[i] = byte(src.Uint64())
	}
	id[0] |= 0x01
	return wire.Cause{Channel: wire.Channel{Topic: id, Partition: int32(src.IntN(4))}, Position: int64(src.IntN(100))}
}

// reorder applies a group-level shape: a zero topic ID, topics or partitions out of order or
// repeated, a group emptied, a position made negative or reserved. The groups are copied first.
func reorder(s Shape, src Source, in []group) []group {
	g := make([]group, len(in))
	for i := range in {
		g[i] = group{id: in[i].id, pairs: slices.Clone(in[i].pairs)}
	}
	i := src.IntN(len(g))
	switch s {
	case ZeroTopicID:
		g[i].id = wire.TopicID{}
	case TopicsNotAscending:
		if len(g) >= 2 && src.IntN(2) == 0 {
			i = src.IntN(len(g) - 1)
			g[i], g[i+1] = g[i+1], g[i]
		} else {
			g = slices.Insert(g, i+1, group{id: g[i].id, pairs: slices.Clone(g[i].pairs)})
		}
	case PartitionsNotAscending:
		ps := g[i].pairs
		if j := src.IntN(len(ps)); len(ps) >= 2 && src.IntN(2) == 0 {
			j = src.IntN(len(ps) - 1)
			ps[j], ps[j+1] = ps[j+1], ps[j]
		} else {
			ps = slices.Insert(ps, j+1, ps[j])
		}
		g[i].pairs = ps
	case ZeroPartitions:
		g[i].pairs = nil
	case NegativePosition, ReservedPosition:
		j := src.IntN(len(g[i].pairs))
		if s == ReservedPosition {
			g[i].pairs[j].position = 1<<63 - 1
		} else {
			g[i].pairs[j].position = 1<<63 | src.Uint64()
		}
	default:
		panic("corrupt: unknown shape " + string(s))
	}
	return g
}

// dropEntry returns base without one of its causes.
func dropEntry(src Source, base []wire.Cause) []wire.Cause {
	i := src.IntN(len(base))
	return slices.Delete(slices.Clone(base), i, i+1)
}

// movePosition returns base with one cause's position changed to another valid one: one to three
// away (either way, as an off-by-one would) or anywhere in range.
func movePosition(src Source, base []wire.Cause) []wire.Cause {
	out := slices.Clone(base)
	c := &out[src.IntN(len(out))]
	old := c.Position
	for c.Position == old {
		if src.IntN(4) == 0 {
			c.Position = int64(src.Uint64() % (wire.PositionMax + 1))
			continue
		}
		d := int64(1 + src.IntN(3))
		if src.IntN(2) == 0 && old-d >= 0 || old > wire.PositionMax-d {
			d = -d
		}
		c.Position = old + d
	}
	return out
}

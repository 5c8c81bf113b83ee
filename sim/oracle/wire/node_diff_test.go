package wire_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"pgregory.net/rapid"
)

// The reference codec against the node's: both must accept the same values, decode them to the
// same causes, refuse the same values with the same family, and encode a frontier to the same
// bytes. Where they disagree the wire format decides (docs/PROTOCOL.md §4), and the
// disagreement is a finding about one of the two codecs.

// genTopic draws a non-zero topic ID, often from a small pool (so frontiers share topics, and IDs
// with the sign bit set appear), otherwise any 16 bytes.
func genTopic() *rapid.Generator[wire.TopicID] {
	pool := []wire.TopicID{{15: 1}, {0: 0x01, 15: 0x10}, {0: 0x7f, 15: 0xff}, {0: 0x80}, {0: 0xf1, 1: 0x02}, {7: 0xff, 8: 0x01}}
	return rapid.Custom(func(t *rapid.T) wire.TopicID {
		if rapid.Bool().Draw(t, "pooled") {
			return rapid.SampledFrom(pool).Draw(t, "topic")
		}
		id := wire.TopicID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "topic bytes"))
		if id == (wire.TopicID{}) {
			id[0] = 1
		}
		return id
	})
}

// genFrontier draws up to 30 causes on distinct channels, partitions at every varint length
// boundary as well as anywhere, positions at the ends of their range as well as anywhere.
func genFrontier() *rapid.Generator[[]wire.Cause] {
	return rapid.Custom(func(t *rapid.T) []wire.Cause {
		n := rapid.IntRange(0, 30).Draw(t, "causes")
		seen := map[wire.Channel]bool{}
		var out []wire.Cause
		for range n {
			part := rapid.OneOf(
				rapid.Int32Range(0, 3),
				rapid.SampledFrom([]int32{127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, math.MaxInt32}),
				rapid.Int32Range(0, math.MaxInt32),
			).Draw(t, "partition")
			pos := rapid.OneOf(
				rapid.Int64Range(0, 10),
				rapid.Just(int64(wire.PositionMax)),
				rapid.Int64Range(0, wire.PositionMax),
			).Draw(t, "position")
			ch := wire.Channel{Topic: genTopic().Draw(t, "topic"), Partition: part}
			if !seen[ch] {
				seen[ch] = true
				out = append(out, wire.Cause{Channel: ch, Position: pos})
			}
		}
		return out
	})
}

// toNode converts reference causes to a node frontier.
func toNode(causes []wire.Cause) node.Causes {
	pairs := make([]node.Cause, len(causes))
	for i, c := range causes {
		pairs[i] = node.Cause{Channel: node.Channel{Topic: node.TopicID(c.Channel.Topic), Partition: node.Partition(c.Channel.Partition)}, Position: node.Offset(c.Position)}
	}
	return node.CausesOf(pairs...)
}

// fromNode converts a node frontier to reference causes, in its order.
func fromNode(c node.Causes) []wire.Cause {
	var out []wire.Cause
	for _, p := range c.Pairs() {
		out = append(out, wire.Cause{Channel: wire.Channel{Topic: wire.TopicID(p.Channel.Topic), Partition: int32(p.Channel.Partition)}, Position: int64(p.Position)})
	}
	return out
}

// sameCauses compares two cause lists element by element, order included.
func sameCauses(a, b []wire.Cause) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// agree checks that both decoders give the same answer on value.
func agree(t interface {
	Helper()
	Fatalf(string, ...any)
}, value []byte) {
	t.Helper()
	ref, r := wire.Decode(value)
	got, err := node.Decode(value)
	compare(t, value, ref, r, got, err)
}

// compare checks one reference answer against one node answer on input in.
func compare(t interface {
	Helper()
	Fatalf(string, ...any)
}, in any, ref []wire.Cause, r *wire.Refusal, got node.Causes, err error) {
	t.Helper()
	switch {
	case r == nil && err != nil:
		t.Fatalf("%x: the reference decodes %v; the node refuses: %v", in, ref, err)
	case r != nil && err == nil:
		t.Fatalf("%x: the reference refuses (%v); the node decodes %v", in, r, got)
	case r == nil:
		if !sameCauses(ref, fromNode(got)) {
			t.Fatalf("%x: the reference decodes %v; the node %v", in, ref, got)
		}
		return
	}
	var de *node.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("%x: the node refuses with %T, not a DecodeError: %v", in, err, err)
	}
	if string(de.Family) != string(r.Family) {
		t.Fatalf("%x: the reference refuses %v; the node %v", in, r, err)
	}
	// Both report where the rule is broken; for a cut-short varint the node names the missing
	// byte and the reference the varint's first byte, so truncations compare by family only.
	if r.Family != wire.Truncated && de.Offset != r.Offset {
		t.Fatalf("%x: the reference refuses %v; the node %v (another offset)", in, r, err)
	}
}

// TestDifferentialEncode: both encoders write the same bytes for any frontier, and both decoders
// read them back to it.
func TestDifferentialEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		causes := genFrontier().Draw(t, "frontier")
		ref := wire.Encode(causes)
		if got := node.Encode(toNode(causes)); !bytes.Equal(ref, got) {
			t.Fatalf("frontier %v: the reference encodes %x; the node %x", causes, ref, got)
		}
		agree(t, ref)
	})
}

// mutate applies one drawn mutation to a valid value: a byte changed, inserted or removed, the
// value cut or extended, or a varint-looking run spliced in.
func mutate(t *rapid.T, in []byte) []byte {
	out := append([]byte(nil), in...)
	at := rapid.IntRange(0, len(out)).Draw(t, "at")
	switch rapid.IntRange(0, 5).Draw(t, "mutation") {
	case 0:
		if at < len(out) {
			out[at] ^= rapid.ByteRange(1, 0xff).Draw(t, "xor")
		}
	case 1:
		out = append(out[:at], append([]byte{rapid.Byte().Draw(t, "inserted")}, out[at:]...)...)
	case 2:
		if at < len(out) {
			out = append(out[:at], out[at+1:]...)
		}
	case 3:
		out = out[:at]
	case 4:
		out = append(out, rapid.SliceOfN(rapid.Byte(), 1, 4).Draw(t, "appended")...)
	case 5:
		run := rapid.SampledFrom([][]byte{{0x80, 0x00}, {0x85, 0x80, 0x80, 0x80, 0x10}, {0xff, 0xff, 0xff, 0xff, 0x07},
			{0xff, 0xff, 0xff, 0xff, 0x0f}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, {0x00}}).Draw(t, "run")
		if at < len(out) {
			out = append(out[:at], append(append([]byte(nil), run...), out[at+1:]...)...)
		}
	}
	return out
}

// TestDifferentialDecodeMutations: on mutations of valid values, and on bytes drawn at random,
// both decoders give the same answer.
func TestDifferentialDecodeMutations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in []byte
		if rapid.IntRange(0, 9).Draw(t, "random bytes") == 0 {
			in = rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes")
		} else {
			in = wire.Encode(genFrontier().Draw(t, "frontier"))
			for range rapid.IntRange(1, 3).Draw(t, "mutations") {
				in = mutate(t, in)
			}
		}
		agree(t, in)
	})
}

// TestDifferentialHeaders: on header lists with none, one or several parsley.causes headers
// (valid, null, empty or mutated values) among others, the node's extraction and the reference
// agree.
func TestDifferentialHeaders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ref []wire.Header
		var nh []node.Header
		for range rapid.IntRange(0, 4).Draw(t, "headers") {
			key := rapid.SampledFrom([]string{wire.HeaderKey, wire.HeaderKey, "parsley.other", "app"}).Draw(t, "key")
			var value []byte
			switch rapid.IntRange(0, 3).Draw(t, "value kind") {
			case 0: // null
			case 1:
				value = []byte{}
			case 2:
				value = wire.Encode(genFrontier().Draw(t, "frontier"))
			case 3:
				value = mutate(t, wire.Encode(genFrontier().Draw(t, "frontier")))
			}
			ref = append(ref, wire.Header{Key: key, Value: value})
			nh = append(nh, node.Header{Key: key, Value: value})
		}
		causes, _, r := wire.DecodeHeaders(nil, ref)
		got, err := node.ExtractCauses(nh)
		compare(t, ref, causes, r, got, err)
	})
}

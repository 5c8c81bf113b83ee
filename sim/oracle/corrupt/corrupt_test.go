package corrupt_test

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/corrupt"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"pgregory.net/rapid"
)

// genBase draws a frontier of up to 12 causes over a few topics (so groups hold several pairs),
// with partitions and positions at their boundaries as well as small.
func genBase() *rapid.Generator[[]wire.Cause] {
	topics := []wire.TopicID{{15: 1}, {0: 0x01, 15: 0x10}, {0: 0x80}, {0: 0xf1, 1: 0x02}}
	return rapid.Custom(func(t *rapid.T) []wire.Cause {
		seen := map[wire.Channel]bool{}
		var out []wire.Cause
		for range rapid.IntRange(0, 12).Draw(t, "causes") {
			ch := wire.Channel{
				Topic:     rapid.SampledFrom(topics).Draw(t, "topic"),
				Partition: rapid.SampledFrom([]int32{0, 1, 2, 127, 128, 300, 1 << 28, math.MaxInt32}).Draw(t, "partition"),
			}
			pos := rapid.SampledFrom([]int64{0, 1, 5, 41, 1 << 40, wire.PositionMax}).Draw(t, "position")
			if !seen[ch] {
				seen[ch] = true
				out = append(out, wire.Cause{Channel: ch, Position: pos})
			}
		}
		return out
	})
}

// nodeHeaders converts a header list to the node's type.
func nodeHeaders(hs []wire.Header) []node.Header {
	out := make([]node.Header, len(hs))
	for i, h := range hs {
		out[i] = node.Header{Key: h.Key, Value: h.Value}
	}
	return out
}

// TestShapesBreakTheirRule: every undecodable shape's headers are refused by the reference
// decoder with the shape's family; a near miss either is refused or decodes to other causes than
// its base (its bytes differ from the base's one spelling); DropEntry and MovePosition always
// decode. And the node's extraction agrees with the reference on every one.
func TestShapesBreakTheirRule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := genBase().Draw(t, "base")
		shape := rapid.SampledFrom(corrupt.Shapes).Draw(t, "shape")
		src := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		c := corrupt.Make(shape, src, base)
		if c.Shape != shape || len(c.Values) == 0 {
			t.Fatalf("Make(%s) = %+v", shape, c)
		}
		causes, present, r := wire.DecodeHeaders(nil, headersOf(c))
		if !present {
			t.Fatalf("%s: no parsley.causes header in %+v", shape, c)
		}
		if family, ok := shape.Family(); ok {
			if r == nil || r.Family != family {
				t.Fatalf("%s of %v: %x decodes as %v, refusal %v; want family %s", shape, base, c.Values, causes, r, family)
			}
		} else {
			if (shape == corrupt.DropEntry || shape == corrupt.MovePosition) && r != nil {
				t.Fatalf("%s of %v: %x is refused (%v)", shape, base, c.Values, r)
			}
			if r == nil && len(base) > 0 && bytes.Equal(wire.Encode(causes), wire.Encode(base)) {
				t.Fatalf("%s of %v: %x decodes to the base itself", shape, base, c.Values)
			}
		}
		got, err := node.ExtractCauses(nodeHeaders(headersOf(c)))
		switch {
		case r == nil && err != nil:
			t.Fatalf("%s: %x: the reference decodes %v, the node refuses %v", shape, c.Values, causes, err)
		case r != nil && err == nil:
			t.Fatalf("%s: %x: the reference refuses %v, the node decodes %v", shape, c.Values, r, got)
		case r != nil:
			var de *node.DecodeError
			if !errors.As(err, &de) || string(de.Family) != string(r.Family) {
				t.Fatalf("%s: %x: the reference refuses %v, the node %v", shape, c.Values, r, err)
			}
		case r == nil:
			if !bytes.Equal(node.Encode(got), wire.Encode(causes)) {
				t.Fatalf("%s: %x: the reference decodes %v, the node %v", shape, c.Values, causes, got)
			}
		}
	})
}

// TestEveryFamilyIsGenerated: between them the shapes reach every family of SPEC §4.7, and the
// near misses both decode and fail to, over a thousand draws from one golden-like base.
func TestEveryFamilyIsGenerated(t *testing.T) {
	base := []wire.Cause{
		{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01, 15: 0x10}, Partition: 2}, Position: 41},
		{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01, 15: 0x10}, Partition: 5}, Position: 7},
		{Channel: wire.Channel{Topic: wire.TopicID{0: 0xf1, 1: 0x02}, Partition: 0}, Position: 9},
	}
	src := rand.New(rand.NewPCG(1, 2))
	families := map[wire.Family]int{}
	nearDecoded, nearRefused := 0, 0
	for range 1000 {
		c := corrupt.Draw(src, corrupt.Shapes, base)
		_, _, r := wire.DecodeHeaders(nil, headersOf(c))
		if _, ok := c.Shape.Family(); !ok {
			if r == nil {
				nearDecoded++
			} else {
				nearRefused++
			}
		}
		if r != nil {
			families[r.Family]++
		}
	}
	for _, f := range wire.Families {
		if families[f] == 0 {
			t.Errorf("no draw was refused as %s (%v)", f, families)
		}
	}
	if nearDecoded == 0 || nearRefused == 0 {
		t.Errorf("near misses: %d decoded, %d refused; want some of each", nearDecoded, nearRefused)
	}
}

// TestTruncationReachesEveryField: truncations cut inside or before every kind of field, which
// the refusal's offset shows: at the topic count, a topic ID, a partition count, a partition and
// a position of the base below.
func TestTruncationReachesEveryField(t *testing.T) {
	base := []wire.Cause{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01}, Partition: 300}, Position: 7}}
	// 01 | 01 | topic ID at 2 | partition count at 18 | partition (ac 02) at 19 | position at 21
	want := map[int]bool{1: true, 2: true, 18: true, 19: true, 21: true}
	src := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		_, r := wire.Decode(corrupt.Make(corrupt.Truncated, src, base).Values[0])
		delete(want, r.Offset)
	}
	if len(want) > 0 {
		t.Fatalf("no truncation inside the fields at offsets %v", want)
	}
}

// TestRespeltVarintsReachEveryVarintField: non-minimal and over-range spellings land on the topic
// count, a partition count and a partition.
func TestRespeltVarintsReachEveryVarintField(t *testing.T) {
	base := []wire.Cause{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01}, Partition: 3}, Position: 7}}
	for _, shape := range []corrupt.Shape{corrupt.NonMinimalVarint, corrupt.VarintOverflow} {
		want := map[int]bool{1: true, 18: true, 19: true}
		src := rand.New(rand.NewPCG(5, 6))
		for range 200 {
			_, r := wire.Decode(corrupt.Make(shape, src, base).Values[0])
			delete(want, r.Offset)
		}
		if len(want) > 0 {
			t.Errorf("%s: no respelt varint at offsets %v", shape, want)
		}
	}
}

// TestOverflowIncludesTheAlias: the fifth-byte alias of SPEC §4.3 (a five-byte spelling whose
// fifth byte a 32-bit reader shifts away, leaving the value) is among the over-range spellings.
func TestOverflowIncludesTheAlias(t *testing.T) {
	base := []wire.Cause{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01}, Partition: 5}, Position: 7}}
	src := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		v := corrupt.Make(corrupt.VarintOverflow, src, base).Values[0]
		if len(v) < 24 || v[18] != 0x01 { // the partition count 01 unchanged, the partition respelt
			continue
		}
		if spelt := v[19:24]; spelt[4]&0x80 == 0 && readAs32Bits(spelt) == 5 {
			return
		}
	}
	t.Fatal("no five-byte alias of partition 5 in 200 draws")
}

// TestDeterministic: one seed, one corruption; and the representatives depend on the base only.
func TestDeterministic(t *testing.T) {
	base := []wire.Cause{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01}, Partition: 5}, Position: 7}}
	a, b := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
	for range 100 {
		if x, y := corrupt.Draw(a, corrupt.Shapes, base), corrupt.Draw(b, corrupt.Shapes, base); !reflect.DeepEqual(x, y) {
			t.Fatalf("one seed gave %+v and %+v", x, y)
		}
	}
	if x, y := corrupt.Representatives(base), corrupt.Representatives(base); !reflect.DeepEqual(x, y) {
		t.Fatalf("representatives %+v and %+v", x, y)
	}
}

// TestRepresentatives: for any base (the empty one included) the representatives are as many,
// each is refused with its shape's family (or is a near miss), every shape is among them, and
// the field-level shapes reach every kind of field: truncations at the topic count, a topic ID, a
// partition count, a partition and a position, respelt varints at the topic count, a partition
// count and a partition, among them the fifth-byte alias (a 32-bit reader reads the value).
func TestRepresentatives(t *testing.T) {
	n := len(corrupt.Representatives(nil))
	rapid.Check(t, func(t *rapid.T) {
		base := genBase().Draw(t, "base")
		reps := corrupt.Representatives(base)
		if len(reps) != n {
			t.Fatalf("%d representatives of %v, %d of the empty base", len(reps), base, n)
		}
		shapes := map[corrupt.Shape]bool{}
		at := map[corrupt.Shape]map[int]bool{}
		for _, c := range reps {
			shapes[c.Shape] = true
			_, _, r := wire.DecodeHeaders(nil, headersOf(c))
			f, ok := c.Shape.Family()
			if ok && (r == nil || r.Family != f) {
				t.Fatalf("%s representative %x: %v, want %s", c.Shape, c.Values, r, f)
			}
			if r != nil {
				if at[c.Shape] == nil {
					at[c.Shape] = map[int]bool{}
				}
				at[c.Shape][r.Offset] = true
			}
		}
		if len(shapes) != len(corrupt.Shapes) {
			t.Fatalf("representatives of %d shapes, want %d", len(shapes), len(corrupt.Shapes))
		}
		if len(base) == 0 {
			return
		}
		// The first group of the canonical value: version, topic count, topic ID at 2, its
		// partition count at 18, its first partition at 19 and that partition's position after it.
		first := base[0]
		for _, c := range base {
			if wire.CompareCauses(c, first) < 0 {
				first = c
			}
		}
		partLen := len(wire.Encode([]wire.Cause{first})) - 27
		want := map[corrupt.Shape][]int{
			corrupt.Truncated:        {1, 2, 18, 19, 19 + partLen},
			corrupt.NonMinimalVarint: {1, 18, 19},
			corrupt.VarintOverflow:   {1, 18, 19},
		}
		if partLen == 5 {
			want[corrupt.NonMinimalVarint] = []int{1, 18} // a five-byte partition cannot be padded
		}
		for s, offsets := range want {
			for _, o := range offsets {
				if !at[s][o] {
					t.Fatalf("%s: no representative refused at byte %d (%v) for base %v", s, o, at[s], base)
				}
			}
		}
	})
	base := []wire.Cause{{Channel: wire.Channel{Topic: wire.TopicID{0: 0x01}, Partition: 5}, Position: 7}}
	for _, c := range corrupt.Representatives(base) {
		if c.Shape != corrupt.VarintOverflow || len(c.Values[0]) != 32 || c.Values[0][18] != 0x01 {
			continue
		}
		if alias := readAs32Bits(c.Values[0][19:24]); alias == 5 && c.Values[0][23]&0x80 == 0 {
			return
		}
	}
	t.Fatal("no representative spells partition 5 as its five-byte alias")
}

// readAs32Bits reads a varint as a 32-bit reader that shifts surplus bits away would.
func readAs32Bits(b []byte) uint32 {
	var v uint32
	for i, c := range b {
		v |= uint32(c&0x7f) << (7 * i)
	}
	return v
}

// TestEmptyBaseIsGivenACause: from the empty frontier every shape still corrupts something.
func TestEmptyBaseIsGivenACause(t *testing.T) {
	src := rand.New(rand.NewPCG(10, 11))
	for _, s := range corrupt.Shapes {
		c := corrupt.Make(s, src, nil)
		_, _, r := wire.DecodeHeaders(nil, headersOf(c))
		if f, ok := s.Family(); ok && (r == nil || r.Family != f) {
			t.Errorf("%s from the empty frontier: %x refused %v", s, c.Values, r)
		}
	}
}

// TestImportsNoNode: the generator shares no code with the node it feeds.
func TestImportsNoNode(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !slices.Contains([]string{"github.com/parsleysim/parsleysim/sim/oracle/wire"}, path) {
				t.Errorf("%s imports %s: the generator may import only the standard library and the reference codec", f, path)
			}
		}
	}
}

// headersOf returns corruption c as a record's header list.
func headersOf(c corrupt.Corruption) []wire.Header {
	out := make([]wire.Header, len(c.Values))
	for i, v := range c.Values {
		out[i] = wire.Header{Key: wire.HeaderKey, Value: v}
	}
	return out
}

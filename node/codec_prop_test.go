package node

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// genTopic draws a non-zero topic ID, often from a small pool (so frontiers share topics and
// IDs with the sign bit set appear), otherwise any 16 bytes.
func genTopic() *rapid.Generator[TopicID] {
	pool := []TopicID{{15: 1}, {0: 0x01, 15: 0x10}, {0: 0x7f, 15: 0xff}, {0: 0x80}, {0: 0xf1, 1: 0x02}, {0: 0xff, 8: 0xff}}
	return rapid.Custom(func(t *rapid.T) TopicID {
		if rapid.Bool().Draw(t, "pooled") {
			return rapid.SampledFrom(pool).Draw(t, "topic")
		}
		id := TopicID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "topic bytes"))
		if id.IsZero() {
			id[15] = 1
		}
		return id
	})
}

// genChannel draws a valid channel with partitions at the varint boundaries as well as anywhere.
func genChannel() *rapid.Generator[Channel] {
	return rapid.Custom(func(t *rapid.T) Channel {
		part := rapid.OneOf(
			rapid.Int32Range(0, 3),
			rapid.SampledFrom([]int32{127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<31 - 1}),
			rapid.Int32Range(0, 1<<31-1),
		).Draw(t, "partition")
		return Channel{genTopic().Draw(t, "topic"), Partition(part)}
	})
}

// genPosition draws a valid position, including 0 and 2^63−2.
func genPosition() *rapid.Generator[Offset] {
	return rapid.Custom(func(t *rapid.T) Offset {
		return Offset(rapid.OneOf(
			rapid.Int64Range(0, 10),
			rapid.Just(int64(MaxOffset-1)),
			rapid.Int64Range(0, int64(MaxOffset-1)),
		).Draw(t, "position"))
	})
}

// genFrontier draws any frontier of up to 40 entries.
func genFrontier() *rapid.Generator[Causes] {
	return rapid.Custom(func(t *rapid.T) Causes {
		pairs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Cause {
			return Cause{genChannel().Draw(t, "channel"), genPosition().Draw(t, "position")}
		}), 0, 40).Draw(t, "pairs")
		return CausesOf(pairs...)
	})
}

// TestPropDecodeEncodeIsIdentity: decode∘encode is the identity on any frontier, and the
// encoding's length is EncodedLen.
func TestPropDecodeEncodeIsIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genFrontier().Draw(t, "frontier")
		enc := Encode(c)
		if len(enc) != EncodedLen(c) {
			t.Fatalf("len(Encode) = %d, EncodedLen = %d", len(enc), EncodedLen(c))
		}
		got, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(%v)) = %v", c, err)
		}
		if !got.Equal(c) {
			t.Fatalf("Decode(Encode(%v)) = %v", c, got)
		}
	})
}

// TestPropEncodeDecodeIsIdentity: encode∘decode is the identity on any accepted input. Inputs are
// valid encodings with a few bytes changed, dropped or added, so many are near misses; any that
// decodes must be the canonical spelling of what it decodes to.
func TestPropEncodeDecodeIsIdentity(t *testing.T) {
	accepted := 0
	rapid.Check(t, func(t *rapid.T) {
		in := mutate(t, Encode(genFrontier().Draw(t, "frontier")))
		c, err := Decode(in)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(in) {
				t.Fatalf("Decode(%x): malformed error %v", in, err)
			}
			return
		}
		accepted++
		if re := Encode(c); !bytes.Equal(re, in) {
			t.Fatalf("Decode(%x) accepted %v, which re-encodes as %x", in, c, re)
		}
	})
	if accepted == 0 {
		t.Fatal("no mutated input was accepted: the property checked nothing")
	}
}

// mutate applies up to three random edits to b: flip, set, drop or insert a byte.
func mutate(t *rapid.T, b []byte) []byte {
	out := append([]byte(nil), b...)
	edits := rapid.IntRange(0, 3).Draw(t, "edits")
	for range edits {
		if len(out) == 0 {
			break
		}
		i := rapid.IntRange(0, len(out)-1).Draw(t, "at")
		switch rapid.IntRange(0, 3).Draw(t, "edit") {
		case 0:
			out[i] ^= 1 << rapid.IntRange(0, 7).Draw(t, "bit")
		case 1:
			out[i] = rapid.SampledFrom([]byte{0x00, 0x01, 0x7f, 0x80, 0xff}).Draw(t, "value")
		case 2:
			out = append(out[:i], out[i+1:]...)
		case 3:
			out = append(out[:i], append([]byte{rapid.Byte().Draw(t, "inserted")}, out[i:]...)...)
		}
	}
	return out
}

// TestPropDistinctFrontiersHaveDistinctBytes: two different frontiers never share an encoding.
// The second frontier is usually a small change of the first, where a collision would hide.
func TestPropDistinctFrontiersHaveDistinctBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genFrontier().Draw(t, "a")
		b := a.Clone()
		switch op := rapid.IntRange(0, 3).Draw(t, "change"); {
		case op == 0 || a.IsEmpty():
			b.Merge(genChannel().Draw(t, "added channel"), genPosition().Draw(t, "added position"))
		case op == 1:
			b.Remove(a.Pairs()[rapid.IntRange(0, a.Len()-1).Draw(t, "removed")].Channel)
		case op == 2:
			i := rapid.IntRange(0, a.Len()-1).Draw(t, "changed")
			b.pairs[i].Position = genPosition().Draw(t, "new position")
		default:
			b = genFrontier().Draw(t, "b")
		}
		if a.Equal(b) != bytes.Equal(Encode(a), Encode(b)) {
			t.Fatalf("a=%v b=%v: Equal=%v but encodings %x / %x", a, b, a.Equal(b), Encode(a), Encode(b))
		}
	})
}

// TestPropMergeFromIsPointwiseMax checks MergeFrom (with and without insertions, in place or
// not) against Merge entry by entry.
func TestPropMergeFromIsPointwiseMax(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genFrontier().Draw(t, "a"), genFrontier().Draw(t, "b")
		if rapid.Bool().Draw(t, "b within a's channels") {
			b = Causes{}
			for _, p := range a.Pairs() {
				if rapid.Bool().Draw(t, "keep") {
					b.Merge(p.Channel, genPosition().Draw(t, "position"))
				}
			}
		}
		want := a.Clone()
		wantChanged := false
		for _, p := range b.Pairs() {
			wantChanged = want.Merge(p.Channel, p.Position) || wantChanged
		}
		// got has spare capacity for none, some or all of b's entries: MergeFrom inserts in
		// place when the union fits.
		spare := rapid.IntRange(0, b.Len()+1).Draw(t, "spare capacity")
		got := a.CloneInto(make([]Cause, 0, a.Len()+spare))
		bWas := b.Clone()
		if changed := got.MergeFrom(b); !got.Equal(want) || changed != wantChanged {
			t.Fatalf("%v.MergeFrom(%v) = %v (changed %v), want %v (changed %v)", a, b, got, changed, want, wantChanged)
		}
		if !got.Covers(a) || !got.Covers(b) {
			t.Fatalf("merge %v does not cover its inputs", got)
		}
		if !b.Equal(bWas) {
			t.Fatalf("MergeFrom changed its argument: %v, was %v", b, bWas)
		}
	})
}

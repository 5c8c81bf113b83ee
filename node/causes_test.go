package node

import (
	"slices"
	"testing"
)

func TestCausesOfKeepsMaxAndSorts(t *testing.T) {
	a0, a1, b0 := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0)
	got := CausesOf(Cause{b0, 3}, Cause{a1, 9}, Cause{a0, 5}, Cause{b0, 7}, Cause{a1, 2})
	want := []Cause{{a0, 5}, {a1, 9}, {b0, 7}}
	if !slices.Equal(got.Pairs(), want) {
		t.Fatalf("CausesOf = %v, want %v", got, want)
	}
	if got.Len() != 3 || got.IsEmpty() || got.Pairs()[1] != want[1] {
		t.Fatalf("Len/IsEmpty/At disagree with %v", got)
	}
	if !(Causes{}).IsEmpty() || !CausesOf().IsEmpty() {
		t.Fatal("empty frontier not empty")
	}
}

func TestCausesOrderIsUnsignedBytesThenPartition(t *testing.T) {
	var low, high TopicID
	low[0], high[0] = 0x01, 0xf1 // 0xf1 is negative as int8: a signed order would put it first
	c := CausesOf(Cause{Channel{high, 0}, 1}, Cause{Channel{low, 300}, 1}, Cause{Channel{low, 2}, 1})
	want := []Channel{{low, 2}, {low, 300}, {high, 0}}
	for i, p := range c.Pairs() {
		if p.Channel != want[i] {
			t.Fatalf("entry %d = %v, want %v (whole: %v)", i, p.Channel, want[i], c)
		}
	}
}

func TestCausesMergeAndLookup(t *testing.T) {
	var c Causes
	ch := fxChannel(2, 4)
	if _, ok := c.Lookup(ch); ok {
		t.Fatal("Lookup on empty frontier found something")
	}
	steps := []struct {
		pos         Offset
		wantChanged bool
		wantPos     Offset
	}{
		{10, true, 10}, {5, false, 10}, {10, false, 10}, {11, true, 11}, {0, false, 11},
	}
	for _, s := range steps {
		if got := c.Merge(ch, s.pos); got != s.wantChanged {
			t.Fatalf("Merge(%d) changed = %v, want %v", s.pos, got, s.wantChanged)
		}
		if p, ok := c.Lookup(ch); !ok || p != s.wantPos {
			t.Fatalf("after Merge(%d): Lookup = %d,%v, want %d", s.pos, p, ok, s.wantPos)
		}
	}
	if _, ok := c.Lookup(fxChannel(2, 5)); ok {
		t.Fatal("Lookup found a channel never merged")
	}
}

func TestCausesMergePanicsOnInvalid(t *testing.T) {
	cases := []Cause{
		{Channel{TopicID{}, 0}, 1},
		{fxChannel(0, -1), 1},
		{fxChannel(0, 0), -1},
		{fxChannel(0, 0), MaxOffset},
	}
	for _, bad := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Merge(%v, %d) did not panic", bad.Channel, bad.Position)
				}
			}()
			var c Causes
			c.Merge(bad.Channel, bad.Position)
		}()
	}
}

func TestCausesMergeFrom(t *testing.T) {
	a, b, c, d := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0), fxChannel(2, 0)
	cases := []struct {
		name        string
		into, from  Causes
		want        Causes
		wantChanged bool
	}{
		{"empty other", CausesOf(Cause{a, 1}), Causes{}, CausesOf(Cause{a, 1}), false},
		{"into empty", Causes{}, CausesOf(Cause{a, 1}), CausesOf(Cause{a, 1}), true},
		{"fast path, covered", CausesOf(Cause{a, 5}, Cause{b, 5}), CausesOf(Cause{b, 4}), CausesOf(Cause{a, 5}, Cause{b, 5}), false},
		{"fast path, raised", CausesOf(Cause{a, 5}, Cause{b, 5}), CausesOf(Cause{a, 9}, Cause{b, 5}), CausesOf(Cause{a, 9}, Cause{b, 5}), true},
		{"slow path, new channel last", CausesOf(Cause{a, 5}), CausesOf(Cause{a, 1}, Cause{d, 2}), CausesOf(Cause{a, 5}, Cause{d, 2}), true},
		{"slow path after a raise", CausesOf(Cause{a, 5}, Cause{d, 1}), CausesOf(Cause{a, 8}, Cause{c, 3}, Cause{d, 0}),
			CausesOf(Cause{a, 8}, Cause{c, 3}, Cause{d, 1}), true},
		{"slow path, interleaved", CausesOf(Cause{b, 5}, Cause{d, 1}), CausesOf(Cause{a, 1}, Cause{c, 7}, Cause{d, 4}),
			CausesOf(Cause{a, 1}, Cause{b, 5}, Cause{c, 7}, Cause{d, 4}), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from := tc.from.Clone()
			got := tc.into.Clone()
			if changed := got.MergeFrom(tc.from); changed != tc.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			if !got.Equal(tc.want) {
				t.Errorf("MergeFrom = %v, want %v", got, tc.want)
			}
			if !tc.from.Equal(from) {
				t.Errorf("MergeFrom modified its argument: %v", tc.from)
			}
			if !got.Covers(tc.into) || !got.Covers(tc.from) {
				t.Errorf("%v does not cover both inputs", got)
			}
		})
	}
}

// TestCausesMergeFromInPlace: MergeFrom inserts the channels c lacks into c's own storage when
// the union fits its capacity, and builds the union in new storage when the argument shares c's
// array, which it must leave unchanged.
func TestCausesMergeFromInPlace(t *testing.T) {
	a, b, c, d := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0), fxChannel(2, 0)
	got := CausesOf(Cause{b, 5}, Cause{d, 1}).CloneInto(make([]Cause, 0, 4))
	storage := &got.pairs[:1][0]
	if !got.MergeFrom(CausesOf(Cause{a, 1}, Cause{c, 7}, Cause{d, 4})) {
		t.Error("MergeFrom with new channels reported no change")
	}
	if want := CausesOf(Cause{a, 1}, Cause{b, 5}, Cause{c, 7}, Cause{d, 4}); !got.Equal(want) {
		t.Errorf("in place: MergeFrom = %v, want %v", got, want)
	}
	if &got.pairs[0] != storage {
		t.Error("MergeFrom did not merge in place although the union fits")
	}

	// into is the middle entry of from's array, with capacity to its end: merging from the back
	// in place would write over from's last entries.
	block := []Cause{{a, 1}, {b, 2}, {c, 3}, {Channel: d}}
	from, into := Causes{pairs: block[:3]}, Causes{pairs: block[1:2]}
	fromWas := from.Clone()
	into.MergeFrom(from)
	if want := CausesOf(Cause{a, 1}, Cause{b, 2}, Cause{c, 3}); !into.Equal(want) {
		t.Errorf("aliased: MergeFrom = %v, want %v", into, want)
	}
	if !from.Equal(fromWas) {
		t.Errorf("aliased: MergeFrom changed its argument to %v, was %v", from, fromWas)
	}
}

func TestCausesCovers(t *testing.T) {
	a, b := fxChannel(0, 0), fxChannel(1, 0)
	big := CausesOf(Cause{a, 5}, Cause{b, 5})
	cases := []struct {
		c, other Causes
		want     bool
	}{
		{big, Causes{}, true},
		{Causes{}, Causes{}, true},
		{Causes{}, CausesOf(Cause{a, 0}), false},
		{big, CausesOf(Cause{a, 5}), true},
		{big, CausesOf(Cause{a, 6}), false},
		{big, CausesOf(Cause{a, 1}, Cause{b, 5}), true},
		{CausesOf(Cause{a, 5}), CausesOf(Cause{a, 1}, Cause{b, 0}), false},
	}
	for _, tc := range cases {
		if got := tc.c.Covers(tc.other); got != tc.want {
			t.Errorf("%v.Covers(%v) = %v, want %v", tc.c, tc.other, got, tc.want)
		}
	}
}

func TestCausesRemoveCloneReset(t *testing.T) {
	a, b, c := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0)
	f := CausesOf(Cause{a, 1}, Cause{b, 2}, Cause{c, 3})
	g := f.Clone()
	if !f.Remove(b) || f.Remove(b) {
		t.Fatal("Remove reported wrongly")
	}
	if want := CausesOf(Cause{a, 1}, Cause{c, 3}); !f.Equal(want) {
		t.Fatalf("after Remove: %v, want %v", f, want)
	}
	if g.Len() != 3 {
		t.Fatalf("Clone shares storage: %v", g)
	}
	g.Merge(a, 100)
	if p, _ := f.Lookup(a); p != 1 {
		t.Fatal("changing a clone changed the original")
	}
	g.Reset()
	if !g.IsEmpty() || !g.Equal(Causes{}) {
		t.Fatalf("Reset left %v", g)
	}
	if f.Equal(g) || !(Causes{}).Equal(CausesOf()) {
		t.Fatal("Equal misreports")
	}
}

func TestCausesString(t *testing.T) {
	f := CausesOf(Cause{fxChannel(0, 3), 7})
	if got, want := f.String(), "{10000000-0000-0000-0000-000000000001/3@7}"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if got := (Causes{}).String(); got != "{}" {
		t.Fatalf("empty String = %q", got)
	}
}

// TestCausesCloneInto clones into room carved from one block, changes the copy (raising,
// inserting within the room and beyond it) and checks the original, the block's neighbouring
// room and the copy: it fails if a copy shares the original's storage, writes past its room, or
// does not use the room it was given.
func TestCausesCloneInto(t *testing.T) {
	a, b, c := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0)
	f := CausesOf(Cause{a, 1}, Cause{c, 3})
	block := make([]Cause, 8)
	sentinel := Cause{fxChannel(2, 0), 77}
	block[3] = sentinel // the next room's first entry
	g := f.CloneInto(block[0:0:3])
	if !g.Equal(f) || &g.Pairs()[0] != &block[0] {
		t.Fatalf("copy %v is not f %v in the room given", g, f)
	}
	g.Merge(a, 9)
	g.Merge(b, 5) // the third entry: fills the room
	if p, _ := f.Lookup(a); p != 1 || f.Len() != 2 {
		t.Fatalf("changing the copy changed the original: %v", f)
	}
	g.Merge(fxChannel(3, 0), 4) // a fourth entry: beyond the room
	if block[3] != sentinel {
		t.Fatalf("the copy wrote past its room: %v", block[3])
	}
	if want := CausesOf(Cause{a, 9}, Cause{b, 5}, Cause{c, 3}, Cause{fxChannel(3, 0), 4}); !g.Equal(want) {
		t.Fatalf("copy %v, want %v", g, want)
	}
	if h := f.CloneInto(block[4:4:5]); !h.Equal(f) || &h.Pairs()[0] == &block[4] {
		t.Fatalf("a room too small: %v, or used anyway", h)
	}
}

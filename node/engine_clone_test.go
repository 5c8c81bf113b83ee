package node

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// cloneScript drives an engine through receipts that hold, a commit, deliveries and more holds,
// returning a transcript of everything observable: outcomes, deliveries, the delta, snapshot.
func cloneScript(t *testing.T, e *Engine, a, b Channel, from Offset) []string {
	t.Helper()
	var out []string
	note := func(v ...any) { out = append(out, fmt.Sprint(v...)) }
	note(etFeed(t, e, a, from, etRec("x", etCause(b, from))))   // held: b@from not yet delivered
	note(etFeed(t, e, a, from+1, etRec("y", etCause(b, from)))) // held behind it
	d := e.Commit()
	note("delta ", d.NewHolds, d.Fed, d.Frontier)
	note(etFeed(t, e, b, from, etRec("z")))
	note(etDrain(e))
	d = e.Commit()
	note("delta ", d.RemovedHolds, d.Fed, d.Frontier, d.Past)
	note(e.Frontier(), e.DeliveredPast(), e.Counters())
	note(e.Snapshot().fed, e.Snapshot().HeldCount())
	return out
}

// TestCloneContinuesLikeTheOriginal checks that a clone taken mid-execution (with holds, a dirty
// step and committed holds) behaves exactly as the original does from there, and that the two
// are independent: running the original further leaves the clone's state unchanged.
func TestCloneContinuesLikeTheOriginal(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	e := etStart(t, &State{}, etInit(a, b), Options{})
	first := cloneScript(t, e, a, b, 0)
	etFeed(t, e, a, 2, etRec("w", etCause(b, 1))) // held, uncommitted
	before := e.Snapshot()
	c := e.Clone()
	got := cloneScript(t, e, a, b, 3)
	if !c.Snapshot().Equal(before) {
		t.Fatalf("running the original changed the clone's state")
	}
	want := cloneScript(t, c, a, b, 3)
	if !slices.Equal(got, want) {
		t.Fatalf("clone diverged from the original:\n got %q\nwant %q", want, got)
	}
	if slices.Equal(first, got) {
		t.Fatalf("the script observed nothing: %q", got)
	}
}

// TestCloneCoversEngineFields fails when a field is added to Engine or chanState, so Clone is
// revisited: a slice it shares by mistake makes two clones write into one another.
func TestCloneCoversEngineFields(t *testing.T) {
	known := map[string]int{"Engine": 26, "chanState": 17}
	for _, v := range []any{Engine{}, chanState{}} {
		typ := reflect.TypeOf(v)
		if typ.NumField() != known[typ.Name()] {
			t.Errorf("%s has %d fields, Clone knew %d: check engine_clone.go copies the new ones, then update this count",
				typ.Name(), typ.NumField(), known[typ.Name()])
		}
	}
}

// blockScript feeds depth held records onto each of chans in turn (each waits for a cause on the
// never-fed channel gate), so every channel's buffer grows past the spare room Clone and Start
// give it, then delivers nothing and commits; it returns the engine's snapshot.
func blockScript(t *testing.T, e *Engine, gate Channel, chans []Channel, from Offset, depth int) *State {
	t.Helper()
	for k := range Offset(depth) {
		for _, ch := range chans {
			etFeed(t, e, ch, from+k, etRec(fmt.Sprintf("%v@%d", ch, from+k), etCause(gate, 0)))
		}
	}
	if got := etDrain(e); len(got) != 0 {
		t.Fatalf("delivered %v, want nothing (every record waits for the gate)", got)
	}
	e.Commit()
	return e.Snapshot()
}

// TestCloneAndStartBuffersAreIndependent checks that the held buffers Clone and Start carve from
// one block stay apart: growing every channel's buffer past its spare room on one engine leaves
// a neighbouring channel's messages, and the other engine, as they were.
func TestCloneAndStartBuffersAreIndependent(t *testing.T) {
	a, b, c, gate := etCh(1, 0), etCh(2, 0), etCh(3, 0), etCh(9, 0)
	init := etInit(a, b, c, gate)
	e := etStart(t, &State{}, init, Options{})
	blockScript(t, e, gate, []Channel{a, c}, 0, 2) // holds on a and c, none on b
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	st = e.Snapshot()
	if st.HeldCount() != 4 {
		t.Fatalf("fixture holds %d messages, want 4", st.HeldCount())
	}
	for _, tc := range []struct {
		name string
		make func() (*Engine, *Engine) // two engines in the same state
	}{
		{"clone", func() (*Engine, *Engine) { return e, e.Clone() }},
		{"start", func() (*Engine, *Engine) {
			return etStart(t, st.Clone(), init, Options{}), etStart(t, st.Clone(), init, Options{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := tc.make()
			before := y.AppendCanonical(nil, rawEncoder{})
			gotX := blockScript(t, x, gate, []Channel{b, a, c}, 2, 5)
			if string(before) != string(y.AppendCanonical(nil, rawEncoder{})) {
				t.Fatal("growing one engine's buffers changed the other engine")
			}
			gotY := blockScript(t, y, gate, []Channel{b, a, c}, 2, 5)
			if !gotX.Equal(gotY) {
				t.Fatalf("the two engines diverged: %d and %d holds, fedUpTo %v and %v", gotX.HeldCount(), gotY.HeldCount(), gotX.FedPositions(), gotY.FedPositions())
			}
			for _, ch := range []Channel{a, b, c} {
				held := gotX.Held(ch)
				for k, m := range held {
					if want := fmt.Sprintf("%v@%d", ch, m.Position); string(m.Record.Value) != want || m.Channel != ch {
						t.Fatalf("hold %d of %v is %v@%d %q: a neighbouring buffer wrote into it", k, ch, m.Channel, m.Position, m.Record.Value)
					}
				}
				if len(held) < 5 {
					t.Fatalf("%v holds %d messages, want at least 5", ch, len(held))
				}
			}
		})
	}
}

// rawEncoder writes channels and topics as their own bytes (no renaming), for tests that compare
// canonical encodings.
type rawEncoder struct{}

func (rawEncoder) AppendChannel(b []byte, ch Channel) []byte {
	b = append(b, ch.Topic[:]...)
	return binary.BigEndian.AppendUint32(b, uint32(ch.Partition))
}

func (rawEncoder) AppendTopic(b []byte, id TopicID) []byte { return append(b, id[:]...) }

// TestCloneIntoARecycledEngine checks that CloneInto over a dead engine that had holds, frontiers
// and pending changes of its own (storage it reuses) yields an engine that continues exactly as a
// fresh Clone does, and that running the recycled clone leaves the original unchanged.
func TestCloneIntoARecycledEngine(t *testing.T) {
	a, b, gate := etCh(1, 0), etCh(2, 0), etCh(9, 0)
	dead := etStart(t, &State{}, etInit(a, b, gate), Options{})
	blockScript(t, dead, gate, []Channel{a, b}, 0, 6) // a large holds block and frontier
	dead = dead.Clone()                               // its blocks are now CloneInto's to reuse
	etFeed(t, dead, a, 6, etRec("pending", etCause(gate, 0)))

	e := etStart(t, &State{}, etInit(a, b), Options{})
	cloneScript(t, e, a, b, 0)
	etFeed(t, e, a, 2, etRec("w", etCause(b, 1))) // held, uncommitted
	before := e.AppendCanonical(nil, rawEncoder{})
	fresh := e.Clone()
	recycled := e.CloneInto(dead)
	if recycled != dead {
		t.Fatal("CloneInto did not return its destination")
	}
	if got, want := recycled.AppendCanonical(nil, rawEncoder{}), fresh.AppendCanonical(nil, rawEncoder{}); string(got) != string(want) {
		t.Fatalf("recycled clone differs from a fresh clone:\n got %x\nwant %x", got, want)
	}
	got, want := cloneScript(t, recycled, a, b, 3), cloneScript(t, fresh, a, b, 3)
	if !slices.Equal(got, want) {
		t.Fatalf("recycled clone diverged from a fresh clone:\n got %q\nwant %q", got, want)
	}
	if string(before) != string(e.AppendCanonical(nil, rawEncoder{})) {
		t.Fatal("running the recycled clone changed the original")
	}
}

// TestStateCloneIntoARecycledState checks that State.CloneInto over a dead state with lists of
// its own yields a state equal to the original, and that applying a delta to it leaves the
// original unchanged.
func TestStateCloneIntoARecycledState(t *testing.T) {
	a, b, gate := etCh(1, 0), etCh(2, 0), etCh(9, 0)
	e := etStart(t, &State{}, etInit(a, b, gate), Options{})
	big := blockScript(t, e, gate, []Channel{a, b}, 0, 3)
	dead := big.Clone()
	src := etStart(t, &State{}, etInit(a), Options{}).Snapshot()
	c := src.CloneInto(dead)
	if c != dead || !c.Equal(src) || c.Equal(big) {
		t.Fatalf("CloneInto gave %p (dest %p), equal to source %v", c, dead, c.Equal(src))
	}
	orig := src.Clone()
	if err := c.Apply(Delta{Fed: []FedPosition{{Channel: a, FedUpTo: 41}}}); err != nil {
		t.Fatal(err)
	}
	if !src.Equal(orig) || c.Equal(src) {
		t.Fatal("applying a delta to the recycled clone changed the original, or nothing")
	}
}

// TestStartIntoARecycledEngine checks that StartInto over a dead engine with a large frontier
// block, many channels, holds and pending changes of its own yields an engine that starts and
// continues exactly as one from Start, from a committed state with holds and frontiers, and that
// running it leaves the committed state unchanged. It also checks a start over a dead engine with
// fewer channels than the new one (its channel array too small to reuse).
func TestStartIntoARecycledEngine(t *testing.T) {
	a, b, gate := etCh(1, 0), etCh(2, 0), etCh(9, 0)
	src := etStart(t, &State{}, etInit(a, b), Options{})
	cloneScript(t, src, a, b, 0)
	etFeed(t, src, a, 2, etRec("w", etCause(b, 1))) // held
	src.Commit()
	st := src.Snapshot()
	before := st.AppendCanonical(nil, rawEncoder{})
	for _, deadChans := range [][]Channel{{a, b, gate, etCh(3, 0), etCh(4, 0)}, {a}} {
		dead := etStart(t, &State{}, etInit(deadChans...), Options{})
		if len(deadChans) > 2 {
			blockScript(t, dead, gate, deadChans[:2], 0, 6)
		}
		dead = dead.Clone() // its blocks are now StartInto's to reuse
		etFeed(t, dead, a, 6, etRec("pending", etCause(a, 5)))

		fresh := etStart(t, st, etInit(a, b), Options{})
		recycled, err := StartInto(dead, st, etInit(a, b), Options{})
		if err != nil || recycled != dead {
			t.Fatalf("StartInto: %v, or it did not return its destination", err)
		}
		if got, want := recycled.AppendCanonical(nil, rawEncoder{}), fresh.AppendCanonical(nil, rawEncoder{}); string(got) != string(want) {
			t.Fatalf("%d dead channels: recycled start differs from a fresh one:\n got %x\nwant %x", len(deadChans), got, want)
		}
		got, want := cloneScript(t, recycled, a, b, 3), cloneScript(t, fresh, a, b, 3)
		if !slices.Equal(got, want) {
			t.Fatalf("%d dead channels: recycled start diverged from a fresh one:\n got %q\nwant %q", len(deadChans), got, want)
		}
		if string(before) != string(st.AppendCanonical(nil, rawEncoder{})) {
			t.Fatal("running the recycled start changed the committed state")
		}
	}
}

// TestStateCloneIntoReusesTheFrontierBlock checks that State.CloneInto carves the frontier and
// delivered past from the dead state's block, and that applying a delta to the clone (which
// changes positions in place) leaves the source unchanged.
func TestStateCloneIntoReusesTheFrontierBlock(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	e := etStart(t, &State{}, etInit(a, b), Options{})
	cloneScript(t, e, a, b, 0)
	src := e.Snapshot()
	if src.Frontier().Len() == 0 || src.DeliveredPast().Len() == 0 {
		t.Fatalf("fixture: frontier %v, past %v should not be empty", src.Frontier(), src.DeliveredPast())
	}
	dead := src.Clone() // its frontier and past are carved from one block
	block := &dead.causeBlock[0]
	orig := src.Clone()
	c := src.CloneInto(dead)
	if !c.Equal(src) || &c.frontier.pairs[0] != block {
		t.Fatalf("CloneInto: equal %v, frontier reuses the dead block %v", c.Equal(src), &c.frontier.pairs[0] == block)
	}
	if err := c.Apply(Delta{Frontier: []Cause{{a, 40}, {b, 40}}, Past: []Cause{{a, 40}, {b, 40}}}); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Frontier().Lookup(b); p != 40 || !src.Equal(orig) {
		t.Fatalf("clone's frontier b@%d (want 40); source unchanged: %v", p, src.Equal(orig))
	}
}

// TestCloneIntoCarvesRoomWithoutHolds checks that a clone of an engine holding nothing of its own,
// into a dead engine with a large holds block, gets heldSpare room per channel from that block,
// and that filling each channel past it keeps the channels apart and behaves as a fresh clone.
func TestCloneIntoCarvesRoomWithoutHolds(t *testing.T) {
	a, b, gate := etCh(1, 0), etCh(2, 0), etCh(9, 0)
	dead := etStart(t, &State{}, etInit(a, b, gate), Options{})
	blockScript(t, dead, gate, []Channel{a, b}, 0, 6)
	dead = dead.Clone() // its holds block is now CloneInto's to reuse
	e := etStart(t, &State{}, etInit(a, b, gate), Options{})
	fresh, recycled := e.Clone(), e.CloneInto(dead)
	for i := range recycled.chans {
		if got := cap(recycled.chans[i].held.own.items); got != heldSpare {
			t.Fatalf("channel %d: own room %d, want %d carved from the dead block", i, got, heldSpare)
		}
	}
	var out [2][]string
	for k, c := range []*Engine{fresh, recycled} {
		for pos := range Offset(3) {
			etFeed(t, c, a, pos, etRec("a", etCause(gate, pos)))
			etFeed(t, c, b, pos, etRec("b", etCause(gate, pos)))
		}
		etFeed(t, c, gate, 0, etRec("g"))
		out[k] = etDrain(c)
		out[k] = append(out[k], fmt.Sprint(c.Commit().NewHolds))
	}
	if len(out[0]) < 3 || !slices.Equal(out[0], out[1]) {
		t.Fatalf("recycled clone diverged from a fresh clone:\n got %q\nwant %q", out[1], out[0])
	}
	if e.HeldCount() != 0 {
		t.Fatal("running the clones changed the original")
	}
}

// TestStartCarvesFrontierRoom checks that a start from a state with a frontier and a delivered
// past gives each startCauseRoom spare entries, and that the channels the frontier gains, within
// its room and past it, leave the past and the committed state unchanged.
func TestStartCarvesFrontierRoom(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	e := etStart(t, &State{}, etInit(a, b), Options{})
	cloneScript(t, e, a, b, 0)
	st := e.Snapshot()
	before := st.AppendCanonical(nil, rawEncoder{})
	s := etStart(t, st, etInit(a, b), Options{})
	for _, c := range []Causes{s.frontier, s.past} {
		if c.Len() == 0 || cap(c.pairs) != c.Len()+startCauseRoom {
			t.Fatalf("%v has capacity %d, want %d spare", c, cap(c.pairs), startCauseRoom)
		}
	}
	past := s.past.Clone()
	for i := range startCauseRoom + 1 {
		s.frontier.Merge(etCh(byte(10+i), 0), 1)
	}
	if !s.past.Equal(past) || string(before) != string(st.AppendCanonical(nil, rawEncoder{})) {
		t.Fatalf("the frontier's new channels changed the past (%v, was %v) or the state", s.past, past)
	}
}

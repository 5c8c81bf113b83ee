package node

import (
	"fmt"
	"testing"
)

// etStateWith builds a committed state by running an engine: channel a fed up to fedA with the
// given holds left undelivered (blocked on channel z, never received).
func etStateWith(t *testing.T, received []Channel, feed func(e *Engine)) *State {
	t.Helper()
	e := etStart(t, nil, Init{Received: received, Bindings: []Binding{{Name: "a", Topic: etTopic(1)}}}, Options{})
	feed(e)
	etDrain(e)
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	return st
}

// SPEC §2.3 INIT, §2.5(b), D105: corrupt committed state refuses UNKNOWN_ORDERING_STATE_FORMAT.
func TestStartRefusesCorruptState(t *testing.T) {
	a := etCh(1, 0)
	cases := map[string]func(s *State){
		"no version entry":    func(s *State) { s.version = 0 },
		"unknown version":     func(s *State) { s.version = 2 },
		"frontier MaxOffset":  func(s *State) { s.frontier.pairs[0].Position = MaxOffset },
		"past negative":       func(s *State) { s.past.pairs = []Cause{{Channel: a, Position: -1}} },
		"fed negative":        func(s *State) { s.fed[0].FedUpTo = -3 },
		"zero topic ID":       func(s *State) { s.fed[0].Channel.Topic = TopicID{} },
		"holds out of order":  func(s *State) { s.holds[0].queue.items[1].Position = 0 },
		"hold above fedUpTo":  func(s *State) { s.fed[0].FedUpTo = 0 },
		"hold without fed":    func(s *State) { s.fed = nil },
		"frontier unsorted":   func(s *State) { s.frontier.pairs = append(s.frontier.pairs, s.frontier.pairs[0]) },
		"binding zero topic":  func(s *State) { s.bindings[0].Topic = TopicID{} },
		"empty held channel":  func(s *State) { s.holds = append(s.holds, channelHolds{ch: etCh(3, 0)}) },
		"held causes invalid": func(s *State) { s.holds[0].queue.items[0].Causes.pairs[0].Position = MaxOffset },
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			st := etStateWith(t, []Channel{a, etCh(2, 0)}, func(e *Engine) {
				etFeed(t, e, a, 0, etRec("x", etCause(etCh(2, 0), 0)))
				etFeed(t, e, a, 1, etRec("x"))
			})
			if _, err := Start(st.Clone(), etInit(a), Options{}); err != nil {
				t.Fatalf("uncorrupted state refused: %v", err)
			}
			corrupt(st)
			st.checked = false // the corruption bypassed Apply and NewState, which keep checked honest
			_, err := Start(st, etInit(a, etCh(2, 0)), Options{})
			etRefusal(t, err, ReasonUnknownOrderingStateFormat)
		})
	}
}

// SPEC §1.2, §9.11, Structural 16: a declaration dropping a channel that still holds messages is
// refused; one without holds is fine and its fedUpTo is retained for a rejoin (§9.12).
func TestStartRemovedChannel(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	st := etStateWith(t, []Channel{a, b, z}, func(e *Engine) {
		etFeed(t, e, a, 4, etRec("held", etCause(z, 0)))
		etFeed(t, e, b, 6, etRec("free"))
	})
	_, err := Start(st.Clone(), etInit(b, z), Options{})
	r := etRefusal(t, err, ReasonChannelRemovedWithHeldMessages)
	etEqual(t, "channel", r.Channel, a)
	etEqual(t, "position", r.Position, Offset(4))

	e := etStart(t, st.Clone(), etInit(a, z), Options{}) // b leaves
	applied := st.Clone()
	if err := applied.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	if !applied.Equal(snap) {
		t.Fatal("committed state differs from the snapshot")
	}
	if f, ok := snap.FedUpTo(b); !ok || f != 6 {
		t.Fatalf("leaving channel's fedUpTo not retained: %v %v", f, ok)
	}
	e = etStart(t, snap, etInit(a, b, z), Options{}) // b rejoins, rewound to 0
	etEqual(t, "rejoin replay", etFeed(t, e, b, 6, etRec("free")), Duplicate)
	etEqual(t, "rejoin fresh", etFeed(t, e, b, 7, etRec("new")), Held)
}

// SPEC §2.5 recreation, D33, §9.18: a declared name now bound to another topic ID refuses
// CHANNEL_IDENTITY_CHANGED; the removed-channel check comes first (§2.3 order).
func TestStartBindingChanged(t *testing.T) {
	a, z := etCh(1, 0), etCh(3, 0)
	st := etStateWith(t, []Channel{a, z}, func(e *Engine) { etFeed(t, e, a, 0, etRec("x", etCause(z, 0))) })
	etEqual(t, "bindings", st.Bindings(), []Binding{{Name: "a", Topic: etTopic(1)}})
	init := Init{Received: []Channel{a, z}, Bindings: []Binding{{Name: "a", Topic: etTopic(9)}}}
	_, err := Start(st.Clone(), init, Options{})
	r := etRefusal(t, err, ReasonChannelIdentityChanged)
	etEqual(t, "channel topic", r.Channel.Topic, etTopic(9))

	init.Received = []Channel{z}
	_, err = Start(st.Clone(), init, Options{})
	etRefusal(t, err, ReasonChannelRemovedWithHeldMessages)

	init = Init{Received: []Channel{a, z}, Bindings: []Binding{{Name: "a", Topic: etTopic(1)}, {Name: "z", Topic: etTopic(3)}}}
	e := etStart(t, st.Clone(), init, Options{})
	d := e.Commit()
	etEqual(t, "new binding recorded", d.Bindings, []Binding{{Name: "a", Topic: etTopic(1)}, {Name: "z", Topic: etTopic(3)}})
}

// SPEC §1.5 rule 4, D31, §9.13: the join clamp raises fedUpTo of a joining channel to the delivered
// past, before start positions and the session floor, so positions at or below are dropped as
// covered and never delivered.
func TestStartJoinClamp(t *testing.T) {
	a, j := etCh(1, 0), etCh(2, 0)
	st := etStateWith(t, []Channel{a}, func(e *Engine) {
		etFeed(t, e, a, 0, etRec("effect", etCause(j, 7))) // j not received: delivers
	})
	etEqual(t, "past", st.DeliveredPast().String(), CausesOf(etCause(j, 7)).String())
	for _, tc := range []struct {
		start   Offset
		wantFed Offset
	}{{0, 7}, {3, 7}, {8, 7}, {9, 8}, {12, 11}} {
		init := etInit(a, j)
		init.StartPositions = []Cause{etCause(j, tc.start)}
		e := etStart(t, st.Clone(), init, Options{})
		f, _ := e.FedUpTo(j)
		etEqual(t, "fed with start "+itoa(int64(tc.start)), f, tc.wantFed)
		etEqual(t, "floor", fmtFloor(e, j), itoa(int64(tc.wantFed)))
		etEqual(t, "cause dropped", etFeed(t, e, j, tc.wantFed, etRec("cause")), Duplicate)
		etEqual(t, "next held", etFeed(t, e, j, tc.wantFed+1, etRec("n")), Held)
	}
}

// A fresh process's first commit writes the version entry (SPEC §1.3) and what initialisation
// changed; starting again from nothing but that is equivalent.
func TestStartFirstCommitWritesVersion(t *testing.T) {
	a := etCh(1, 0)
	init := etInit(a)
	init.StartPositions = []Cause{etCause(a, 10)}
	e := etStart(t, nil, init, Options{})
	d := e.Commit()
	if !d.SetVersion || len(d.Fed) != 1 || d.Fed[0].FedUpTo != 9 {
		t.Fatalf("first delta %+v", d)
	}
	if e.Commit().SetVersion {
		t.Fatal("second delta rewrites the version")
	}
	st := &State{}
	if err := st.Apply(d); err != nil {
		t.Fatal(err)
	}
	etEqual(t, "version", st.Version(), 1)
	e2 := etStart(t, st, etInit(a), Options{})
	if e2.Commit().SetVersion {
		t.Fatal("restored state rewrites the version")
	}
}

// TestStartViewsCommittedHoldsSafely checks the restart that views the committed holds in place
// (heldBuffer) against a host that keeps applying deltas to the committed state: another
// execution started from the same state delivers the held messages, commits, and its deltas are
// applied (popping, compacting and appending the committed queue); the first execution's view,
// and everything it then does, stays as if it had copied the holds.
func TestStartViewsCommittedHoldsSafely(t *testing.T) {
	a, gate := etCh(1, 0), etCh(9, 0)
	init := etInit(a, gate)
	st := etCommittedHolds(t, init, a, gate)
	viewer := etStart(t, st, init, Options{})
	fresh := etStart(t, st.Clone(), init, Options{})
	want := string(fresh.AppendCanonical(nil, rawEncoder{}))

	other := etStart(t, st, init, Options{})
	etFeed(t, other, gate, 0, etRec("open"))
	etEqual(t, "delivered", len(etDrain(other)), etHoldDepth+1)
	etFeed(t, other, a, etHoldDepth, etRec("late", etCause(gate, 5)))
	if err := st.Apply(other.Commit()); err != nil {
		t.Fatal(err)
	}
	if st.HeldCount() != 1 {
		t.Fatalf("committed state holds %d messages, want 1", st.HeldCount())
	}
	if got := string(viewer.AppendCanonical(nil, rawEncoder{})); got != want {
		t.Fatal("applying another execution's deltas changed an engine started from the state")
	}
	etFeed(t, viewer, gate, 0, etRec("open"))
	etFeed(t, fresh, gate, 0, etRec("open"))
	etEqual(t, "deliveries of the viewing engine", etDrain(viewer), etDrain(fresh))
	etEqual(t, "snapshot", viewer.Snapshot().Equal(fresh.Snapshot()), true)
}

// TestStartRevalidatesAfterCorruptingDeltas checks the validity cache (State.checked) from
// outside the package's internals: a state corrupted through Apply — the only way a host can
// change one — is not vouched for, and Start refuses it; an honest delta keeps it vouched for.
func TestStartRevalidatesAfterCorruptingDeltas(t *testing.T) {
	a, z := etCh(1, 0), etCh(2, 0)
	for _, tc := range []struct {
		name  string
		delta Delta
	}{
		{"fedUpTo lowered below a hold", Delta{Fed: []FedPosition{{a, 0}}}},
		{"frontier at MaxOffset", Delta{Frontier: []Cause{{a, MaxOffset}}}},
		{"negative delivered past", Delta{Past: []Cause{{a, -1}}}},
		{"binding to the zero ID", Delta{Bindings: []Binding{{Name: "b"}}}},
		{"fedUpTo on an invalid channel", Delta{Fed: []FedPosition{{Channel{}, 3}}}},
		{"new hold with invalid causes", Delta{Fed: []FedPosition{{a, 5}}, NewHolds: []HeldMessage{{Channel: a, Position: 5,
			Causes: Causes{pairs: []Cause{{z, 2}, {z, 1}}}}}}},
		{"two new holds at one position", Delta{Fed: []FedPosition{{a, 5}}, NewHolds: []HeldMessage{{Channel: a, Position: 5},
			{Channel: a, Position: 5}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := etStateWith(t, []Channel{a, z}, func(e *Engine) {
				etFeed(t, e, a, 0, etRec("x", etCause(z, 0)))
				etFeed(t, e, a, 1, etRec("y"))
			})
			if !st.checked {
				t.Fatal("a state built by applying an honest engine's deltas is not vouched for")
			}
			if err := st.Apply(tc.delta); err != nil {
				t.Fatalf("apply: %v", err)
			}
			if st.checked {
				t.Fatal("the corrupting delta left the state vouched for")
			}
			_, err := Start(st, etInit(a, z), Options{})
			etRefusal(t, err, ReasonUnknownOrderingStateFormat)
		})
	}
}

// TestStateCloneSharesHoldsSafely checks State.Clone, which shares the hold queues: deltas applied
// to either copy (popping every hold, compacting, appending new ones) leave the other's content
// as it was, and the copies then evolve independently.
func TestStateCloneSharesHoldsSafely(t *testing.T) {
	a, gate := etCh(1, 0), etCh(9, 0)
	init := etInit(a, gate)
	st := etCommittedHolds(t, init, a, gate)
	c := st.Clone()
	before := etStateDump(st)

	// The clone delivers everything and holds one more; the original must not see it.
	ec := etStart(t, c, init, Options{})
	etFeed(t, ec, gate, 0, etRec("open"))
	etEqual(t, "delivered by the clone", len(etDrain(ec)), etHoldDepth+1)
	etFeed(t, ec, a, etHoldDepth, etRec("late", etCause(gate, 5)))
	if err := c.Apply(ec.Commit()); err != nil {
		t.Fatal(err)
	}
	if etStateDump(st) != before {
		t.Fatal("applying deltas to the clone changed the original")
	}
	etEqual(t, "holds of the clone", c.HeldCount(), 1)

	// The original holds one more behind its 40; the clone must not see it.
	afterClone := etStateDump(c)
	eo := etStart(t, st, init, Options{})
	etFeed(t, eo, a, etHoldDepth, etRec("other", etCause(gate, 7)))
	if err := st.Apply(eo.Commit()); err != nil {
		t.Fatal(err)
	}
	if etStateDump(c) != afterClone {
		t.Fatal("applying deltas to the original changed the clone")
	}
	etEqual(t, "holds of the original", st.HeldCount(), etHoldDepth+1)
	if got := st.Held(a)[etHoldDepth]; string(got.Record.Value) != "other" {
		t.Fatalf("the original's new hold reads %q", got.Record.Value)
	}
}

// etHoldDepth is the number of holds etCommittedHolds commits: past fifoCompactMin, so a queue that
// delivers them compacts.
const etHoldDepth = 40

// etCommittedHolds returns the committed state of an execution fed etHoldDepth records on channel
// a, each held on position 0 of channel gate, which it was never fed.
func etCommittedHolds(t *testing.T, init Init, a, gate Channel) *State {
	t.Helper()
	e := etStart(t, &State{}, init, Options{})
	for k := range Offset(etHoldDepth) {
		etFeed(t, e, a, k, etRec(fmt.Sprint(k), etCause(gate, 0)))
	}
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	return st
}

package node

import (
	"testing"
)

// etDeepState returns an engine with depth messages held on a (blocked on z), committed, and the
// committed state.
func etDeepState(t testing.TB, depth int) (*Engine, *State) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	e := etStart(t, nil, etInit(a, b, z), Options{})
	for i := 0; i < depth; i++ {
		etFeed(t, e, a, Offset(i), etRec("held", etCause(z, 0)))
	}
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	return e, st
}

// SPEC §1.3, Host obligation 3, D102: a step's delta holds what the step did — new holds still held,
// committed holds released, raised fedUpTo, changed frontier entries — not the buffer; a hold taken
// and delivered in the same step never appears.
func TestCommitDeltaIsTheStepsChange(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	e, st := etDeepState(t, 100)
	etEqual(t, "committed holds", st.HeldCount(), 100)

	etFeed(t, e, a, 100, etRec("one more", etCause(z, 0)))
	etFeed(t, e, b, 0, etRec("in and out"))
	etDrain(e)
	d := e.Commit()
	etEqual(t, "new holds", len(d.NewHolds), 1)
	etEqual(t, "removed", len(d.RemovedHolds), 0)
	etEqual(t, "fed", d.Fed, []FedPosition{{a, 100}, {b, 0}})
	etEqual(t, "frontier set", d.Frontier, []Cause{{b, 0}})
	if err := st.Apply(d); err != nil {
		t.Fatal(err)
	}
	if !st.Equal(e.Snapshot()) {
		t.Fatal("applied state differs from snapshot")
	}

	etFeed(t, e, z, 0, etRec("release"))
	etEqual(t, "released", len(etDrain(e)), 102)
	d = e.Commit()
	etEqual(t, "removed", len(d.RemovedHolds), 101)
	etEqual(t, "first removed", d.RemovedHolds[0], HoldRef{a, 0})
	if err := st.Apply(d); err != nil {
		t.Fatal(err)
	}
	etEqual(t, "held after", st.HeldCount(), 0)
	if !st.Equal(e.Snapshot()) {
		t.Fatal("applied state differs from snapshot")
	}
	if d := e.Commit(); !d.IsEmpty() {
		t.Fatalf("idle step delta %+v", d)
	}
}

// A delta that does not fit the state is refused and leaves it unchanged.
func TestCommitApplyRefusesMisfit(t *testing.T) {
	a := etCh(1, 0)
	_, st := etDeepState(t, 3)
	before := st.Clone()
	for name, d := range map[string]Delta{
		"remove absent":  {RemovedHolds: []HoldRef{{a, 7}}},
		"add duplicate":  {NewHolds: []HeldMessage{{Channel: a, Position: 1}}},
		"add above fed":  {NewHolds: []HeldMessage{{Channel: a, Position: 9}}},
		"remove on none": {RemovedHolds: []HoldRef{{etCh(5, 0), 0}}},
	} {
		etRefusal(t, st.Apply(d), ReasonUnknownOrderingStateFormat)
		if !st.Equal(before) {
			t.Fatalf("%s: state changed by a refused delta", name)
		}
	}
	fresh := &State{}
	etRefusal(t, fresh.Apply(Delta{Fed: []FedPosition{{a, 1}}}), ReasonUnknownOrderingStateFormat)
}

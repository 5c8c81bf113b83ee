package node

import (
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
	known := map[string]int{"Engine": 21, "chanState": 13}
	for _, v := range []any{Engine{}, chanState{}} {
		typ := reflect.TypeOf(v)
		if typ.NumField() != known[typ.Name()] {
			t.Errorf("%s has %d fields, Clone knew %d: check engine_clone.go copies the new ones, then update this count",
				typ.Name(), typ.NumField(), known[typ.Name()])
		}
	}
}

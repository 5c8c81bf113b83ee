package node

import (
	"fmt"
	"reflect"
	"testing"
)

// reuseSteps drives e through four rounds (from round from) of steps whose deltas exercise the
// lists of a Delta: new holds, removed holds (delivered), raised fedUpTo, frontier and
// delivered-past entries set; commit is called at the end of every step.
func reuseSteps(t *testing.T, e *Engine, from Offset, commit func() Delta) []Delta {
	t.Helper()
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	var out []Delta
	for k := from; k < from+4; k++ {
		etFeed(t, e, a, 2*k, etRec("held", etCause(z, k)))
		etFeed(t, e, a, 2*k+1, etRec("held too", etCause(z, k)))
		out = append(out, commit())
		etFeed(t, e, z, k, etRec("gate"))
		etFeed(t, e, b, k, etRec("free", etCause(z, k)))
		etDrain(e)
		out = append(out, commit())
		out = append(out, commit()) // an idle step
	}
	return out
}

// TestCommitReusedIsCommit checks that CommitReused returns, step by step, exactly the Delta
// Commit returns (nil lists included), over two executions the second of which prunes a dead
// topic, and that the state built by applying the reused deltas equals the engine's snapshot.
func TestCommitReusedIsCommit(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	plain := etStart(t, &State{}, etInit(a, b, z), Options{})
	reused := etStart(t, &State{}, etInit(a, b, z), Options{})
	st := &State{}
	var got []Delta
	want := reuseSteps(t, plain, 0, plain.Commit)
	reuseSteps(t, reused, 0, func() Delta {
		d := reused.CommitReused()
		got = append(got, deltaCopy(d))
		if err := st.Apply(d); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		return d
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CommitReused deltas differ from Commit's:\n got %+v\nwant %+v", got, want)
	}
	if !st.Equal(reused.Snapshot()) {
		t.Fatal("state built from reused deltas differs from the snapshot")
	}
	// A second execution that learns z's topic is dead: the first delta prunes it.
	plain = etStart(t, st.Clone(), etInit(a, b), Options{})
	reused, err := StartInto(reused, st.Clone(), etInit(a, b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{plain, reused} {
		if err := e.Identity([]TopicID{z.Topic}, nil); err != nil {
			t.Fatal(err)
		}
	}
	d, wantD := reused.CommitReused(), plain.Commit()
	if len(wantD.FrontierRemoved) == 0 || !reflect.DeepEqual(d, wantD) {
		t.Fatalf("pruning delta:\n got %+v\nwant %+v (must remove z)", d, wantD)
	}
}

// TestCommitReusedRoomsAreIndependent checks that an engine and its clones build their deltas in
// different storage: a delta the source returned is unchanged by its clone's commits (into a
// fresh engine and into a recycled one).
func TestCommitReusedRoomsAreIndependent(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	e := etStart(t, &State{}, etInit(a, b, z), Options{})
	reuseSteps(t, e, 0, e.CommitReused) // the room now has capacity in every list
	dead := e.Clone()
	reuseSteps(t, dead, 4, dead.CommitReused)
	etFeed(t, e, a, 8, etRec("held", etCause(z, 4)))
	etFeed(t, e, b, 4, etRec("free"))
	etDrain(e)
	d := e.CommitReused()
	before := fmt.Sprintf("%+v", d)
	for _, c := range []*Engine{e.Clone(), e.CloneInto(dead)} {
		etFeed(t, c, a, 9, etRec("held", etCause(z, 9)))
		etFeed(t, c, z, 4, etRec("gate"))
		etFeed(t, c, b, 5, etRec("free"))
		etDrain(c)
		if cd := c.CommitReused(); len(cd.Fed) == 0 || len(cd.Frontier) == 0 {
			t.Fatalf("clone's delta %+v should set fedUpTo and the frontier", cd)
		}
		if after := fmt.Sprintf("%+v", d); after != before {
			t.Fatalf("a clone's commit changed the source's delta:\n got %s\nwant %s", after, before)
		}
	}
}

// deltaCopy returns d with every list copied (nil stays nil).
func deltaCopy(d Delta) Delta {
	return Delta{SetVersion: d.SetVersion, Bindings: cloneNil(d.Bindings), Fed: cloneNil(d.Fed),
		FrontierRemoved: cloneNil(d.FrontierRemoved), Frontier: cloneNil(d.Frontier),
		PastRemoved: cloneNil(d.PastRemoved), Past: cloneNil(d.Past),
		RemovedHolds: cloneNil(d.RemovedHolds), NewHolds: cloneNil(d.NewHolds)}
}

// cloneNil copies s keeping nil and empty apart.
func cloneNil[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

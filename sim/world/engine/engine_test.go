package engine

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
)

// started returns a journalled reference of an engine receiving channel a, under opts.
func started(t *testing.T, a node.Channel, opts node.Options) (*Ref, *Journal) {
	t.Helper()
	init := node.Init{Received: []node.Channel{a}}
	eng, err := node.Start(nil, init, opts)
	if err != nil {
		t.Fatal(err)
	}
	r, j := new(Ref), new(Journal)
	r.Start(eng)
	r.Journal(j, nil, init, opts)
	return r, j
}

// TestCloneCopiesOnFirstChange: a clone reads its original's engine until its first change,
// then changes a copy of its own; the original's engine is never written.
func TestCloneCopiesOnFirstChange(t *testing.T) {
	a := node.Channel{Topic: node.TopicID{1}}
	r, _ := started(t, a, node.Options{})
	orig := r.View()
	c := r.CloneInto(new(Ref))
	if c.View() != orig {
		t.Fatal("a clone does not read its original's engine before it changes it")
	}
	if _, ok := c.Next(); ok { // nothing held: no change, no copy
		t.Fatal("an empty engine delivered")
	}
	if c.View() != orig {
		t.Fatal("a Next that delivers nothing copied the engine")
	}
	if _, err := c.Receive(a, 0, node.Record{Value: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if c.View() == orig || r.View() != orig {
		t.Fatal("the clone's first change did not go to a copy of its own")
	}
	if _, fed := orig.FedUpTo(a); fed {
		t.Fatal("the clone's receive reached the original's engine")
	}
	if got, _ := c.View().FedUpTo(a); got != 0 {
		t.Fatalf("the clone's engine is fed up to %d, want 0", got)
	}
}

// TestCloneReusesSpare: a storage reference's spare engine is what the copy on the first change
// is built in, and Storage hands it on for the next life.
func TestCloneReusesSpare(t *testing.T) {
	a := node.Channel{Topic: node.TopicID{1}}
	r, _ := started(t, a, node.Options{})
	spare, _ := node.Start(nil, node.Init{}, node.Options{})
	var store Ref
	store.Reset(spare)
	c := r.CloneInto(&store)
	if _, err := c.Receive(a, 0, node.Record{}); err != nil {
		t.Fatal(err)
	}
	if c.View() != spare || store.Storage() != spare || store.TakeSpare() != nil {
		t.Fatal("the copy was not built in the spare engine, or the spare is still offered")
	}
}

// TestHashCache: a cached hash holds for the hasher that stored it until a change (a clone
// inherits it), and survives a commit except under SABOTAGE_DROP_HELD, whose hash encodes the
// calls.
func TestHashCache(t *testing.T) {
	a := node.Channel{Topic: node.TopicID{1}}
	key := explore.HashKey{1, 2}
	for _, sab := range []node.Sabotage{node.SabotageNone, node.SabotageDropHeld} {
		r, _ := started(t, a, node.Options{Sabotage: sab})
		by, other := new(int), new(int)
		r.SetHash(by, key)
		if got, ok := r.CachedHash(by); !ok || got != key {
			t.Fatalf("%v: the stored hash is not cached", sab)
		}
		if _, ok := r.CachedHash(other); ok {
			t.Fatalf("%v: another hasher's cache answered", sab)
		}
		c := r.CloneInto(new(Ref))
		if _, ok := c.CachedHash(by); !ok {
			t.Fatalf("%v: a clone did not inherit its original's cached hash", sab)
		}
		if _, err := c.Receive(a, 0, node.Record{}); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.CachedHash(by); ok {
			t.Fatalf("%v: a changed engine kept its cached hash", sab)
		}
		if _, ok := r.CachedHash(by); !ok {
			t.Fatalf("%v: the clone's change cleared its original's cache", sab)
		}
		c.SetHash(by, key)
		c.Commit()
		_, ok := c.CachedHash(by)
		if want := sab != node.SabotageDropHeld; ok != want {
			t.Fatalf("%v: after a commit the cached hash holds: %v, want %v", sab, ok, want)
		}
		if got := len(c.Calls()); (sab == node.SabotageDropHeld) != (got == 2) {
			t.Fatalf("%v: %d calls journalled", sab, got)
		}
	}
}

// TestCloneUnjournalled: a reference that is not journalled (a run's, not an exploration's)
// clones as a journalled one does, copying the engine on the clone's first change, and its clone
// journals nothing either.
func TestCloneUnjournalled(t *testing.T) {
	a := node.Channel{Topic: node.TopicID{1}}
	eng, err := node.Start(nil, node.Init{Received: []node.Channel{a}}, node.Options{Sabotage: node.SabotageDropHeld})
	if err != nil {
		t.Fatal(err)
	}
	var r Ref
	r.Start(eng)
	c := r.CloneInto(new(Ref))
	if c.View() != eng {
		t.Fatal("a clone does not read its original's engine before it changes it")
	}
	if _, err := c.Receive(a, 0, node.Record{Value: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if c.View() == eng || eng.Counters() == c.View().Counters() {
		t.Fatal("the clone's receive went to its original's engine")
	}
	if len(c.Calls()) != 0 || len(r.Calls()) != 0 {
		t.Fatalf("unjournalled references journalled %d and %d calls", len(r.Calls()), len(c.Calls()))
	}
}

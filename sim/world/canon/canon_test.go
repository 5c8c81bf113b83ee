package canon

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/substrate"
)

// fakeWorld is a world of processes with no channels, each read through a fakeProc that counts
// its reads.
type fakeWorld struct {
	scn   spec.Scenario
	set   *swarm.Settings
	or    oracle.Oracle
	procs []*fakeProc
}

// fakeProc is a process whose state is a refusal text.
type fakeProc struct {
	name, why string
	o         oracle.Proc
	ref       oracle.Reference
	caches    Caches
	resolved  uint64
	reads     int
	// refusable makes the process's own part of being rollback-free false; free is what its
	// last encoding was asked for.
	refusable, free bool
}

func (w *fakeWorld) Read(s *State) {
	s.Scenario, s.Settings, s.Oracle = &w.scn, w.set, &w.or
	s.Procs = s.Procs[:0]
	for _, p := range w.procs {
		s.Procs = append(s.Procs, Proc{View: p, Caches: &p.caches})
	}
}

func (w *fakeWorld) AppendTopology(b []byte) []byte { return append(b, 0) }

func (w *fakeWorld) AppendIncarnationIDs(dst []node.TopicID) []node.TopicID { return dst }

func (w *fakeWorld) Clock() int64 { return 0 }

func (w *fakeWorld) Recent() ([]uint64, int) { return nil, 0 }

func (p *fakeProc) Read(s *ProcState) {
	p.reads++
	*s = ProcState{Name: p.name, RefusalWhy: p.why, ResolvedDigest: &p.resolved, Oracle: &p.o, Ref: &p.ref}
}

func (p *fakeProc) Committed() *node.State { return nil }

func (p *fakeProc) AppendChannels(b []byte, free bool) []byte {
	p.free = free
	return append(b, 0, 0, 0)
}

func (p *fakeProc) RollbackFree() bool { return !p.refusable }

func (p *fakeProc) AppendGroupOffsets(dst []substrate.GroupOffset) []substrate.GroupOffset {
	return dst
}

func newFakeWorld(procs ...string) *fakeWorld {
	w := &fakeWorld{or: oracle.New(nil, nil, 0), set: &swarm.Settings{}}
	w.set.Weights[spec.ActCrash] = 1 // a fault left: no process is rollback-free
	for i, name := range procs {
		w.procs = append(w.procs, &fakeProc{name: name, o: oracle.NewProc(i), ref: oracle.NewReference(i)})
	}
	return w
}

// TestProcessHashCachedUntilForget checks the contract of Caches: a process is read again only
// after Forget (or by another hasher), a change read after Forget changes the hash, and a change
// made without Forget goes unseen by the caching hasher but not by a verifying one, which panics.
func TestProcessHashCachedUntilForget(t *testing.T) {
	w := newFakeWorld("p", "q")
	h := New(w.set)
	first := h.Hash(w, nil)
	if h.Hash(w, nil) != first || w.procs[0].reads != 1 || w.procs[1].reads != 1 {
		t.Fatalf("a second hash read the processes again: reads %d and %d", w.procs[0].reads, w.procs[1].reads)
	}
	p := w.procs[0]
	p.why = "refused"
	if h.Hash(w, nil) != first {
		t.Fatal("a change made without Forget was read: the process was not cached")
	}
	p.caches.Forget()
	changed := h.Hash(w, nil)
	if changed == first || p.reads != 2 || w.procs[1].reads != 1 {
		t.Fatalf("after Forget: changed %v, reads %d and %d", changed != first, p.reads, w.procs[1].reads)
	}
	if New(w.set).Hash(w, nil) != changed {
		t.Fatal("another hasher hashes the same world differently")
	}
	p.why = ""
	v := New(w.set)
	v.Verify = true
	v.Hash(w, nil) // fills v's caches from the world as it is
	p.why = "refused again"
	defer func() {
		if recover() == nil {
			t.Fatal("a verifying hasher took a stale process hash")
		}
	}()
	v.Hash(w, nil)
}

// TestRollbackFreeFollowsTheWorld checks that the rollback-free abstraction (abstract.go) is
// decided at every hash: a process is encoded rollback-free once no fault is left and not while
// one is, nor when its own part says a feed of it could refuse; an exact hasher never abstracts;
// and a verifying hasher catches settings changed in place, which the memo of the settings'
// answer assumes never happens.
func TestRollbackFreeFollowsTheWorld(t *testing.T) {
	w := newFakeWorld("p")
	p := w.procs[0]
	h := New(w.set)
	faulty := h.Hash(w, nil)
	if p.free {
		t.Fatal("encoded rollback-free while a crash is left")
	}
	calm := &swarm.Settings{}
	calm.Weights[spec.ActFeed], calm.Weights[spec.ActDrain] = 1, 1
	w.set = calm
	free := h.Hash(w, nil)
	if !p.free || free == faulty {
		t.Fatalf("with only feeds and drains left: encoded free %v, hash changed %v", p.free, free != faulty)
	}
	p.refusable = true
	p.caches.Forget()
	if h.Hash(w, nil) != faulty || p.free {
		t.Fatal("a process whose feed could refuse was encoded rollback-free")
	}
	p.refusable = false
	exact := New(w.set)
	exact.Exact = true
	if exact.Hash(w, nil) != faulty || p.free {
		t.Fatal("an exact hasher abstracted a rollback-free process")
	}
	v := New(w.set)
	v.Verify = true
	v.Hash(w, nil)
	calm.Weights[spec.ActCrash] = 1 // in place: the memo's answer is stale
	defer func() {
		if recover() == nil {
			t.Fatal("a verifying hasher took the memoized answer of settings changed in place")
		}
	}()
	v.Hash(w, nil)
}

// TestVerifyingHasherCatchesAStaleDigest checks the contract of a cached digest (digest.go): a
// hasher takes a digest from its cache as it finds it, so a cache its part no longer matches
// changes the hash, and a verifying hasher, which recomputes it, panics.
func TestVerifyingHasherCatchesAStaleDigest(t *testing.T) {
	w := newFakeWorld("p")
	p := w.procs[0]
	h := New(w.set)
	fresh := h.Hash(w, nil)
	if p.resolved == 0 {
		t.Fatal("the resolved topics' digest was not cached")
	}
	p.resolved++ // a change to the resolved topics that did not clear their digest
	p.caches.Forget()
	if h.Hash(w, nil) == fresh {
		t.Fatal("the digest was not taken from its cache")
	}
	p.caches.Forget()
	v := New(w.set)
	v.Verify = true
	defer func() {
		if recover() == nil {
			t.Fatal("a verifying hasher took a stale digest")
		}
	}()
	v.Hash(w, nil)
}

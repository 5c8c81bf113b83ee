package world

import (
	"github.com/parsleysim/parsleysim/node"
)

// A process's engine, cloneable. A cloned world's engine is copied (node.Engine.Clone) from the
// engine it was cloned from — lazily, the first time the clone calls a method that changes it, so a
// transition pays only for the engine it touches; until then reads go to the source, which is never
// changed again (the explorer steps only clones; a world that has been cloned is only read).
//
// The canonical hash caches an engine's hash in its reference, keyed by (engine, number of changing
// calls made to it): an engine shared as a clone's source never changes again, and the cached key
// keeps the engine reachable, so its address is not reused. Under SABOTAGE_DROP_HELD the engine's snapshot leaves
// out holds the engine still has, so the hash encodes the calls as well: only then are calls
// journalled (in an explored world: RunOptions.explored). An unexplored run counts calls and journals nothing.

// engineRef is the engine of a process's current execution.
type engineRef struct {
	eng *node.Engine // nil in a clone until its first change
	// src is the engine a clone copies on its first change (read-only meanwhile); nil once eng is
	// set.
	src *node.Engine
	// changes counts the changing calls made to the engine since Start (a clone inherits it).
	changes int
	j       *engineJournal // nil when the world does not journal
	// hash is the canonical hash of the engine's state, cached (world_hash_proc.go).
	hash engineHash
	// spare, in a process's engStore, is an engine no world reads any more, whose storage the
	// copy on the first change reuses (node.Engine.CloneInto); nil once used (it is then eng).
	spare *node.Engine
}

// engineJournal is node.Start's arguments and, under SABOTAGE_DROP_HELD, every call since. calls
// is append-only and shared between clones with its capacity clipped, so an append on either side
// never writes into the other's view.
type engineJournal struct {
	start *node.State
	init  node.Init
	opts  node.Options
	calls []engineCall
}

type engineCallKind uint8

const (
	callIdentity engineCallKind = iota + 1
	callReceive
	callNext
	callEmit
	callCommit
)

// engineCall is one journalled call: its kind, channel and position (what the hash encodes).
type engineCall struct {
	kind engineCallKind
	ch   node.Channel
	pos  node.Offset
}

// startEngine is node.Start for p's next execution, its reference in se; with journaling on it
// keeps the start state (shared copy-on-write with p.committed) and the arguments.
func (p *proc) startEngine(se *startedEngine, init node.Init, opts node.Options) (*engineRef, error) {
	eng, err := node.StartInto(p.deadEngine(), p.committed, init, opts)
	if err != nil {
		return nil, err
	}
	p.store.noteStarted(eng)
	se.ref = engineRef{eng: eng}
	if p.w.opts.explored {
		p.committedShared = true
		se.j = engineJournal{start: p.committed, init: init, opts: opts}
		se.ref.j = &se.j
	}
	return &se.ref, nil
}

// startedEngine is a started engine's reference, journal and Init lists in one allocation: the
// explorer restarts a process on about one transition in six, and all of them live as long as
// the execution.
type startedEngine struct {
	ref  engineRef
	j    engineJournal
	init initRoom
}

// engine returns the live engine for a call that may change it, copying the source in a clone.
func (r *engineRef) engine() *node.Engine {
	if r.eng == nil {
		if r.spare != nil {
			r.eng, r.src, r.spare = r.src.CloneInto(r.spare), nil, nil
		} else {
			r.eng, r.src = r.src.Clone(), nil
		}
	}
	return r.eng
}

// view returns the engine for a read-only call: the source itself in a clone not yet changed.
func (r *engineRef) view() *node.Engine {
	if r.eng == nil {
		return r.src
	}
	return r.eng
}

// note counts one changing call and journals it when the hash needs the calls.
func (r *engineRef) note(kind engineCallKind, ch node.Channel, pos node.Offset) {
	r.changes++
	if r.j != nil && r.j.opts.Sabotage == node.SabotageDropHeld {
		r.j.calls = append(r.j.calls, engineCall{kind: kind, ch: ch, pos: pos})
	}
}

// Identity is node.Engine.Identity, journalled.
func (r *engineRef) Identity(dead, recreated []node.TopicID) error {
	err := r.engine().Identity(dead, recreated)
	r.note(callIdentity, node.Channel{}, 0)
	return err
}

// Receive is node.Engine.Receive, journalled.
func (r *engineRef) Receive(ch node.Channel, pos node.Offset, rec node.Record) (node.ReceiveOutcome, error) {
	out, err := r.engine().Receive(ch, pos, rec)
	r.note(callReceive, ch, pos)
	return out, err
}

// Next is node.Engine.Next, journalled. An engine that holds nothing or has refused delivers
// nothing and Next leaves it as it is, so then a clone does not copy its source (about one clone
// in twelve in the explorer was for such a Next). Outside SABOTAGE_DROP_HELD such a call is not
// counted either: the engine, and so its cached hash, is unchanged. Under it the call is journalled
// as always, since the hash encodes the calls.
func (r *engineRef) Next() (node.Delivery, bool) {
	if v := r.view(); v.HeldCount() == 0 || v.Refusal() != nil {
		if r.j != nil && r.j.opts.Sabotage == node.SabotageDropHeld {
			r.note(callNext, node.Channel{}, 0)
		}
		return node.Delivery{}, false
	}
	d, ok := r.engine().Next()
	r.note(callNext, node.Channel{}, 0)
	return d, ok
}

// Emit is node.Engine.Emit, journalled.
func (r *engineRef) Emit(ch node.Channel, rec node.Record) (node.Record, error) {
	out, err := r.engine().Emit(ch, rec)
	r.note(callEmit, ch, 0)
	return out, err
}

// Commit is node.Engine.Commit, journalled. The delta's lists live in the engine's reused room
// (node.Engine.CommitReused): the caller (proc.commit) applies it at once and keeps none of them.
//
// A commit leaves the engine's canonical encoding as it was (appendEngineState): the encoding is
// the engine's ordering state in committed form (node.Engine.AppendCanonical, as Snapshot would
// give it), its floors and its refusal, and a commit only marks the step's changes committed.
// The one exception is SABOTAGE_DROP_HELD, where a commit drops holds the snapshot leaves out
// and the journal, which the encoding holds, gains the call. So a hash cached before the commit
// stays true after it: about two engine re-encodings in five in the explorer were of commits.
// The hash caches' verification (ExploreOptions.VerifyHashCaches) recomputes it and would find it stale.
func (r *engineRef) Commit() node.Delta {
	fresh := r.hash.eng == r.view() && r.hash.changes == r.changes
	d := r.engine().CommitReused()
	r.note(callCommit, node.Channel{}, 0)
	if fresh && r.view().Options().Sabotage != node.SabotageDropHeld {
		r.hash.eng, r.hash.changes = r.view(), r.changes
	}
	return d
}

// Refusal is node.Engine.Refusal.
func (r *engineRef) Refusal() *node.Refusal { return r.view().Refusal() }

// Counters is node.Engine.Counters.
func (r *engineRef) Counters() node.Counters { return r.view().Counters() }

// Status is node.Engine.Status.
func (r *engineRef) Status() node.Status { return r.view().Status() }

// cloneInto returns a reference for a cloned world, in the storage of c (the owning process's
// engStore, world_clone.go): it reads r's engine and copies it on its first change (into c's
// spare engine, when it has one), and shares the journal's immutable parts. r's engine must not change afterwards. It returns nil when r is
// nil.
func (r *engineRef) cloneInto(c *engineRef) *engineRef {
	if r == nil {
		return nil
	}
	if r.j == nil {
		panic("world: cloning a world that is not explored (RunOptions.explored)")
	}
	j := r.j
	if j.opts.Sabotage == node.SabotageDropHeld { // only then are calls appended (note)
		cp := *r.j
		cp.calls = cp.calls[:len(cp.calls):len(cp.calls)]
		j = &cp
	}
	*c = engineRef{src: r.view(), changes: r.changes, j: j, hash: r.hash, spare: c.spare}
	return c
}

// Frontier is node.Engine.Frontier.
func (r *engineRef) Frontier() node.Causes { return r.view().Frontier() }

// DeliveredPast is node.Engine.DeliveredPast.
func (r *engineRef) DeliveredPast() node.Causes { return r.view().DeliveredPast() }

// Received is node.Engine.Received.
func (r *engineRef) Received() []node.Channel { return r.view().Received() }

// FedUpTo is node.Engine.FedUpTo.
func (r *engineRef) FedUpTo(ch node.Channel) (node.Offset, bool) { return r.view().FedUpTo(ch) }

// SessionFloor is node.Engine.SessionFloor.
func (r *engineRef) SessionFloor(ch node.Channel) (node.Offset, bool) {
	return r.view().SessionFloor(ch)
}

// Snapshot is node.Engine.Snapshot.
func (r *engineRef) Snapshot() *node.State { return r.view().Snapshot() }

// Stamp is node.Engine.Stamp (it changes only the work counters, so it is not journalled).
func (r *engineRef) Stamp() ([]byte, error) { return r.engine().Stamp() }

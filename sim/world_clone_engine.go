package sim

import (
	"github.com/parsleysim/parsleysim/node"
)

// A process's engine, cloneable. A cloned world's engine is copied (node.Engine.Clone) from the
// engine it was cloned from — lazily, the first time the clone calls a method that changes it, so
// a transition pays only for the engine it touches; until then reads go to the source, which is
// never changed again (the explorer steps only clones; a world that has been cloned is only
// read). When a world is explored (RunOptions.journal), every call is also journalled: an engine
// is a deterministic function of its start state, Init, Options and calls, so the journal names
// its state for the canonical hash's cache (world_hash_proc.go), and a clone whose source is
// gone rebuilds from it. An unexplored run journals nothing and pays one nil check per call.

// engineRef is the engine of a process's current execution.
type engineRef struct {
	eng *node.Engine // nil in a clone until its first change
	// src is the engine a clone copies on its first change (read-only meanwhile); nil once eng is
	// set.
	src *node.Engine
	j   *engineJournal // nil when the world does not journal
}

// engineJournal is everything that rebuilds an engine: node.Start's arguments and every call
// since. start is never modified after Start (the host clones a shared committed state before
// applying a delta to it). calls is append-only and shared between clones with its capacity
// clipped, so an append on either side never writes into the other's view.
type engineJournal struct {
	start *node.State
	init  node.Init
	opts  node.Options
	calls []engineCall
	// hash caches the canonical hash of the engine's state for len(calls) == hashCalls (see
	// world_hash_engine.go); hashOK says the cache is filled.
	hash      uint64
	hashCalls int
	hashOK    bool
}

type engineCallKind uint8

const (
	callIdentity engineCallKind = iota + 1
	callReceive
	callNext
	callEmit
	callCommit
)

// engineCall is one journalled call and its arguments.
type engineCall struct {
	kind            engineCallKind
	ch              node.Channel
	pos             node.Offset
	rec             node.Record
	dead, recreated []node.TopicID
}

// startEngine is node.Start for p's next execution; with journaling on it keeps the start state
// (shared copy-on-write with p.committed) and the arguments.
func (p *proc) startEngine(init node.Init, opts node.Options) (*engineRef, error) {
	eng, err := node.Start(p.committed, init, opts)
	if err != nil {
		return nil, err
	}
	ref := &engineRef{eng: eng}
	if p.w.opts.journal {
		p.committedShared = true
		ref.j = &engineJournal{start: p.committed, init: init, opts: opts}
	}
	return ref, nil
}

// engine returns the live engine for a call that may change it, copying the source in a clone.
func (r *engineRef) engine() *node.Engine {
	if r.eng == nil {
		if r.src != nil {
			r.eng, r.src = r.src.Clone(), nil
		} else {
			r.eng = r.j.rebuild()
		}
	}
	return r.eng
}

// view returns the engine for a read-only call: the source itself in a clone not yet changed.
func (r *engineRef) view() *node.Engine {
	if r.eng == nil && r.src != nil {
		return r.src
	}
	return r.engine()
}

// rebuild replays the journal on a fresh engine. A replay that does not start is a bug: the
// original started from the same arguments.
func (j *engineJournal) rebuild() *node.Engine {
	eng, err := node.Start(j.start, j.init, j.opts)
	if err != nil {
		panic("sim: rebuilding a journalled engine: " + err.Error())
	}
	for i := range j.calls {
		c := &j.calls[i]
		switch c.kind {
		case callIdentity:
			_ = eng.Identity(c.dead, c.recreated)
		case callReceive:
			_, _ = eng.Receive(c.ch, c.pos, c.rec)
		case callNext:
			eng.Next()
		case callEmit:
			_, _ = eng.Emit(c.ch, c.rec)
		case callCommit:
			eng.Commit()
		}
	}
	return eng
}

// note journals one call.
func (r *engineRef) note(c engineCall) {
	if r.j != nil {
		r.j.calls = append(r.j.calls, c)
	}
}

// Identity is node.Engine.Identity, journalled.
func (r *engineRef) Identity(dead, recreated []node.TopicID) error {
	err := r.engine().Identity(dead, recreated)
	r.note(engineCall{kind: callIdentity, dead: dead, recreated: recreated})
	return err
}

// Receive is node.Engine.Receive, journalled.
func (r *engineRef) Receive(ch node.Channel, pos node.Offset, rec node.Record) (node.ReceiveOutcome, error) {
	out, err := r.engine().Receive(ch, pos, rec)
	r.note(engineCall{kind: callReceive, ch: ch, pos: pos, rec: rec})
	return out, err
}

// Next is node.Engine.Next, journalled.
func (r *engineRef) Next() (node.Delivery, bool) {
	d, ok := r.engine().Next()
	r.note(engineCall{kind: callNext})
	return d, ok
}

// Emit is node.Engine.Emit, journalled.
func (r *engineRef) Emit(ch node.Channel, rec node.Record) (node.Record, error) {
	out, err := r.engine().Emit(ch, rec)
	r.note(engineCall{kind: callEmit, ch: ch, rec: rec})
	return out, err
}

// Commit is node.Engine.Commit, journalled.
func (r *engineRef) Commit() node.Delta {
	d := r.engine().Commit()
	r.note(engineCall{kind: callCommit})
	return d
}

// Refusal is node.Engine.Refusal.
func (r *engineRef) Refusal() *node.Refusal { return r.view().Refusal() }

// Counters is node.Engine.Counters.
func (r *engineRef) Counters() node.Counters { return r.view().Counters() }

// Status is node.Engine.Status.
func (r *engineRef) Status() node.Status { return r.view().Status() }

// clone returns a reference for a cloned world: it reads r's engine and copies it on its first
// change, and shares the journal's immutable parts. r's engine must not change afterwards.
func (r *engineRef) clone() *engineRef {
	if r == nil {
		return nil
	}
	if r.j == nil {
		panic("sim: cloning a world whose engines are not journalled (RunOptions.journal)")
	}
	j := *r.j
	j.calls = j.calls[:len(j.calls):len(j.calls)]
	src := r.eng
	if src == nil {
		src = r.src
	}
	return &engineRef{src: src, j: &j}
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

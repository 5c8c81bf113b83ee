// Package engine holds a process's engine (node.Engine) behind a reference that the explorer's
// clones share copy-on-write, with the journal a canonical hash may need and the hash's cache.
//
// A cloned world's engine is copied (node.Engine.Clone) from the engine it was cloned from
// lazily, the first time the clone calls a method that changes it, so a transition pays only for
// the engine it touches; until then reads go to the source, which is never changed again (the
// explorer steps only clones; a world that has been cloned is only read).
//
// The canonical hash of an engine is cached in its reference, keyed by (engine, number of changing
// calls made to it): an engine shared as a clone's source never changes again, and the cached key
// keeps the engine reachable, so its address is not reused. Under SABOTAGE_DROP_HELD the engine's
// snapshot leaves out holds the engine still has, so the hash encodes the calls as well: only
// then are calls journalled (in a journalled reference: Ref.Journal). A reference that is not
// journalled counts calls and journals nothing.
package engine

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
)

// Ref is the engine of a process's current execution.
type Ref struct {
	eng *node.Engine // nil in a clone until its first change
	// src is the engine a clone copies on its first change (read-only meanwhile); nil once eng is
	// set.
	src *node.Engine
	// changes counts the changing calls made to the engine since Start (a clone inherits it).
	changes int
	j       *Journal // nil when the world does not journal
	hash    hashCache
	// spare, in a process's storage reference, is an engine no world reads any more, whose
	// storage the copy on the first change reuses (node.Engine.CloneInto); nil once used (it is
	// then eng).
	spare *node.Engine
}

// hashCache is an engine's cached canonical hash: valid while by is the hasher and the reference
// reads eng after changes changing calls. Holding eng keeps the engine reachable, so its address
// is not reused by another engine.
type hashCache struct {
	by      any
	eng     *node.Engine
	changes int
	key     explore.HashKey
}

// Journal is node.Start's arguments and, under SABOTAGE_DROP_HELD, every call since. calls is
// append-only and shared between clones with its capacity clipped, so an append on either side
// never writes into the other's view.
type Journal struct {
	start *node.State
	init  node.Init
	opts  node.Options
	calls []Call
}

// CallKind is the kind of a journalled call.
type CallKind uint8

// The journalled calls.
const (
	CallIdentity CallKind = iota + 1
	CallReceive
	CallNext
	CallEmit
	CallCommit
)

// Call is one journalled call: its kind, channel and position (what the hash encodes).
type Call struct {
	Kind CallKind
	Ch   node.Channel
	Pos  node.Offset
}

// Start makes r the reference of eng, a newly started engine.
func (r *Ref) Start(eng *node.Engine) { *r = Ref{eng: eng} }

// Journal makes r keep node.Start's arguments (start, init, opts) in j, and the calls the hash
// needs: an explored world's references are journalled.
func (r *Ref) Journal(j *Journal, start *node.State, init node.Init, opts node.Options) {
	*j = Journal{start: start, init: init, opts: opts}
	r.j = j
}

// Calls returns the calls journalled since the start: under SABOTAGE_DROP_HELD, in a journalled
// reference, every changing call; otherwise none.
func (r *Ref) Calls() []Call {
	if r.j == nil || r.j.opts.Sabotage != node.SabotageDropHeld {
		return nil
	}
	return r.j.calls
}

// CachedHash returns the engine's canonical hash as hasher by last stored it (SetHash), if the
// engine has not changed since.
func (r *Ref) CachedHash(by any) (explore.HashKey, bool) {
	h := &r.hash
	return h.key, h.by == by && h.eng == r.View() && h.changes == r.changes
}

// SetHash stores key as the engine's canonical hash, as hasher by computed it.
func (r *Ref) SetHash(by any, key explore.HashKey) {
	r.hash = hashCache{by: by, eng: r.View(), changes: r.changes, key: key}
}

// engine returns the live engine for a call that may change it, copying the source in a clone.
func (r *Ref) engine() *node.Engine {
	if r.eng == nil {
		if r.spare != nil {
			r.eng, r.src, r.spare = r.src.CloneInto(r.spare), nil, nil
		} else {
			r.eng, r.src = r.src.Clone(), nil
		}
	}
	return r.eng
}

// View returns the engine for a read-only call: the source itself in a clone not yet changed.
func (r *Ref) View() *node.Engine {
	if r.eng == nil {
		return r.src
	}
	return r.eng
}

// note counts one changing call and journals it when the hash needs the calls.
func (r *Ref) note(kind CallKind, ch node.Channel, pos node.Offset) {
	r.changes++
	if r.j != nil && r.j.opts.Sabotage == node.SabotageDropHeld {
		r.j.calls = append(r.j.calls, Call{Kind: kind, Ch: ch, Pos: pos})
	}
}

// Identity is node.Engine.Identity, journalled.
func (r *Ref) Identity(dead, recreated []node.TopicID) error {
	err := r.engine().Identity(dead, recreated)
	r.note(CallIdentity, node.Channel{}, 0)
	return err
}

// Receive is node.Engine.Receive, journalled.
func (r *Ref) Receive(ch node.Channel, pos node.Offset, rec node.Record) (node.ReceiveOutcome, error) {
	out, err := r.engine().Receive(ch, pos, rec)
	r.note(CallReceive, ch, pos)
	return out, err
}

// Next is node.Engine.Next, journalled. An engine that holds nothing or has refused delivers
// nothing and Next leaves it as it is, so then a clone does not copy its source. Outside
// SABOTAGE_DROP_HELD such a call is not counted either: the engine, and so its cached hash, is
// unchanged. Under it the call is journalled as always, since the hash encodes the calls.
func (r *Ref) Next() (node.Delivery, bool) {
	if v := r.View(); v.HeldCount() == 0 || v.Refusal() != nil {
		if r.j != nil && r.j.opts.Sabotage == node.SabotageDropHeld {
			r.note(CallNext, node.Channel{}, 0)
		}
		return node.Delivery{}, false
	}
	d, ok := r.engine().Next()
	r.note(CallNext, node.Channel{}, 0)
	return d, ok
}

// Emit is node.Engine.Emit, journalled.
func (r *Ref) Emit(ch node.Channel, rec node.Record) (node.Record, error) {
	out, err := r.engine().Emit(ch, rec)
	r.note(CallEmit, ch, 0)
	return out, err
}

// Commit is node.Engine.Commit, journalled. The delta's lists live in the engine's reused room
// (node.Engine.CommitReused): the caller applies it at once and keeps none of them.
//
// A commit leaves the engine's canonical encoding as it was (the world's hash encodes the engine's
// ordering state in committed form, node.Engine.AppendCanonical, as Snapshot would give it, its
// floors and its refusal), and a commit only marks the step's changes committed. The one exception
// is SABOTAGE_DROP_HELD, where a commit drops holds the snapshot leaves out and the journal, which
// the encoding holds, gains the call. So a hash cached before the commit stays true after it.
// A verifying hasher recomputes it and would find it stale.
func (r *Ref) Commit() node.Delta {
	fresh := r.hash.eng == r.View() && r.hash.changes == r.changes
	d := r.engine().CommitReused()
	r.note(CallCommit, node.Channel{}, 0)
	if fresh && r.View().Options().Sabotage != node.SabotageDropHeld {
		r.hash.eng, r.hash.changes = r.View(), r.changes
	}
	return d
}

// Refusal is node.Engine.Refusal.
func (r *Ref) Refusal() *node.Refusal { return r.View().Refusal() }

// Counters is node.Engine.Counters.
func (r *Ref) Counters() node.Counters { return r.View().Counters() }

// Status is node.Engine.Status.
func (r *Ref) Status() node.Status { return r.View().Status() }

// CloneInto returns a reference for a cloned world, in the storage of c (the owning process's
// storage reference): it reads r's engine and copies it on its first change (into c's spare
// engine, when it has one), and shares the journal's immutable parts. r's engine must not change
// afterwards. It returns nil when r is nil. A reference that is not journalled (a world that
// is not explored: the restart check's fork of a run) gives a clone that journals nothing either.
func (r *Ref) CloneInto(c *Ref) *Ref {
	if r == nil {
		return nil
	}
	j := r.j
	if j != nil && j.opts.Sabotage == node.SabotageDropHeld { // only then are calls appended (note)
		cp := *r.j
		cp.calls = cp.calls[:len(cp.calls):len(cp.calls)]
		j = &cp
	}
	*c = Ref{src: r.View(), changes: r.changes, j: j, hash: r.hash, spare: c.spare}
	return c
}

// Storage returns the engine a storage reference holds, its copy or its unused spare, for its
// next life (Reset), or nil.
func (r *Ref) Storage() *node.Engine {
	if r.eng != nil {
		return r.eng
	}
	return r.spare
}

// Reset empties a storage reference, keeping spare (an engine no world reads any more, or nil)
// for the next copy on a first change.
func (r *Ref) Reset(spare *node.Engine) { *r = Ref{spare: spare} }

// TakeSpare returns a storage reference's unused spare engine, which it gives up, or nil.
func (r *Ref) TakeSpare() *node.Engine {
	e := r.spare
	r.spare = nil
	return e
}

// Frontier is node.Engine.Frontier.
func (r *Ref) Frontier() node.Causes { return r.View().Frontier() }

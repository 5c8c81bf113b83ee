package world

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/chanindex"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world/canon"
	"github.com/parsleysim/parsleysim/sim/world/engine"
	"github.com/parsleysim/parsleysim/sim/world/streams"
	"github.com/parsleysim/parsleysim/substrate"
)

// Cloning a world for the explorer. A clone is an independent world that continues exactly as
// the original would: same substrate, same shadow logs and messages, same hosts, engines (copied
// from the original's on their first change: package engine) and oracle. What a run only reports
// (the latency samples, the trace) is not carried over; the stats are.
//
// Sharing rules: everything immutable after creation is shared (scenario, topic specs, message
// pasts and payloads, journal prefixes); frontiers the oracle keeps copy-on-write are marked
// shared on both sides; the committed ordering state is shared copy-on-write
// (proc.committedShared); everything else is copied. TestCloneCoversEveryField fails when a field
// is added to a cloned struct, so this file is revisited.

// cloneInto returns a deep copy of w whose topic IDs continue from ids (the clone's own copy of the
// ID stream's PCG: the clone issues the IDs the original would have) and whose Chooser is ch,
// reusing the storage of into, when not nil: a world the explorer is done with (explorer.release),
// whose struct, process shells, substrate struct, recorder and topic, incarnation and channel
// slices are its own — a clone copies all of them — and so can be overwritten. Reusing them spares
// the allocator and the collector most of a transition's garbage.
func (w *World) cloneInto(into *World, ids *rand.PCG, ch choose.Chooser) *World {
	var old worldStorage
	c := into
	if c != nil {
		old = worldStorage{chooser: c.chooser, model: c.model, topics: c.topics, incs: c.incs, chans: c.chans, orStore: c.or.Storage(),
			weights: c.weights, offsetBuf: c.offsetBuf, procBuf: c.procBuf, groupBuf: c.groupBuf, script: c.script,
			procs:   c.procs,
			idsRand: c.idsRand, idsFn: c.idsFn}
	} else {
		c = new(World)
	}
	*c = *w
	c.targets = nil
	c.chooser = old.chooser
	if c.chooser == nil {
		c.chooser = new(choose.Recorder)
	}
	c.chooser.Reset(ch)
	c.bindIDs(&old, ids)
	c.model = w.model.CloneInto(old.model, c.idsFn)
	c.sub = c.model
	c.topics = append(old.topics[:0], w.topics...)
	c.incs = append(old.incs[:0], w.incs...)
	c.chans = append(old.chans[:0], w.chans...)
	c.or.CloneFrom(&w.or, old.orStore)
	c.ext.openUIDs = slices.Clone(w.ext.openUIDs)
	c.ext.openChans = slices.Clone(w.ext.openChans)
	w.shareRefusals(c)
	c.stats.Session = maps.Clone(w.stats.Session)
	c.weights, c.offsetBuf, c.procBuf, c.groupBuf = old.weights, old.offsetBuf, old.procBuf, old.groupBuf
	c.script = old.script[:0] // a released world's buffer (the explorer empties it after each step)
	c.procs = old.procs
	if len(c.procs) != len(w.procs) {
		c.procs = make([]*proc, len(w.procs))
	}
	for i, p := range w.procs {
		c.procs[i] = p.cloneInto(c.procs[i], c)
		c.or.SetProc(i, &c.procs[i].o)
	}
	c.or.SetReporter(c)
	c.sess = w.sess.Clone((*sessionHost)(c), &c.or, c.sub)
	return c
}

// shareRefusals makes c's refusal counts (a copy of w's, World.cloneInto) share w's map
// copy-on-write: a transition rarely refuses, so most clones never copy it.
func (w *World) shareRefusals(c *World) {
	c.stats.Refusals = w.stats.Refusals
	if w.stats.Refusals != nil {
		w.refusalsShared, c.refusalsShared = true, true
	}
}

// worldStorage is what cloneInto reuses of a recycled world: the storage it held before the clone
// overwrote it.
type worldStorage struct {
	chooser   *choose.Recorder
	model     *substrate.Model
	topics    []topicState
	incs      []incarnation
	chans     []channel
	orStore   oracle.Storage
	weights   choose.Weights
	offsetBuf []int64
	procBuf   []*proc
	groupBuf  []substrate.GroupOffset
	script    []spec.ScriptedAction
	procs     []*proc
	idsRand   *rand.Rand
	idsFn     func() substrate.TopicID
}

// bindIDs makes c's topic IDs continue from ids: a copy of it in c.idsPCG, drawn through
// c.idsRand and c.idsFn, which are bound to c's own idsPCG and so are reused when c is a recycled
// world (old is what it held before the clone overwrote it).
func (c *World) bindIDs(old *worldStorage, ids *rand.PCG) {
	c.idsPCG = *ids
	c.idsRand, c.idsFn = old.idsRand, old.idsFn
	if c.idsRand == nil {
		c.idsRand = rand.New(&c.idsPCG)
		c.idsFn = streams.Streams{IDs: c.idsRand}.TopicIDs()
	}
	c.streams.IDs = c.idsRand
}

// procShare is a process's copy-on-write bookkeeping (world_clone.go) and its cached canonical
// hashes (explore_hash.go).
type procShare struct {
	// shared says the process's deep state — channel states, received channels, declaration,
	// step channels, engine reference and the oracle's step log — is shared with a process of
	// another world (its clone or its original): own copies it before the first change.
	shared bool
	// hashes are the process's cached canonical hashes (package canon): own forgets the
	// process's own; a clone's shell inherits them (the original is never changed after it is
	// cloned, so they stay true in the clone until the clone owns the process).
	hashes canon.Caches
}

// cloneInto copies p's shell into world w, into the storage of c when not nil (a process shell of
// a world the explorer is done with: World.cloneInto): every field of the struct, with the deep
// state shared (procShare) until own. A transition changes at most the processes it acts on, so
// most processes of a clone are never deep-copied.
func (p *proc) cloneInto(c *proc, w *World) *proc {
	if c == nil {
		c = new(proc)
	}
	store := c.storage() // the shell's own storage (p's is not c's to reuse), free again
	store.inUse = false
	store.pool.Recycle() // every frontier, state and engine made in it belonged to released worlds
	// The shell's own buffers, which its earlier worlds filled: a clone starts with none (below).
	lat, fetched := c.o.LatencyBuffer(), c.fetchBuf[:0]
	// The engine the shell's engStore copied into, or its unused spare, or one its starts built:
	// free again as well.
	spare := c.engStore.Storage()
	if spare == nil {
		spare = store.pool.FreeEngine()
	}
	*c = *p
	c.store = store
	c.engStore.Reset(spare) // not p's: c reads p.eng until it owns its state
	c.w = w
	p.share.shared, c.share.shared = true, true
	// resolved and everResolved are shared for good: resolve replaces them rather than changing
	// them.
	if p.committed != nil {
		p.committedShared, c.committedShared = true, true
	}
	p.ref.ShareWith(&c.ref) // the live model is cloned on its first change
	p.o.ShareWith(&c.o, lat)
	c.fetchBuf = fetched
	return c
}

// own prepares p for a change: it forgets p's cached hash and, if p's deep state is shared with
// another world's process, copies it. Every action calls it on each process it may change before
// changing it (World.do, livenessPhase).
func (p *proc) own() {
	p.share.hashes.Forget()
	p.w.targets.Stale(p.idx)
	if !p.share.shared {
		return
	}
	p.share.shared = false
	// declared is shared for good: redeclare replaces it rather than changing it in place.
	p.eng = p.eng.CloneInto(&p.engStore)
	p.stepChans = slices.Clone(p.stepChans)
	p.ownChannelStates()
	p.o.Own(&p.storage().oracle)
}

// storage returns p's shell storage, allocating it on first use.
func (p *proc) storage() *procStore {
	if p.store == nil {
		p.store = new(procStore)
	}
	return p.store
}

// procStore is the storage a process shell's own copies its state into: allocated the first time
// and reused whenever the shell is recycled (World.cloneInto) — by then the world it belonged to
// and every world that shared its storage are released, so nothing reads it any more.
type procStore struct {
	pcs    chanindex.Index[pcState]
	recv   []*pcState
	states []pcState
	oracle oracle.ProcStore // the oracle's channel states and step log (oracle.Proc.Own)
	// pool is the engines, committed states and frontier copies the shell made (package engine).
	pool engine.Pool
	// inUse says the shell's current state lives in it.
	inUse bool
}

// deadEngine returns an engine no world reads any more for p's start to build in (StartInto), or
// nil: one an earlier life of the shell started, else the shell's spare (one its copy has not
// used, or p's last engine: dropEngine); and storage for the start's reference: outside the
// explorer the last start's when that start built the engine (nothing reads it either), else new.
func (p *proc) deadEngine() (e *node.Engine, se *startedEngine) {
	if p.store != nil {
		e = p.store.pool.FreeEngine()
	}
	if e == nil {
		e = p.engStore.TakeSpare()
	}
	se = p.started
	if se == nil || e == nil || p.w.opts.explored || se.ref.Storage() != e {
		se = new(startedEngine)
	}
	return e, se
}

// dropEngine ends the execution's engine and reference model. Outside the explorer, an engine no
// other world (a fork) shares is read by nothing any more: p's next start builds in it.
func (p *proc) dropEngine() {
	if p.eng != nil && !p.w.opts.explored && !p.share.shared {
		p.engStore.Reset(p.eng.Storage())
	}
	p.eng = nil
	p.ref.Drop()
}

// noteStarted records an engine a start of the shell built, to be reused once the shell is
// recycled (none for a shell with no storage).
func (st *procStore) noteStarted(e *node.Engine) {
	if st != nil {
		st.pool.NoteStarted(e)
	}
}

// committedStorage returns a committed state to clone into (node.State.CloneInto) from the
// shell's pool, or a new one for a shell with no storage (outside the explorer).
func (st *procStore) committedStorage() *node.State {
	if st == nil {
		return new(node.State)
	}
	return st.pool.CommittedStorage()
}

// CauseRoom implements the oracle's frontier storage (oracle.Proc.Own's copies) from the pool.
func (st *procStore) CauseRoom(n int) []node.Cause { return st.pool.CauseRoom(n) }

// ownChannelStates copies p's channel states (pcs, recv) into the shell's store, emptied first if
// p reads it already.
func (p *proc) ownChannelStates() {
	st := p.storage()
	if st.inUse {
		*st = procStore{} // p reads its own store (never in an exploration): copy to fresh storage
	}
	st.inUse = true
	states, vals := reuse(st.states, p.pcs.Len()), st.pcs.Values()[:0]
	for _, pc := range p.pcs.Values() {
		states = append(states, *pc)
		vals = append(vals, &states[len(states)-1])
	}
	st.pcs.Rebuild(p.pcs, vals)
	index := st.pcs
	recv := st.recv[:0]
	for _, pc := range p.recv {
		recv = append(recv, index.At(pc.ch))
	}
	st.pcs, st.states, st.recv = index, states, recv
	p.pcs, p.recv = index, recv
}

// reuse returns s emptied, or a new empty slice when s cannot hold n elements.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// ownAll is own for every process (an action that may change any of them).
func (w *World) ownAll() {
	for _, p := range w.procs {
		p.own()
	}
}

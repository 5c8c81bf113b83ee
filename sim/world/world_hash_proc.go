package world

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
	"github.com/parsleysim/parsleysim/sim/state"
	"github.com/parsleysim/parsleysim/substrate"
)

// The canonical encoding of a process: declaration, host state, oracle knowledge, committed
// ordering state, engine. The world's encoding holds only the hash of each process's encoding,
// cached in the process (procShare) until the process changes: a transition changes one process,
// so the others' hashes are reused from the world it was cloned from. The encoding of a process
// depends on the rest of the world only through things no action that leaves the process alone
// changes (channel and incarnation numbering, its group's committed offsets). Within a process
// the committed state and the engine are the costly parts, so their hashes are cached as well:
// a committed state in the process by identity once it is marked shared (copy-on-write: it never
// changes again), an engine in its reference by its identity and the number of changing calls
// made to it (package engine).

// stateHash is a committed state's cached hash (in its process's procShare): valid while by is
// the hasher and the process's committed state is st (which never changes in place once hashed:
// committedShared). Holding st keeps its address from being reused.
type stateHash struct {
	by  *stateHasher
	st  *node.State
	key explore.HashKey
}

// procHashCaches are the stateHasher's caches.
type procHashCaches struct {
	undo     oracle.UndoScratch      // scratch for the oracle's encoding of an open step
	of       *proc                   // the process whose oracle view is being encoded (AppendFrontier)
	sub      []byte                  // scratch encoding for a cached part
	msg      []byte                  // scratch encoding of a message's content (msgDigest)
	chanLog  []byte                  // scratch encoding of a channel's shadow log (chanDigest)
	frontier []byte                  // scratch encoding of a frontier (appendFrontier)
	resolved []byte                  // scratch encoding of a process's resolved topics (appendResolved)
	free     rollbackFreeMemo        // settingsRollbackFree's answers
	proc     []byte                  // scratch encoding of a process
	steps    []int32                 // scratch: a process's step channels, sorted
	group    []groupEntry            // scratch: a process's committed offsets by channel index
	offsets  []substrate.GroupOffset // scratch: a process's committed offsets
}

// groupEntry is one committed group offset by world channel index.
type groupEntry struct{ c, off int64 }

// appendProc appends the hash of p's canonical encoding, cached in p until it changes. Whether p
// is encoded rollback-free depends on the world (explore_canonical.go), so it is decided every
// time, but either encoding depends on p alone: each has its cache. worldFree is
// worldRollbackFree (false for an exact hasher).
func (h *stateHasher) appendProc(b []byte, p *proc, worldFree bool) []byte {
	free := worldFree && procRollbackFree(p)
	hash, by := &p.share.hash, &p.share.hashedBy
	if free {
		hash, by = &p.share.freeHash, &p.share.freeBy
	}
	if *by != h || h.verify {
		c := h.caches
		c.proc = h.encodeProc(c.proc[:0], p, free)
		key := h.sum(c.proc)
		h.checkCached(*by == h && *hash != key, "process", p)
		*hash, *by = key, h
	}
	b = binary.LittleEndian.AppendUint64(b, hash[0])
	return binary.LittleEndian.AppendUint64(b, hash[1])
}

// encodeProc appends the canonical encoding of p; free (rollback-free, explore_canonical.go)
// leaves out what only a rollback or a restart would read.
func (h *stateHasher) encodeProc(b []byte, p *proc, free bool) []byte {
	w := p.w
	if !h.exact && p.status == procFailed && w.sess == nil {
		return appendFailed(b, p) // only the lifetime S1 check reads it (explore_canonical.go)
	}
	b = state.AppendBool(b, free)
	b = append(b, byte(p.status))
	b = state.AppendBool(b, p.txnOpen)
	b = state.AppendBool(b, p.stepDirty)
	b = state.AppendBool(b, p.drainable)
	b = state.AppendString(b, p.refusalWhy)
	b = binary.AppendUvarint(b, uint64(len(p.declared)))
	for _, t := range p.declared {
		b = binary.AppendUvarint(b, uint64(t))
	}
	b = h.appendResolved(b, p)
	b = binary.AppendUvarint(b, uint64(len(p.recv)))
	for _, pc := range p.recv {
		b = binary.AppendUvarint(b, uint64(pc.ch))
	}
	for _, pc := range p.pcs.Values() { // sorted by channel
		b = binary.AppendUvarint(b, uint64(pc.ch)+1)
		b = appendPC(b, pc, free)
	}
	b = append(b, 0)
	steps := p.stepChans
	if len(steps) > 1 { // a step mostly sends to one channel or none
		steps = append(h.caches.steps[:0], steps...)
		slices.Sort(steps)
		steps = slices.Compact(steps)
		h.caches.steps = steps
	}
	b = binary.AppendUvarint(b, uint64(len(steps)))
	for _, c := range steps {
		b = binary.AppendUvarint(b, uint64(c))
	}
	h.caches.of = p
	b = w.or.AppendProc(b, h, &p.o, free)
	if !free {
		b = h.appendGroup(b, p)
		b = h.appendCommitted(b, p)
	}
	b = h.appendRef(b, p, free)
	return h.appendEngine(b, p)
}

// appendPC appends one (process, channel) state.
func appendPC(b []byte, pc *pcState, free bool) []byte {
	b = state.AppendBool(b, pc.received)
	b = binary.AppendVarint(b, pc.readPos)
	b = binary.AppendVarint(b, pc.lastFed)
	b = binary.AppendVarint(b, pc.startPos)
	if !free {
		b = binary.AppendVarint(b, pc.committedPos)
	}
	return b
}

// appendGroup appends p's committed consumer-group offsets, by channel index.
func (h *stateHasher) appendGroup(b []byte, p *proc) []byte {
	offs := p.w.appendCommittedOffsets(h.caches.offsets[:0], p.group)
	h.caches.offsets = offs
	es := h.caches.group[:0]
	for _, o := range offs {
		nc := node.Channel{Topic: node.TopicID(o.Topic), Partition: node.Partition(o.Partition)}
		es = append(es, groupEntry{int64(p.w.nodeChan(nc)), int64(o.Offset)})
	}
	slices.SortFunc(es, func(a, b groupEntry) int { return cmp.Compare(a.c, b.c) })
	h.caches.group = es
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendVarint(b, e.c)
		b = binary.AppendVarint(b, e.off)
	}
	return b
}

// appendCommitted appends the hash of p's committed ordering state, cached in p by identity once
// the state is marked shared.
func (h *stateHasher) appendCommitted(b []byte, p *proc) []byte {
	if p.committed == nil {
		return append(b, 0)
	}
	p.committedShared = true // from now on a commit clones it, so the cached hash stays valid
	sh := &p.share.committed
	if sh.by != h || sh.st != p.committed || h.verify {
		c := h.caches
		c.sub = p.committed.AppendCanonical(c.sub[:0], worldEncoder{p.w})
		key := h.sum(c.sub)
		h.checkCached(sh.by == h && sh.st == p.committed && sh.key != key, "committed state", p)
		*sh = stateHash{by: h, st: p.committed, key: key}
	}
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint64(b, sh.key[0])
	return binary.LittleEndian.AppendUint64(b, sh.key[1])
}

// appendEngine appends the hash of p's engine, cached in its reference by engine and change
// count (a clone's reference inherits it: it reads the same engine until it changes it).
func (h *stateHasher) appendEngine(b []byte, p *proc) []byte {
	r := p.eng
	if r == nil {
		return append(b, 0)
	}
	key, ok := r.CachedHash(h)
	if !ok || h.verify {
		c := h.caches
		c.sub = appendEngineState(c.sub[:0], p)
		fresh := h.sum(c.sub)
		h.checkCached(ok && key != fresh, "engine", p)
		key = fresh
		r.SetHash(h, key)
	}
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint64(b, key[0])
	return binary.LittleEndian.AppendUint64(b, key[1])
}

// appendEngineState encodes a live engine: its whole ordering state (as its Snapshot would
// encode, node.Engine.AppendCanonical), the session floor of each received channel and its
// refusal. Under SABOTAGE_DROP_HELD the snapshot leaves out holds the engine still has, so the
// journal is encoded as well.
func appendEngineState(b []byte, p *proc) []byte {
	w, eng := p.w, p.eng
	live := eng.View()
	b = live.AppendCanonical(b, worldEncoder{w})
	b = live.AppendCanonicalFloors(b)
	if r := live.Refusal(); r != nil {
		b = state.AppendString(b, string(r.Reason))
	}
	b = append(b, 0)
	calls := eng.Calls()
	for i := range calls {
		c := &calls[i]
		b = append(b, byte(c.Kind))
		b = appendNodeChan(b, w, c.Ch)
		b = binary.AppendVarint(b, int64(c.Pos))
	}
	return b
}

// worldEncoder names channels and topic IDs canonically for node's encoders: a channel by its
// world channel index, a topic ID by its incarnation index.
type worldEncoder struct{ w *World }

// AppendChannel implements node.CanonicalEncoder.
func (e worldEncoder) AppendChannel(b []byte, nc node.Channel) []byte {
	return appendNodeChan(b, e.w, nc)
}

// AppendTopic implements node.CanonicalEncoder.
func (e worldEncoder) AppendTopic(b []byte, id node.TopicID) []byte { return appendTopicID(b, e.w, id) }

// checkCached panics when stale says a cached hash of p's part differs from the one just
// recomputed (only a verifying hasher recomputes a cached hash: stateHasher.verify).
func (h *stateHasher) checkCached(stale bool, part string, p *proc) {
	if stale {
		panic(fmt.Sprintf("world: the cached hash of the %s of process %s is stale: a change to it did not clear it", part, p.spec.Name))
	}
}

// refHashes caches the canonical hashes of a process's reference node (appendRef).
type refHashes struct {
	live      refLiveHash
	committed refCommittedHash
}

// refLiveHash is a live model's cached hash: valid while by is the hasher and the reference
// holds live after changes calls (holding live keeps its address from being reused).
type refLiveHash struct {
	by      *stateHasher
	live    *refnode.Node
	changes int
	key     explore.HashKey
}

// refCommittedHash is a committed model state's cached hash: committed states never change.
type refCommittedHash struct {
	by  *stateHasher
	st  *refnode.State
	key explore.HashKey
}

// appendRef appends p's reference node: whether it still judges p, the hash of its live
// execution and (unless free: only a restart reads it) of its committed state, each cached in
// p.refHash. On a path where the model never disagreed with an honest engine it means what the
// engine's state means, but an engine that deviates from SPEC can reach one engine state by two
// paths on which the models differ, and the model decides how the path's future is judged: so
// it is part of the state.
func (h *stateHasher) appendRef(b []byte, p *proc, free bool) []byte {
	r := &p.ref
	b = state.AppendBool(b, r.Off())
	if live := r.Live(); live == nil {
		b = append(b, 0)
	} else {
		lh, changes := &p.refHash.live, r.Changes()
		if lh.by != h || lh.live != live || lh.changes != changes || h.verify {
			c := h.caches
			c.sub = live.AppendCanonical(c.sub[:0], refEncoder{p.w})
			key := h.sum(c.sub)
			h.checkCached(lh.by == h && lh.live == live && lh.changes == changes && lh.key != key, "reference node", p)
			*lh = refLiveHash{by: h, live: live, changes: changes, key: key}
		}
		b = appendKey(append(b, 1), lh.key)
	}
	if free {
		return b
	}
	ch, st := &p.refHash.committed, r.Committed()
	if ch.by != h || ch.st != st || h.verify {
		c := h.caches
		c.sub = st.AppendCanonical(c.sub[:0], refEncoder{p.w})
		key := h.sum(c.sub)
		h.checkCached(ch.by == h && ch.st == st && ch.key != key, "reference committed state", p)
		*ch = refCommittedHash{by: h, st: st, key: key}
	}
	return appendKey(b, ch.key)
}

// appendKey appends a hash key.
func appendKey(b []byte, k explore.HashKey) []byte {
	b = binary.LittleEndian.AppendUint64(b, k[0])
	return binary.LittleEndian.AppendUint64(b, k[1])
}

// refEncoder names the reference node's channels and topic IDs as worldEncoder names node's.
type refEncoder struct{ w *World }

// AppendChannel implements refnode.Encoder.
func (e refEncoder) AppendChannel(b []byte, c refnode.Channel) []byte {
	return appendNodeChan(b, e.w, node.Channel{Topic: node.TopicID(c.Topic), Partition: node.Partition(c.Partition)})
}

// AppendTopic implements refnode.Encoder.
func (e refEncoder) AppendTopic(b []byte, t refnode.TopicID) []byte {
	return appendTopicID(b, e.w, node.TopicID(t))
}

package canon

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
	"github.com/parsleysim/parsleysim/sim/world/engine"
	"github.com/parsleysim/parsleysim/substrate"
)

// The canonical encoding of a process: declaration, host state, oracle knowledge, committed
// ordering state, engine, reference node. The world's encoding holds only the hash of each
// process's encoding, cached in the process (Caches) until the process changes: a transition
// changes one process, so the others' hashes are reused from the world it was cloned from. The
// encoding of a process depends on the rest of the world only through things no action that
// leaves the process alone changes (channel and incarnation numbering, its group's committed
// offsets). Within a process the committed state, the engine and the reference node are the
// costly parts, so their hashes are cached as well: a committed state by identity once it is
// marked shared (copy-on-write: it never changes again, ProcView.Committed), an engine in its
// reference by its identity and the number of changing calls made to it (package engine), the
// reference node's live model by identity and change count, its committed state by identity.

// ProcView is one process as the hash reads it: RollbackFree at every hash of a world that is
// rollback-free, the rest only when the process's cached hash is stale.
type ProcView interface {
	// Read fills s with the process's state, reusing s's slices.
	Read(s *ProcState)
	// Committed returns the process's committed ordering state (nil: none), marked shared so that
	// it never changes in place again (the hash caches it by identity).
	Committed() *node.State
	// AppendGroupOffsets appends the committed offsets of the process's consumer group.
	AppendGroupOffsets(dst []substrate.GroupOffset) []substrate.GroupOffset
	// AppendChannels appends the canonical encoding of the process's channels: the received
	// channels, each channel it ever received with its read state (the committed position only
	// when not free: rollback-free, abstract.go), and the open step's channels as a set.
	AppendChannels(b []byte, free bool) []byte
	// RollbackFree reports the process's part of being rollback-free (abstract.go): it is
	// running, runs no custom handler, and no feed of it can refuse (no received channel read
	// below its log start or with an unread corrupt or forged record).
	RollbackFree() bool
}

// ProcState is a process's state as its encoding reads it (ProcView.Read fills it).
type ProcState struct {
	Name   string
	Status uint8
	// Failed says the process failed closed.
	Failed                        bool
	TxnOpen, StepDirty, Drainable bool
	RefusalWhy                    string
	// Declared are the topics declared received, sorted.
	Declared []int
	// Resolved and EverResolved are the incarnation resolved per declared topic at the last full
	// start and every topic ever resolved; they are replaced, never changed in place, and whatever
	// replaces them clears *ResolvedDigest, their cached digest (digest.go).
	Resolved       map[int]int32
	EverResolved   map[int]bool
	ResolvedDigest *uint64
	Oracle         *oracle.Proc
	Engine         *engine.Ref
	Ref            *oracle.Reference
}

// Caches are a process's cached hashes, kept in the process. A clone's process copies them: the
// original is never changed after it is cloned, so they stay true in the clone until the clone
// changes the process, and whatever changes a process calls Forget first.
type Caches struct {
	// hashBy, when set, is the hasher whose hash of the process as it is now is hash; freeBy and
	// free are the same for the rollback-free encoding (abstract.go).
	hashBy, freeBy *Hasher
	hash, free     explore.HashKey
	// committed, refLive and refCommitted name what they are the hash of: they stay valid across
	// Forget.
	committed    stateHash
	refLive      refLiveHash
	refCommitted refCommittedHash
}

// Forget drops the process's own hashes, before a change to the process.
func (c *Caches) Forget() { c.hashBy, c.freeBy = nil, nil }

// stateHash is a committed state's cached hash: valid while by is the hasher and the process's
// committed state is st (which never changes in place once hashed). Holding st keeps its address
// from being reused.
type stateHash struct {
	by  *Hasher
	st  *node.State
	key explore.HashKey
}

// refLiveHash is a live reference model's cached hash: valid while by is the hasher and the
// reference holds live after changes calls (holding live keeps its address from being reused).
type refLiveHash struct {
	by      *Hasher
	live    *refnode.Node
	changes int
	key     explore.HashKey
}

// refCommittedHash is a committed reference model state's cached hash: committed states never
// change.
type refCommittedHash struct {
	by  *Hasher
	st  *refnode.State
	key explore.HashKey
}

// scratch is the hasher's reused scratch space.
type scratch struct {
	undo     oracle.UndoScratch      // the oracle's encoding of an open step
	proc     ProcState               // the process being encoded
	sub      []byte                  // encoding of a cached part
	msg      []byte                  // encoding of a message's content (msgDigest)
	chanLog  []byte                  // encoding of a channel's shadow log (chanDigest)
	frontier []byte                  // encoding of a frontier (appendFrontier)
	resolved []byte                  // encoding of a process's resolved topics (appendResolved)
	ids      []node.TopicID          // the incarnations' topic IDs as the world being hashed has them
	free     rollbackFreeMemo        // settingsRollbackFree's answers
	enc      []byte                  // encoding of a process
	group    []groupEntry            // a process's committed offsets by channel index
	offsets  []substrate.GroupOffset // a process's committed offsets
}

// groupEntry is one committed group offset by channel index.
type groupEntry struct{ c, off int64 }

// appendProc appends the hash of p's canonical encoding, cached in p until it changes. Whether p
// is encoded rollback-free depends on the world (abstract.go), so it is decided every time, but
// either encoding depends on p alone: each has its cache. worldFree is worldRollbackFree (false
// for an exact hasher).
func (h *Hasher) appendProc(b []byte, s *State, p *Proc, worldFree bool) []byte {
	free := worldFree && p.View.RollbackFree()
	c := p.Caches
	hash, by := &c.hash, &c.hashBy
	if free {
		hash, by = &c.free, &c.freeBy
	}
	if *by != h || h.Verify {
		sc := &h.scratch
		p.View.Read(&sc.proc)
		sc.enc = h.encodeProc(sc.enc[:0], s, p, free)
		key := h.sum(sc.enc)
		h.checkCached(*by == h && *hash != key, "process")
		*hash, *by = key, h
	}
	return appendKey(b, *hash)
}

// encodeProc appends the canonical encoding of p, whose state is in h.scratch.proc; free
// (rollback-free, abstract.go) leaves out what only a rollback or a restart would read.
func (h *Hasher) encodeProc(b []byte, s *State, p *Proc, free bool) []byte {
	ps := &h.scratch.proc
	if !h.Exact && ps.Failed && s.Sessions == nil {
		return appendFailed(b, s, ps) // only the lifetime S1 check reads it (abstract.go)
	}
	b = state.AppendBool(b, free)
	b = append(b, ps.Status)
	b = state.AppendBool(b, ps.TxnOpen)
	b = state.AppendBool(b, ps.StepDirty)
	b = state.AppendBool(b, ps.Drainable)
	b = state.AppendString(b, ps.RefusalWhy)
	b = binary.AppendUvarint(b, uint64(len(ps.Declared)))
	for _, t := range ps.Declared {
		b = binary.AppendUvarint(b, uint64(t))
	}
	b = h.appendResolved(b, s, ps)
	b = p.View.AppendChannels(b, free)
	b = s.Oracle.AppendProc(b, oracleHasher{h}, ps.Oracle, free)
	if !free {
		b = h.appendGroup(b, s, p.View)
		b = h.appendCommitted(b, s, p)
	}
	b = h.appendRef(b, s, p, free)
	return h.appendEngine(b, ps)
}

// appendGroup appends the process's committed consumer-group offsets, by channel index.
func (h *Hasher) appendGroup(b []byte, s *State, v ProcView) []byte {
	offs := v.AppendGroupOffsets(h.scratch.offsets[:0])
	h.scratch.offsets = offs
	es := h.scratch.group[:0]
	for _, o := range offs {
		nc := node.Channel{Topic: node.TopicID(o.Topic), Partition: node.Partition(o.Partition)}
		es = append(es, groupEntry{int64(s.Oracle.NodeChan(nc)), int64(o.Offset)})
	}
	slices.SortFunc(es, func(a, b groupEntry) int { return cmp.Compare(a.c, b.c) })
	h.scratch.group = es
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = binary.AppendVarint(b, e.c)
		b = binary.AppendVarint(b, e.off)
	}
	return b
}

// appendCommitted appends the hash of p's committed ordering state, cached in p by identity once
// the state is marked shared.
func (h *Hasher) appendCommitted(b []byte, s *State, p *Proc) []byte {
	st := p.View.Committed() // marked shared: from now on a commit clones it
	if st == nil {
		return append(b, 0)
	}
	sh := &p.Caches.committed
	if sh.by != h || sh.st != st || h.Verify {
		sc := &h.scratch
		sc.sub = st.AppendCanonical(sc.sub[:0], nodeEncoder{h})
		key := h.sum(sc.sub)
		h.checkCached(sh.by == h && sh.st == st && sh.key != key, "committed state")
		*sh = stateHash{by: h, st: st, key: key}
	}
	return appendKey(append(b, 1), sh.key)
}

// appendEngine appends the hash of the process's engine, cached in its reference by engine and
// change count (a clone's reference inherits it: it reads the same engine until it changes it).
func (h *Hasher) appendEngine(b []byte, ps *ProcState) []byte {
	r := ps.Engine
	if r == nil {
		return append(b, 0)
	}
	key, ok := r.CachedHash(h)
	if !ok || h.Verify {
		sc := &h.scratch
		sc.sub = appendEngineState(sc.sub[:0], h, r)
		fresh := h.sum(sc.sub)
		h.checkCached(ok && key != fresh, "engine")
		key = fresh
		r.SetHash(h, key)
	}
	return appendKey(append(b, 1), key)
}

// appendEngineState encodes a live engine: its whole ordering state (as its Snapshot would
// encode, node.Engine.AppendCanonical), the session floor of each received channel and its
// refusal. Under SABOTAGE_DROP_HELD the snapshot leaves out holds the engine still has, so the
// journal is encoded as well.
func appendEngineState(b []byte, h *Hasher, eng *engine.Ref) []byte {
	live := eng.View()
	b = live.AppendCanonical(b, nodeEncoder{h})
	b = live.AppendCanonicalFloors(b)
	if r := live.Refusal(); r != nil {
		b = state.AppendString(b, string(r.Reason))
	}
	b = append(b, 0)
	calls := eng.Calls()
	for i := range calls {
		c := &calls[i]
		b = append(b, byte(c.Kind))
		b = appendNodeChan(b, h.st.Oracle, c.Ch)
		b = binary.AppendVarint(b, int64(c.Pos))
	}
	return b
}

// appendRef appends the process's reference node: whether it still judges the process, the hash
// of its live execution and (unless free: only a restart reads it) of its committed state, each
// cached in p's Caches. On a path where the model never disagreed with an honest engine it means
// what the engine's state means, but an engine that deviates from SPEC can reach one engine
// state by two paths on which the models differ, and the model decides how the path's future is
// judged: so it is part of the state.
func (h *Hasher) appendRef(b []byte, s *State, p *Proc, free bool) []byte {
	r, c := h.scratch.proc.Ref, p.Caches
	b = state.AppendBool(b, r.Off())
	if live := r.Live(); live == nil {
		b = append(b, 0)
	} else {
		lh, changes := &c.refLive, r.Changes()
		if lh.by != h || lh.live != live || lh.changes != changes || h.Verify {
			sc := &h.scratch
			sc.sub = live.AppendCanonical(sc.sub[:0], refEncoder{h})
			key := h.sum(sc.sub)
			h.checkCached(lh.by == h && lh.live == live && lh.changes == changes && lh.key != key, "reference node")
			*lh = refLiveHash{by: h, live: live, changes: changes, key: key}
		}
		b = appendKey(append(b, 1), lh.key)
	}
	if free {
		return b
	}
	ch, st := &c.refCommitted, r.Committed()
	if ch.by != h || ch.st != st || h.Verify {
		sc := &h.scratch
		sc.sub = st.AppendCanonical(sc.sub[:0], refEncoder{h})
		key := h.sum(sc.sub)
		h.checkCached(ch.by == h && ch.st == st && ch.key != key, "reference committed state")
		*ch = refCommittedHash{by: h, st: st, key: key}
	}
	return appendKey(b, ch.key)
}

// checkCached panics when stale says a cached hash of a part of the process being encoded
// differs from the one just recomputed (only a verifying hasher recomputes a cached hash).
func (h *Hasher) checkCached(stale bool, part string) {
	if stale {
		panic(fmt.Sprintf("canon: the cached hash of the %s of process %s is stale: a change to it did not clear it", part, h.scratch.proc.Name))
	}
}

// appendNodeChan appends a node channel as its channel index (+1; 0 for a channel the world never
// created).
func appendNodeChan(b []byte, or *oracle.Oracle, nc node.Channel) []byte {
	return binary.AppendUvarint(b, uint64(or.NodeChan(nc)+1))
}

// appendTopicID appends a topic ID as its incarnation index (+1; 0 if unknown).
func (h *Hasher) appendTopicID(b []byte, id node.TopicID) []byte {
	n := h.st.Incarnations
	if len(h.ids) < n || h.Verify {
		h.readIDs()
	}
	for i := range h.ids[:n] {
		if h.ids[i] == id {
			return binary.AppendUvarint(b, uint64(i)+1)
		}
	}
	return append(b, 0)
}

// readIDs reads the incarnations' topic IDs from the world being hashed into h.ids, and panics
// when they contradict the IDs read from another world (Hasher.ids).
func (h *Hasher) readIDs() {
	fresh := h.w.AppendIncarnationIDs(h.scratch.ids[:0])
	h.scratch.ids = fresh
	if k := min(len(h.ids), len(fresh)); !slices.Equal(h.ids[:k], fresh[:k]) {
		panic("canon: two worlds of one exploration gave one incarnation different topic IDs")
	}
	if len(fresh) > len(h.ids) {
		h.ids = append(h.ids[:0], fresh...)
	}
}

// nodeEncoder names channels and topic IDs canonically for node's encoders: a channel by its
// channel index, a topic ID by its incarnation index.
type nodeEncoder struct{ h *Hasher }

// AppendChannel implements node.CanonicalEncoder.
func (e nodeEncoder) AppendChannel(b []byte, nc node.Channel) []byte {
	return appendNodeChan(b, e.h.st.Oracle, nc)
}

// AppendTopic implements node.CanonicalEncoder.
func (e nodeEncoder) AppendTopic(b []byte, id node.TopicID) []byte { return e.h.appendTopicID(b, id) }

// refEncoder names the reference node's channels and topic IDs as nodeEncoder names node's.
type refEncoder struct{ h *Hasher }

// AppendChannel implements refnode.Encoder.
func (e refEncoder) AppendChannel(b []byte, c refnode.Channel) []byte {
	return appendNodeChan(b, e.h.st.Oracle, node.Channel{Topic: node.TopicID(c.Topic), Partition: node.Partition(c.Partition)})
}

// AppendTopic implements refnode.Encoder.
func (e refEncoder) AppendTopic(b []byte, t refnode.TopicID) []byte {
	return e.h.appendTopicID(b, node.TopicID(t))
}

package world

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/state"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The canonical state of a world, for the explorer's deduplication: two worlds with equal
// canonical encodings behave alike from here on (same enabled actions, same outcomes, same
// verdicts), so a state reached by two paths is expanded once.
//
// In: the substrate state that can matter (per live channel its log start, high watermark and last
// stable offset; every consumer group's committed offsets), every channel's shadow log with each
// message's kind, state, sender, payload, true past and expressed causes, the external producers'
// open transaction, each process's declaration, host positions and flags, oracle knowledge
// (frontiers, delivered and pending positions, the step's staging and what its undo log would
// restore), its committed ordering state and its engine, and the session actors
// (tiers.Actors.AppendCanonical) — except where explore_canonical.go shows a part dead (the
// committed data and rollback target of a process nothing can roll back any more; all but one S1
// bit of a failed process; an open step that changed nothing). Out: the virtual clock and
// everything stamped with it (record timestamps, latencies; nothing the explorer schedules depends
// on time unless time retention is on, in which case the clock is in), the trace, the stats, the
// step counter, message uids (creation order differs between interleavings: a message is named by
// its channel and position), transactional epochs (only their order matters, and the host keeps one
// current producer per process) and the violations found so far (the explorer reports them on the
// transition that found them).
//
// Canonical: maps are walked in sorted order, and a topic ID is replaced by its incarnation's
// channel index (channels are numbered in incarnation creation order), so the encoding does not
// depend on the ID values a seed draws. Within one exploration an incarnation's ID is a function
// of its creation index, so nothing that can influence the future is lost.

// A state's hash (explore.HashKey) is two independently keyed 64-bit hashes (state.Sum64), so a
// collision among the few million states of a scope has probability about n²/2¹²⁹. The keys are
// fixed, so a state has the same hash in every process and an exploration is reproducible bit
// for bit.

// stateHasher encodes worlds canonically and hashes the encoding. It is reused across states.
type stateHasher struct {
	sums [2]state.Sum64
	buf  []byte
	// withRecent and withClock say whether the stamped producers' ring and the clock matter.
	withRecent, withClock bool
	caches                *procHashCaches
	// exact switches the explorer's abstractions off (explore_canonical.go), for tests.
	exact bool
	// verify makes every cached digest be recomputed and compared, panicking on a stale one: the
	// staleness test's hasher (TestHashCachesStayFresh).
	verify bool
}

// newStateHasher returns a hasher of the worlds of an exploration under set.
func newStateHasher(set *swarm.Settings) *stateHasher {
	return &stateHasher{sums: stateSums,
		withRecent: set.Weights[spec.ActProduceStamped] > 0, withClock: set.RetentionMicros > 0,
		caches: &procHashCaches{}}
}

// sum hashes b.
func (h *stateHasher) sum(b []byte) explore.HashKey {
	return explore.HashKey{h.sums[0].Sum(b), h.sums[1].Sum(b)}
}

// stateSums are the two hash functions of a state hash.
var stateSums = [2]state.Sum64{state.NewSum64(1), state.NewSum64(2)}

// hash returns the canonical hash of w; extra is appended first (the explorer's fault budget
// spent so far, which is part of the state).
func (h *stateHasher) hash(w *World, extra []byte) explore.HashKey {
	b := append(h.buf[:0], extra...)
	b = h.appendWorld(b, w)
	h.buf = b
	return h.sum(b)
}

// appendWorld appends the canonical encoding of w.
func (h *stateHasher) appendWorld(b []byte, w *World) []byte {
	if h.withClock {
		b = binary.AppendVarint(b, w.clock.Now())
	}
	for i := range w.topics {
		b = binary.AppendVarint(b, int64(w.topics[i].inc))
	}
	b = binary.AppendUvarint(b, uint64(len(w.incs)))
	for i := range w.incs {
		b = state.AppendBool(b, w.incs[i].alive)
	}
	for c := range w.chans {
		b = h.appendChannel(b, w, int32(c))
	}
	b = state.AppendBool(b, w.ext.open)
	for _, uid := range w.ext.openUIDs {
		b = w.or.AppendMsgRef(b, uid)
	}
	if h.withRecent {
		b = h.appendRecent(b, w)
	}
	free := !h.exact && h.worldRollbackFree(w)
	for _, p := range w.procs {
		b = h.appendProc(b, p, free)
	}
	return w.sess.AppendCanonical(b)
}

// appendChannel appends channel c: its last stable offset, its substrate offsets (when live),
// then the digest of its shadow log (world_hash_chan.go).
func (h *stateHasher) appendChannel(b []byte, w *World, c int32) []byte {
	ch := &w.chans[c]
	b = binary.AppendVarint(b, ch.lso)
	if w.alive(c) {
		offs := w.offsets(c)
		b = binary.AppendVarint(b, int64(offs.LogStart))
		b = binary.AppendVarint(b, int64(offs.HighWatermark))
	}
	return binary.LittleEndian.AppendUint64(b, h.chanDigest(w, c))
}

// msgDigest returns the digest of message m's immutable content — payload, true past, expressed
// causes, the header bytes of a corrupt, forged or undecodable record — computed at its first use and cached in the message: every state that holds the
// message would otherwise re-encode its causes. The cache is written into a message that clones
// share; it is a function of what never changes in a message (a payload change replaces the
// message and clears it, oracle.Oracle.SetPayload), so every sharer agrees.
func (h *stateHasher) msgDigest(w *World, m *oracle.Message) uint64 {
	if m.Digest != 0 && !h.verify {
		return m.Digest
	}
	b := h.caches.msg[:0]
	b = state.AppendBytes(b, m.Key)
	b = state.AppendBytes(b, m.Value)
	b = w.or.AppendCauses(b, m.Past)
	b = w.or.AppendCauses(b, m.Expressed)
	b = binary.AppendUvarint(b, uint64(len(m.Raw)))
	for _, v := range m.Raw {
		b = state.AppendNullableBytes(b, v)
	}
	h.caches.msg = b
	return storeDigest(&m.Digest, b, func() string { return fmt.Sprintf("the message at %s:%d", w.chanName(m.Ch), m.Pos) })
}

// appendRecent appends the stamped producers' candidates: a set while the ring has not wrapped
// (the order only renumbers the choice), the ring in order once it has.
func (h *stateHasher) appendRecent(b []byte, w *World) []byte {
	n := min(w.recentN, recentRing)
	refs := make([]int64, 0, n)
	for i := range n {
		m := w.or.Msg(w.recent[i])
		refs = append(refs, int64(m.Ch)<<40|m.Pos)
	}
	if w.recentN <= recentRing {
		slices.Sort(refs)
	} else {
		b = binary.AppendUvarint(b, uint64(w.recentN%recentRing))
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, r := range refs {
		b = binary.AppendVarint(b, r)
	}
	return b
}

// appendNodeChan appends a node channel as its world channel index (+1; 0 for a channel the
// world never created).
func appendNodeChan(b []byte, w *World, nc node.Channel) []byte {
	return binary.AppendUvarint(b, uint64(w.nodeChan(nc)+1))
}

// appendTopicID appends a topic ID as its incarnation index (+1; 0 if unknown).
func appendTopicID(b []byte, w *World, id node.TopicID) []byte {
	for i := range w.incs {
		if node.TopicID(w.incs[i].id) == id {
			return binary.AppendUvarint(b, uint64(i)+1)
		}
	}
	return append(b, 0)
}

// Package canon is the canonical state hash of an explored world, for the explorer's
// deduplication: two worlds with equal canonical encodings behave alike from here on (same
// enabled actions, same outcomes, same verdicts), so a state reached by two paths is expanded
// once.
//
// In: the substrate state that can matter (per live channel its log start, high watermark and last
// stable offset; every consumer group's committed offsets), every channel's shadow log with each
// message's kind, state, sender, payload, true past and expressed causes, the external producers'
// open transaction, each process's declaration, host positions and flags, oracle knowledge
// (frontiers, delivered and pending positions, the step's staging and what its undo log would
// restore), its committed ordering state, its engine and its reference node, and the session
// actors (tiers.Actors.AppendCanonical) — except where abstract.go shows a part dead (the
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
// index, a channel by its channel index (channels are numbered in incarnation creation order), so
// the encoding does not depend on the ID values a seed draws. Within one exploration an
// incarnation's ID is a function of its creation index, so nothing that can influence the future
// is lost.
//
// A state's hash (explore.HashKey) is two independently keyed 64-bit hashes (state.Sum64), so a
// collision among the few million states of a scope has probability about n²/2¹²⁹. The keys are
// fixed, so a state has the same hash in every process and an exploration is reproducible bit
// for bit.
//
// The hash reads a world through World (sim/world's explore_hash.go implements it, the only code
// there that knows the hash): the facts every hash reads (State, filled by World.Read), and a
// process's parts through its ProcView only when its cached hash is stale, which is most of the
// time not: a transition changes one process or two. The world encodes its own topology and a
// process's read positions (World.AppendTopology, ProcView.AppendChannels), whose layout only it
// knows; everything else is encoded here.
//
// What the hash caches lives beside what it digests, in the world's and the oracle's types, so a
// cloned world inherits it with the part it digests: a message's content, a channel's shadow log
// and a frontier in the oracle's types (digest.go), a process's resolved topics in the process
// (ProcState.ResolvedDigest), an engine's hash in its reference (package engine), and a process's
// own hashes in its Caches. This package cannot see where those parts change, so the rule that
// keeps the caches valid is the world's: whatever changes a cached part clears its cache (a
// process calls Caches.Forget before it changes). A missing clearing would silently merge
// distinct states. The rule is enforced by sim/world's TestHashCachesStayFresh (not run under the
// race detector), which explores the scenarios' scopes with a hasher that recomputes every
// cached part and panics when one differs from its cache (Hasher.Verify).
package canon

import (
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/state"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/tiers"
)

// World is a world as the hash reads it.
type World interface {
	// Read fills s with the world's facts as they are now, reusing s's slices.
	Read(s *State)
	// AppendTopology appends the canonical encoding of the world's topics and incarnations: each
	// topic's live incarnation (-1: deleted), the number of incarnations and whether each is
	// alive.
	AppendTopology(b []byte) []byte
	// AppendIncarnationIDs appends the topic ID of every incarnation, in creation order (asked
	// only when an encoding names a topic ID).
	AppendIncarnationIDs(dst []node.TopicID) []node.TopicID
	// Clock returns the virtual time (asked only with time retention).
	Clock() int64
	// Recent returns the stamped producers' ring of candidate messages, all its slots, and the
	// number of messages ever added to it (asked only while a stamped produce is left).
	Recent() (ring []uint64, added int)
}

// State is what the hash reads of a world at every hash (World.Read fills it).
type State struct {
	Scenario *spec.Scenario
	Settings *swarm.Settings
	Oracle   *oracle.Oracle
	// Topics and Incarnations count the scenario's topics and the incarnations created so far.
	Topics, Incarnations int
	// Chans are the channels, by channel index.
	Chans []Channel
	// ExtOpen says the external producers have an open transaction, of the messages ExtOpenUIDs.
	ExtOpen     bool
	ExtOpenUIDs []uint64
	// Sabotaged says an engine or host sabotage mode is on.
	Sabotaged bool
	// Sessions are the session actors; nil without sessions.
	Sessions *tiers.Actors
	// Procs are the processes, by index.
	Procs []Proc
}

// Channel is one channel's substrate state: its last stable offset and, while its incarnation
// is alive, its offsets.
type Channel struct {
	LSO                     int64
	Alive                   bool
	LogStart, HighWatermark int64
}

// Proc is what the hash reads of a process at every hash: its view and its caches.
type Proc struct {
	View   ProcView
	Caches *Caches
}

// Hasher encodes worlds canonically and hashes the encoding. It is reused across the states of
// one exploration (its caches are keyed by it) and is not safe for concurrent use.
type Hasher struct {
	// Exact switches the abstractions off (abstract.go): every concrete state is told apart. For
	// the tests that compare the abstracted exploration with the concrete one.
	Exact bool
	// Verify makes every cached part be recomputed and compared, panicking on a stale one: the
	// staleness test's hasher.
	Verify bool

	sums [2]state.Sum64
	buf  []byte
	st   State
	// w is the world being hashed. ids are the topic IDs of the incarnations by creation index,
	// read from the worlds hashed so far (appendTopicID): within one exploration an incarnation's
	// ID is a function of its creation index (every world draws IDs from a copy of one stream),
	// so the IDs one world has read hold for every world, up to its own number of incarnations.
	w   World
	ids []node.TopicID
	// withRecent and withClock say whether the stamped producers' ring and the clock matter.
	withRecent, withClock bool
	scratch               scratch
}

// New returns a hasher of the worlds of an exploration under set.
func New(set *swarm.Settings) *Hasher {
	return &Hasher{sums: stateSums,
		withRecent: set.Weights[spec.ActProduceStamped] > 0, withClock: set.RetentionMicros > 0}
}

// stateSums are the two hash functions of a state hash.
var stateSums = [2]state.Sum64{state.NewSum64(1), state.NewSum64(2)}

// sum hashes b.
func (h *Hasher) sum(b []byte) explore.HashKey {
	return explore.HashKey{h.sums[0].Sum(b), h.sums[1].Sum(b)}
}

// Hash returns the canonical hash of w; extra is appended first (the explorer's fault budget
// spent so far, which is part of the state).
func (h *Hasher) Hash(w World, extra []byte) explore.HashKey {
	w.Read(&h.st)
	h.w = w
	b := append(h.buf[:0], extra...)
	b = h.appendWorld(b, &h.st)
	h.buf = b
	return h.sum(b)
}

// appendWorld appends the canonical encoding of the world s describes: the clock (with time
// retention), the topology, each channel's last stable offset, substrate offsets (while alive)
// and shadow-log digest (digest.go), the external producers' open transaction, the stamped
// producers' candidates (while a stamped produce is left), each process's hash, the session
// actors.
func (h *Hasher) appendWorld(b []byte, s *State) []byte {
	if h.withClock {
		b = binary.AppendVarint(b, h.w.Clock())
	}
	b = h.w.AppendTopology(b)
	for c := range s.Chans {
		ch := &s.Chans[c]
		b = binary.AppendVarint(b, ch.LSO)
		if ch.Alive {
			b = binary.AppendVarint(b, ch.LogStart)
			b = binary.AppendVarint(b, ch.HighWatermark)
		}
		b = binary.LittleEndian.AppendUint64(b, h.chanDigest(s.Oracle, int32(c)))
	}
	b = state.AppendBool(b, s.ExtOpen)
	for _, uid := range s.ExtOpenUIDs {
		b = s.Oracle.AppendMsgRef(b, uid)
	}
	if h.withRecent {
		b = h.appendRecent(b, s.Oracle)
	}
	free := !h.Exact && h.worldRollbackFree(s)
	for i := range s.Procs {
		b = h.appendProc(b, s, &s.Procs[i], free)
	}
	return s.Sessions.AppendCanonical(b)
}

// appendRecent appends the stamped producers' candidates: a set while the ring has not wrapped
// (the order only renumbers the choice), the ring in order once it has.
func (h *Hasher) appendRecent(b []byte, or *oracle.Oracle) []byte {
	ring, added := h.w.Recent()
	refs := make([]int64, 0, len(ring))
	for _, uid := range ring[:min(added, len(ring))] {
		m := or.Msg(uid)
		refs = append(refs, int64(m.Ch)<<40|m.Pos)
	}
	if added <= len(ring) {
		slices.Sort(refs)
	} else {
		b = binary.AppendUvarint(b, uint64(added%len(ring)))
	}
	b = binary.AppendUvarint(b, uint64(len(refs)))
	for _, r := range refs {
		b = binary.AppendVarint(b, r)
	}
	return b
}

// appendKey appends a hash key.
func appendKey(b []byte, k explore.HashKey) []byte {
	b = binary.LittleEndian.AppendUint64(b, k[0])
	return binary.LittleEndian.AppendUint64(b, k[1])
}

package world

import (
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/state"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world/canon"
	"github.com/parsleysim/parsleysim/substrate"
)

// The world's side of the canonical state hash (package canon): what the hash reads of a world
// (canonView, at every hash) and of a process (procView: whether it is rollback-free at every
// hash, the rest only when the process's cached hash is stale), and the explore.Hasher the
// explorer gets. The hash's caches live in this package's types and stay valid because whatever
// changes a cached part clears its cache: own forgets a process's hashes (procShare.hashes), and
// whatever replaces a process's resolved topics clears resolvedDigest. TestHashCachesStayFresh
// fails when a clearing is missing.

// stateHasher is package canon's hasher of this package's worlds, for the explorer.
type stateHasher struct{ *canon.Hasher }

// ExploreHasher returns the canonical hasher of the worlds of an exploration under set (package
// explore's Config.Hasher), which deduplicates the search's states.
func ExploreHasher(set swarm.Settings) explore.Hasher { return newStateHasher(&set) }

// newStateHasher returns a hasher of the worlds of an exploration under set.
func newStateHasher(set *swarm.Settings) stateHasher { return stateHasher{canon.New(set)} }

// Hash implements explore.Hasher.
func (h stateHasher) Hash(w explore.World, extra []byte) explore.HashKey {
	return h.Hasher.Hash((*canonView)(w.(*World)), extra)
}

// canonView is a world as package canon reads it.
type canonView World

// Read implements canon.World.
func (v *canonView) Read(s *canon.State) {
	w := (*World)(v)
	s.Scenario, s.Settings, s.Oracle = w.scn, w.set, &w.or
	s.Topics, s.Incarnations = len(w.topics), len(w.incs)
	if cap(s.Chans) < len(w.chans) {
		s.Chans = make([]canon.Channel, len(w.chans))
	}
	s.Chans = s.Chans[:len(w.chans)]
	for c := range s.Chans {
		ch := canon.Channel{LSO: w.chans[c].lso, Alive: w.alive(int32(c))}
		if ch.Alive {
			offs := w.offsets(int32(c))
			ch.LogStart, ch.HighWatermark = int64(offs.LogStart), int64(offs.HighWatermark)
		}
		s.Chans[c] = ch
	}
	s.ExtOpen, s.ExtOpenUIDs = w.ext.open, w.ext.openUIDs
	s.Sabotaged = w.opts.Sabotage != node.SabotageNone || w.opts.HostSabotage != spec.HostHonest
	s.Sessions = w.sess
	if cap(s.Procs) < len(w.procs) {
		s.Procs = make([]canon.Proc, len(w.procs))
	}
	s.Procs = s.Procs[:len(w.procs)]
	for i := range s.Procs {
		p := w.procs[i]
		s.Procs[i] = canon.Proc{View: (*procView)(p), Caches: &p.share.hashes}
	}
}

// AppendTopology implements canon.World: each topic's live incarnation (-1: deleted), the number
// of incarnations and whether each is alive.
func (v *canonView) AppendTopology(b []byte) []byte {
	for i := range v.topics {
		b = binary.AppendVarint(b, int64(v.topics[i].inc))
	}
	b = binary.AppendUvarint(b, uint64(len(v.incs)))
	for i := range v.incs {
		b = state.AppendBool(b, v.incs[i].alive)
	}
	return b
}

// AppendIncarnationIDs implements canon.World.
func (v *canonView) AppendIncarnationIDs(dst []node.TopicID) []node.TopicID {
	for i := range v.incs {
		dst = append(dst, node.TopicID(v.incs[i].id))
	}
	return dst
}

// Clock implements canon.World.
func (v *canonView) Clock() int64 { return v.clock.Now() }

// Recent implements canon.World.
func (v *canonView) Recent() ([]uint64, int) { return v.recent[:], v.recentN }

// procView is a process as package canon reads it.
type procView proc

// Read implements canon.ProcView.
func (v *procView) Read(s *canon.ProcState) {
	p := (*proc)(v)
	s.Name, s.Status, s.Failed, s.RefusalWhy = p.spec.Name, uint8(p.status), p.status == procFailed, p.refusalWhy
	s.TxnOpen, s.StepDirty, s.Drainable = p.txnOpen, p.stepDirty, p.drainable
	s.Declared, s.Resolved, s.EverResolved, s.ResolvedDigest = p.declared, p.resolved, p.everResolved, &p.resolvedDigest
	s.Oracle, s.Engine, s.Ref = &p.o, p.eng, &p.ref
}

// AppendChannels implements canon.ProcView: the received channels, then each channel ever
// received (+1) with its read state (the committed position only when not free), a 0, then the
// open step's channels as a set.
func (v *procView) AppendChannels(b []byte, free bool) []byte {
	b = binary.AppendUvarint(b, uint64(len(v.recv)))
	for _, pc := range v.recv {
		b = binary.AppendUvarint(b, uint64(pc.ch))
	}
	for _, pc := range v.pcs.Values() { // sorted by channel
		b = binary.AppendUvarint(b, uint64(pc.ch)+1)
		b = state.AppendBool(b, pc.received)
		b = binary.AppendVarint(b, pc.readPos)
		b = binary.AppendVarint(b, pc.lastFed)
		b = binary.AppendVarint(b, pc.startPos)
		if !free {
			b = binary.AppendVarint(b, pc.committedPos)
		}
	}
	b = append(b, 0)
	steps := v.stepChans
	if len(steps) > 1 { // a step mostly sends to one channel or none
		steps = append(make([]int32, 0, 8), steps...)
		slices.Sort(steps)
		steps = slices.Compact(steps)
	}
	b = binary.AppendUvarint(b, uint64(len(steps)))
	for _, c := range steps {
		b = binary.AppendUvarint(b, uint64(c))
	}
	return b
}

// Committed implements canon.ProcView: from now on a commit clones the state (committedShared).
func (v *procView) Committed() *node.State {
	if v.committed != nil {
		v.committedShared = true
	}
	return v.committed
}

// AppendGroupOffsets implements canon.ProcView.
func (v *procView) AppendGroupOffsets(dst []substrate.GroupOffset) []substrate.GroupOffset {
	return v.w.appendCommittedOffsets(dst, v.group)
}

// RollbackFree implements canon.ProcView: running, no custom handler, no received channel read
// below its log start or with an unread corrupt or forged record.
func (v *procView) RollbackFree() bool {
	w := v.w
	if v.status != procRunning || v.spec.Handler != nil {
		return false
	}
	for _, pc := range v.recv {
		c := pc.ch
		if !w.alive(c) {
			continue
		}
		if pc.readPos < int64(w.offsets(c).LogStart) {
			return false
		}
		slots := w.or.Slots(c)
		for o := max(pc.readPos, 0); o < int64(len(slots)); o++ {
			if uid := slots[o]; uid != 0 && (w.or.Msg(uid).Kind == oracle.MsgCorrupt || w.or.Msg(uid).Kind == oracle.MsgForged) {
				return false
			}
		}
	}
	return true
}

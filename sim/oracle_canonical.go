package sim

import (
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/sim/oracle"
)

// The oracle's own canonical encoding of its view of a process and its own copy, which the
// explorer's hasher and the world's clone call (world_hash_proc.go, world_clone.go). An open step is encoded as what a rollback would restore, not the order the step did things
// in. Two feeds of one step on two channels in either order leave the same world and the same
// rollback target but different undo logs; encoding the log itself made them two states. The
// rollback target is, per channel state the step touched, its fedHigh, pending positions and
// delivered positions (with delivery indexes) at the step's start, and the delivery count then;
// the staged violations are encoded as a sorted list of criteria (they are reported together at
// the commit, in step order, which only decides which detail is reported first). The frontiers a
// rollback restores are encoded from the step's snapshot.

// appendCanonical appends the canonical encoding of o, process p's view, for hasher h: its
// channel states, refusal ledger, frontiers (each as its digest cached in it) and delivery count,
// then its open step: the step's snapshot and rollback target (left out when free: the process is
// rollback-free, explore_canonical.go), or the undo log itself when h is exact (the encoding
// without the explorer's abstractions), and the step's emissions and corrupt record.
func (o *procOracle) appendCanonical(b []byte, h *stateHasher, p *proc, free bool) []byte {
	b = o.appendChans(b, free)
	b = appendBool(b, o.injected.removedHeld)
	b = appendBool(b, o.injected.identityChanged)
	b = appendBool(b, o.injected.deletedHeld)
	b = h.appendFrontier(b, p, &o.past) // procOracle.frontiers order, without building its array
	b = h.appendFrontier(b, p, &o.seen)
	b = h.appendFrontier(b, p, &o.bound)
	b = h.appendFrontier(b, p, &o.tdp)
	b = binary.AppendVarint(b, o.deliveries)
	open := o.stepChanged() || (h.exact && o.stepOpen) // an open step that changed nothing is encoded as none
	b = appendBool(b, open)
	if !open {
		return b
	}
	if !free {
		for _, s := range o.saved {
			b = appendCauses(b, p.w, s)
		}
	}
	if h.exact {
		b = o.appendUndoLog(b)
	} else {
		b = o.appendStepUndo(b, &h.caches.undo, free)
	}
	b = binary.AppendUvarint(b, uint64(len(o.stepSent)))
	for _, uid := range o.stepSent {
		b = appendMsgRef(b, p.w, uid)
	}
	return appendMsgRef(b, p.w, o.stepCorrupt)
}

// stepUndoScratch is reused scratch for appendStepUndo.
type stepUndoScratch struct {
	pcs       []*chanOracle
	pending   []int64
	delivered []deliveredPos
	crits     []string
}

// appendStepUndo appends the rollback target of o's open step (unless free: rollback-free) and
// its staged criteria.
func (o *procOracle) appendStepUndo(b []byte, sc *stepUndoScratch, free bool) []byte {
	if free {
		return o.appendStagedCriteria(b, sc)
	}
	deliveries := o.deliveries
	sc.pcs = sc.pcs[:0]
	for i := range o.undo {
		u := &o.undo[i]
		if u.ch < 0 {
			if u.kind == undoSetInt && deliveries == o.deliveries {
				deliveries = u.old // the first entry holds the value at the step's start
			}
			continue
		}
		if pc := o.chans.At(u.ch); !slices.Contains(sc.pcs, pc) {
			sc.pcs = append(sc.pcs, pc)
		}
	}
	b = binary.AppendVarint(b, deliveries)
	slices.SortFunc(sc.pcs, func(x, y *chanOracle) int { return int(x.ch) - int(y.ch) })
	b = binary.AppendUvarint(b, uint64(len(sc.pcs)))
	for _, pc := range sc.pcs {
		b = o.appendPCAtStepStart(b, pc, sc)
	}
	return o.appendStagedCriteria(b, sc)
}

// appendStagedCriteria appends the criteria of the step's staged violations, sorted.
func (o *procOracle) appendStagedCriteria(b []byte, sc *stepUndoScratch) []byte {
	sc.crits = sc.crits[:0]
	for _, v := range o.staged {
		sc.crits = append(sc.crits, string(v.Criterion))
	}
	slices.Sort(sc.crits)
	b = binary.AppendUvarint(b, uint64(len(sc.crits)))
	for _, c := range sc.crits {
		b = appendString(b, c)
	}
	return b
}

// appendPCAtStepStart appends channel state pc as the step's undo log would restore it.
func (o *procOracle) appendPCAtStepStart(b []byte, pc *chanOracle, sc *stepUndoScratch) []byte {
	fedHigh := pc.fedHigh
	sc.pending = sc.pending[:0]
	for _, pm := range pc.pending {
		sc.pending = append(sc.pending, pm.pos)
	}
	sc.delivered = append(sc.delivered[:0], pc.delivered...)
	for i := len(o.undo) - 1; i >= 0; i-- {
		u := &o.undo[i]
		if u.ch != pc.ch {
			continue
		}
		switch u.kind {
		case undoSetInt:
			fedHigh = u.old
		case undoDelivered:
			sc.delivered = slices.Delete(sc.delivered, u.idx, u.idx+1)
		case undoPendingAdd:
			sc.pending = slices.Delete(sc.pending, u.idx, u.idx+1)
		case undoPendingDel:
			sc.pending = slices.Insert(sc.pending, u.idx, u.pm.pos)
		}
	}
	b = binary.AppendUvarint(b, uint64(pc.ch))
	b = binary.AppendVarint(b, fedHigh)
	b = binary.AppendUvarint(b, uint64(len(sc.pending)))
	for _, pos := range sc.pending {
		b = binary.AppendVarint(b, pos)
	}
	b = binary.AppendUvarint(b, uint64(len(sc.delivered)))
	for _, d := range sc.delivered {
		b = binary.AppendVarint(b, d.pos)
		b = binary.AppendVarint(b, int64(d.index))
	}
	return b
}

// stepChanged reports whether o's open step has changed anything a rollback would restore or a
// commit would make real: a step opened by a drain that delivered nothing is no step (it is
// encoded as none, so it meets the state reached by committing or by not draining at all).
func (o *procOracle) stepChanged() bool {
	if !o.stepOpen {
		return false
	}
	if len(o.undo) > 0 || len(o.staged) > 0 || len(o.stepSent) > 0 || o.stepCorrupt != 0 {
		return true
	}
	for i, f := range o.frontiers() {
		if !f.C.Equal(o.saved[i]) {
			return true
		}
	}
	return false
}

// appendUndoLog appends o's open step as its undo log and staged criteria, in order: the
// encoding without the abstraction, for the test that checks it.
func (o *procOracle) appendUndoLog(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(o.undo)))
	for i := range o.undo {
		u := &o.undo[i]
		b = append(b, byte(u.kind))
		b = binary.AppendVarint(b, int64(u.ch))
		b = binary.AppendVarint(b, u.old)
		b = binary.AppendVarint(b, int64(u.idx))
		b = binary.AppendVarint(b, u.pm.pos)
	}
	b = binary.AppendUvarint(b, uint64(len(o.staged)))
	for _, v := range o.staged {
		b = appendString(b, string(v.Criterion))
	}
	return b
}

// shareWith makes c, a copy of o by value in a cloned process, share o's frontiers copy-on-write,
// with lat (a buffer of c's shell) for its step's latency samples.
func (o *procOracle) shareWith(c *procOracle, lat []oracle.LatencySample) {
	of, cf := o.frontiers(), c.frontiers()
	for i := range of {
		of[i].Shared, cf[i].Shared = true, true
	}
	c.stepLat = lat
}

// own gives o its own copy, in st (its process shell's storage), of what it shares with the
// process it was cloned from or into: its channel states and its step's log.
func (o *procOracle) own(st *procStore) {
	o.ownChans(&st.oracle)
	o.undo = append(st.undo[:0], o.undo...)
	st.undo = o.undo
	o.staged = slices.Clone(o.staged)
	o.stepSent = slices.Clone(o.stepSent)
}

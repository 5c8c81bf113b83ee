package oracle

import (
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/node"
)

// The canonical encoding of the oracle's view of a process, for the explorer's state hash. An
// open step is encoded as what a rollback would restore, not the order the step did things in:
// two feeds of one step on two channels in either order leave the same world and the same
// rollback target but different undo logs, and encoding the log itself would make them two
// states. The rollback target is, per channel state the step touched, its fedHigh, pending
// positions and delivered positions (with delivery indexes) at the step's start, and the
// delivery count then; the staged violations are encoded as a sorted list of criteria (they are
// reported together at the commit, in step order, which only decides which detail is reported
// first). The frontiers a rollback restores are encoded from the step's snapshot.

// Hasher is what the explorer's hasher lends the oracle's canonical encoding.
type Hasher interface {
	// Exact says the encoding is the one without the explorer's abstractions: an open step is
	// encoded as its undo log.
	Exact() bool
	// AppendFrontier appends frontier f of the process being encoded (its digest, cached in f).
	AppendFrontier(b []byte, f *Frontier) []byte
	// UndoScratch is scratch space the encoding of an open step reuses.
	UndoScratch() *UndoScratch
}

// UndoScratch is reused scratch space for the encoding of an open step's rollback target.
type UndoScratch struct {
	pcs       []*chanState
	pending   []int64
	delivered []deliveredPos
	crits     []string
}

// AppendProc appends the canonical encoding of p for hasher h: its channel states, refusal
// ledger, frontiers and delivery count, then its open step: the step's snapshot and rollback
// target (left out when free: the process is rollback-free, nothing will roll it back or restart
// it), or the undo log itself when h is exact, and the step's emissions and corrupt record.
func (o *Oracle) AppendProc(b []byte, h Hasher, p *Proc, free bool) []byte {
	b = p.appendChans(b, free)
	b = appendBool(b, p.injected.RemovedHeld)
	b = appendBool(b, p.injected.IdentityChanged)
	b = appendBool(b, p.injected.DeletedHeld)
	b = h.AppendFrontier(b, &p.past) // Proc.frontiers order, without building its array
	b = h.AppendFrontier(b, &p.seen)
	b = h.AppendFrontier(b, &p.bound)
	b = h.AppendFrontier(b, &p.tdp)
	b = binary.AppendVarint(b, p.deliveries)
	exact := h.Exact()
	open := p.stepChanged() || (exact && p.stepOpen) // an open step that changed nothing is encoded as none
	b = appendBool(b, open)
	if !open {
		return b
	}
	if !free {
		for _, s := range p.saved {
			b = o.AppendCauses(b, s)
		}
	}
	if exact {
		b = p.appendUndoLog(b)
	} else {
		b = p.appendStepUndo(b, h.UndoScratch(), free)
	}
	b = binary.AppendUvarint(b, uint64(len(p.stepSent)))
	for _, uid := range p.stepSent {
		b = o.AppendMsgRef(b, uid)
	}
	return o.AppendMsgRef(b, p.stepCorrupt)
}

// AppendCauses appends a frontier with every channel replaced by its channel index (+1; 0 for
// a channel the world never created): the one encoding of a frontier in every canonical hash.
func (o *Oracle) AppendCauses(b []byte, c node.Causes) []byte {
	pairs := c.Pairs()
	b = binary.AppendUvarint(b, uint64(len(pairs)))
	for _, p := range pairs {
		b = binary.AppendUvarint(b, uint64(o.NodeChan(p.Channel)+1))
		b = binary.AppendVarint(b, int64(p.Position))
	}
	return b
}

// AppendMsgRef appends a message by its coordinate (channel index, position); 0 is none.
func (o *Oracle) AppendMsgRef(b []byte, uid uint64) []byte {
	if uid == 0 {
		return append(b, 0)
	}
	m := o.msgs[uid-1]
	b = binary.AppendUvarint(b, uint64(m.Ch)+1)
	return binary.AppendVarint(b, m.Pos)
}

// appendChans appends the canonical encoding of p's channel states, sorted by channel. A
// rollback-free process (free) is encoded without firstFixed: only a restart reads it. The
// per-execution facts (received, startPos, lastFed) are left out: they repeat what the host's
// read state of the same channel holds, which the world's hash encodes already, so encoding them
// again would cost without telling states apart.
func (p *Proc) appendChans(b []byte, free bool) []byte {
	for _, oc := range p.list {
		b = binary.AppendUvarint(b, uint64(oc.ch)+1)
		b = binary.AppendVarint(b, oc.firstRead)
		b = binary.AppendVarint(b, oc.clampAtStart)
		b = binary.AppendVarint(b, oc.fedHigh)
		if !free {
			b = appendBool(b, oc.firstFixed)
		}
		b = binary.AppendUvarint(b, uint64(len(oc.delivered)))
		for _, d := range oc.delivered {
			b = binary.AppendVarint(b, d.pos)
			b = binary.AppendVarint(b, int64(d.index))
		}
		b = binary.AppendUvarint(b, uint64(len(oc.pending)))
		for _, pm := range oc.pending {
			b = binary.AppendVarint(b, pm.Pos)
		}
	}
	return append(b, 0)
}

// appendStepUndo appends the rollback target of p's open step (unless free: rollback-free) and
// its staged criteria.
func (p *Proc) appendStepUndo(b []byte, sc *UndoScratch, free bool) []byte {
	if free {
		return p.appendStagedCriteria(b, sc)
	}
	deliveries := p.deliveries
	sc.pcs = sc.pcs[:0]
	for i := range p.undo {
		u := &p.undo[i]
		if u.ch < 0 {
			if u.kind == undoSetInt && deliveries == p.deliveries {
				deliveries = u.old // the first entry holds the value at the step's start
			}
			continue
		}
		if pc := p.chans.At(u.ch); !slices.Contains(sc.pcs, pc) {
			sc.pcs = append(sc.pcs, pc)
		}
	}
	b = binary.AppendVarint(b, deliveries)
	slices.SortFunc(sc.pcs, func(x, y *chanState) int { return int(x.ch) - int(y.ch) })
	b = binary.AppendUvarint(b, uint64(len(sc.pcs)))
	for _, pc := range sc.pcs {
		b = p.appendPCAtStepStart(b, pc, sc)
	}
	return p.appendStagedCriteria(b, sc)
}

// appendStagedCriteria appends the criteria of the step's staged violations, sorted.
func (p *Proc) appendStagedCriteria(b []byte, sc *UndoScratch) []byte {
	sc.crits = sc.crits[:0]
	for _, v := range p.staged {
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
func (p *Proc) appendPCAtStepStart(b []byte, pc *chanState, sc *UndoScratch) []byte {
	fedHigh := pc.fedHigh
	sc.pending = sc.pending[:0]
	for _, pm := range pc.pending {
		sc.pending = append(sc.pending, pm.Pos)
	}
	sc.delivered = append(sc.delivered[:0], pc.delivered...)
	for i := len(p.undo) - 1; i >= 0; i-- {
		u := &p.undo[i]
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
			sc.pending = slices.Insert(sc.pending, u.idx, u.pm.Pos)
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

// stepChanged reports whether p's open step has changed anything a rollback would restore or a
// commit would make real: a step opened by a drain that delivered nothing is no step (it is
// encoded as none, so it meets the state reached by committing or by not draining at all).
func (p *Proc) stepChanged() bool {
	if !p.stepOpen {
		return false
	}
	if len(p.undo) > 0 || len(p.staged) > 0 || len(p.stepSent) > 0 || p.stepCorrupt != 0 {
		return true
	}
	for i, f := range p.frontiers() {
		if !f.C.Equal(p.saved[i]) {
			return true
		}
	}
	return false
}

// appendUndoLog appends p's open step as its undo log and staged criteria, in order: the
// encoding without the abstraction, for the test that checks it.
func (p *Proc) appendUndoLog(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p.undo)))
	for i := range p.undo {
		u := &p.undo[i]
		b = append(b, byte(u.kind))
		b = binary.AppendVarint(b, int64(u.ch))
		b = binary.AppendVarint(b, u.old)
		b = binary.AppendVarint(b, int64(u.idx))
		b = binary.AppendVarint(b, u.pm.Pos)
	}
	b = binary.AppendUvarint(b, uint64(len(p.staged)))
	for _, v := range p.staged {
		b = appendString(b, string(v.Criterion))
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// appendString appends s as a uvarint length then the bytes.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

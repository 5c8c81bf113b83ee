package sim

import (
	"cmp"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The oracle: ground truth from what the simulator did. It never reads parsley.causes to decide
// causality: a process's true causal past grows by the true past of every record it is fed
// (receipt: the record itself is not added) and by each delivered record's coordinate and true
// past (delivery); a sent record's true past is its sender's true past at the send; a stamped
// external record's is the observed record's true past plus its coordinate (SPEC §6.2); a forged
// or corrupt record's, which no writer vouches for, is what its header says as the reference
// decoder reads it (world_produce.go).
//
// Under FIFO (checked separately, S3) a causal past is a per-channel maximum frontier (SPEC §6.2
// "Efficient checker"), so pasts are node.Causes over real channels, dead incarnations included.
//
// Everything the oracle learns in a step is staged: frontiers are snapshotted copy-on-write at the
// step's first change, per-channel facts go through an undo log, violations found at delivery or
// send time wait in the step, and a crash, refusal or fencing rolls all of it back — a delivery in
// a rolled-back step did not happen.

// procOracle is the oracle's view of one process.
type procOracle struct {
	// past is the true causal past; seen the maximum of every header fed (what the process may
	// legitimately re-express, STRUCT12); bound is seen plus every delivered coordinate (the
	// over-expression bound); tdp is the true delivered past (the join clamp's truth, D41).
	past, seen, bound, tdp oracle.Frontier
	saved                  [4]node.Causes

	stepOpen bool
	undo     []undoEntry
	staged   []spec.Violation
	stepSent []uint64
	stepLat  []oracle.LatencySample
	// stepCorrupt is a record fed in this step whose headers the reference decoder refuses
	// (0 = none): committing it breaks S7.
	stepCorrupt uint64
	// stamps reads the process's emissions' headers, reusing the last reading. A cache: not state.
	stamps oracle.StampReader
	// chans is the oracle's state of every channel the process ever received, by channel index;
	// list the same states sorted by channel (oracle_chan.go).
	chans chanOracles
	list  []*chanOracle
	// recv is the current (or, when down, last) execution's received channels, sorted: replaced
	// by each onReceived, never changed in place.
	recv []int32
	// failed says the process failed closed (onRefused): liveness waives it.
	failed bool
	// drains counts the drains begun (onDrain): a pending message that outlives one was held
	// back. It feeds a statistic and the scheduler's heldBack, no check, so it is not part of the
	// explorer's state.
	drains int
	// injected is the refusal ledger (OVER_REFUSAL).
	injected injectedCauses
	// deliveries is the process's lifetime delivery count (the next delivery index).
	deliveries int64
	stepDeliv  int
	stepHeldRe int
}

type undoKind uint8

const (
	undoSetInt     undoKind = iota + 1 // the channel's fedHigh = old, or deliveries = old (ch -1)
	undoDelivered                      // remove oc.delivered[idx]
	undoPendingAdd                     // remove oc.pending[idx]
	undoPendingDel                     // insert pm at oc.pending[idx]
)

// undoEntry reverses one staged change. It names what it restores by kind and channel index,
// never by a pointer, so a process's copy (world_clone.go) copies its undo log as plain bytes.
type undoEntry struct {
	kind undoKind
	ch   int32 // the channel whose state it restores; -1 for the delivery count
	old  int64
	idx  int
	pm   pendingMsg
}

// frontiers lists the four staged frontiers in snapshot order.
func (o *procOracle) frontiers() [4]*oracle.Frontier {
	return [4]*oracle.Frontier{&o.past, &o.seen, &o.bound, &o.tdp}
}

// beginStep snapshots the frontiers at the first change of a step.
func (o *procOracle) beginStep(p *proc) {
	if o.stepOpen {
		return
	}
	o.stepOpen = true
	for i, f := range o.frontiers() {
		o.saved[i] = f.Share()
	}
}

// setFedHigh changes oc's staged fedHigh.
func (o *procOracle) setFedHigh(oc *chanOracle, v int64) {
	if oc.fedHigh == v {
		return
	}
	o.undo = append(o.undo, undoEntry{kind: undoSetInt, ch: oc.ch, old: oc.fedHigh})
	oc.fedHigh = v
}

// setDeliveries changes the staged delivery count.
func (o *procOracle) setDeliveries(v int64) {
	if o.deliveries == v {
		return
	}
	o.undo = append(o.undo, undoEntry{kind: undoSetInt, ch: -1, old: o.deliveries})
	o.deliveries = v
}

// onReceived notes the channels an execution receives (recv, sorted) and their start positions
// (starts[i] is recv[i]'s), whether or not it starts, and checks the start positions (H2). recv
// is the oracle's from then on.
func (o *procOracle) onReceived(p *proc, recv []int32, starts []node.Cause) {
	for _, c := range o.recv {
		o.chans.At(c).received = false
	}
	o.recv = recv
	for i, c := range recv {
		oc := o.chanState(c)
		oc.received = true
		oc.startPos = int64(starts[i].Position)
		oc.lastFed = oc.startPos - 1
	}
	p.w.checkStartPositions(p)
}

// onDrain notes that a drain begins.
func (o *procOracle) onDrain() { o.drains++ }

// onRefused judges a refusal (OVER_REFUSAL; atReceipt: the engine refused a record fed to it,
// not a drain): the process fails closed for good.
func (o *procOracle) onRefused(p *proc, r *node.Refusal, atReceipt bool) {
	p.w.checkRefusal(p, r, atReceipt)
	o.failed = true
}

// onReadFrom notes that the read positions of an execution receiving channel c reached the
// substrate: where it started reading is where the process first read (H2, S8), whatever becomes
// of the step.
func (o *procOracle) onReadFrom(c int32) { o.chans.At(c).firstFixed = true }

// onStart records, for each received channel, the first read position (until an execution
// receiving it commits, the latest start position: nothing below it was ever committed) and the
// true delivered past at this execution's start (what the liveness check owes against, D41).
func (o *procOracle) onStart(p *proc) {
	for _, c := range o.recv {
		oc := o.chans.At(c)
		if !oc.firstFixed {
			oc.firstRead = oc.startPos
		}
		oc.clampAtStart = -1
		if q, ok := o.tdp.C.Lookup(p.w.or.Channel(c)); ok {
			oc.clampAtStart = int64(q)
		}
	}
}

// onFeed stages what a receipt teaches: the record's true past joins the process's past, its
// header joins seen and bound, and the record becomes pending (owed) unless it was delivered
// already, is at or below the execution's true delivered past, or is pending already.
func (o *procOracle) onFeed(p *proc, c int32, uid uint64, pos int64) {
	m, st, oc := p.w.or.Msg(uid), p.storage(), o.chans.At(c)
	p.w.checkFeed(p, oc, pos, uid)
	oc.lastFed = pos
	o.past.MergeFrom(m.Past, st)
	o.seen.MergeFrom(m.Expressed, st)
	o.bound.MergeFrom(m.Expressed, st)
	if m.Undecodable && o.stepCorrupt == 0 {
		o.stepCorrupt = uid
	}
	if pos > oc.fedHigh {
		o.setFedHigh(oc, pos)
	}
	if pos <= oc.clampAtStart || pos < oc.firstRead || oc.deliveredIndex(pos) >= 0 {
		return
	}
	i, found := slices.BinarySearchFunc(oc.pending, pos, func(e pendingMsg, pos int64) int { return cmp.Compare(e.pos, pos) })
	if found {
		return
	}
	oc.pending = slices.Insert(oc.pending, i, pendingMsg{uid: uid, pos: pos, fedMicros: p.w.clock.Now(), fedStep: p.w.step, fedDrains: o.drains})
	o.undo = append(o.undo, undoEntry{kind: undoPendingAdd, ch: oc.ch, idx: i})
}

// onRefeed notes that the host fed the record at pos on channel c to the engine again in the
// same execution (H1).
func (o *procOracle) onRefeed(p *proc, c int32, uid uint64, pos int64) {
	p.w.checkFeed(p, o.chans.At(c), pos, uid)
}

// onDeliver runs the delivery-time checks, then stages the delivery: the coordinate and the
// record's true past join the past, the true past joins the true delivered past, the
// coordinate joins the bound, and the record leaves the pending set.
func (o *procOracle) onDeliver(p *proc, c int32, uid uint64) {
	w, oc := p.w, o.chanState(c)
	m := w.or.Msg(uid)
	w.sess.onDeliver(p, uid) // a projector's row (session_projection.go)
	if w.checkDuplicate(p, oc, uid) {
		return
	}
	w.checkFIFO(p, oc, uid)
	w.checkCausalOrderAtDelivery(p, uid)
	w.checkDeadHolds(p, oc, uid)
	nc, st := w.or.Channel(m.Ch), p.storage()
	o.past.Merge(nc, node.Offset(m.Pos), st)
	o.bound.Merge(nc, node.Offset(m.Pos), st)
	o.past.MergeFrom(m.Past, st)
	o.tdp.MergeFrom(m.Past, st)
	i, _ := slices.BinarySearchFunc(oc.delivered, m.Pos, func(e deliveredPos, pos int64) int { return cmp.Compare(e.pos, pos) })
	oc.delivered = slices.Insert(oc.delivered, i, deliveredPos{pos: m.Pos, index: int(o.deliveries), uid: uid})
	o.undo = append(o.undo, undoEntry{kind: undoDelivered, ch: oc.ch, idx: i})
	o.setDeliveries(o.deliveries + 1)
	o.stepDeliv++
	sample := oracle.LatencySample{EndToEndMicros: w.clock.Now() - m.ProducedMicros, HoldMicros: -1}
	if j := oc.pendingIndex(uid); j >= 0 {
		pm := oc.pending[j]
		sample.HoldMicros = w.clock.Now() - pm.fedMicros
		if o.drains > pm.fedDrains+1 { // it survived a drain after its receipt: it was held back
			o.stepHeldRe++
		}
		oc.pending = slices.Delete(oc.pending, j, j+1)
		o.undo = append(o.undo, undoEntry{kind: undoPendingDel, ch: oc.ch, idx: j, pm: pm})
	}
	o.stepLat = append(o.stepLat, sample)
}

// onSend registers an emission as a pending message whose true past is the sender's past now,
// and runs the send-time structural checks on the header the engine stamped, as the reference
// decoder reads it: every emission carries exactly one decodable parsley.causes header (SPEC §3).
func (o *procOracle) onSend(p *proc, c int32, pos int64, headers []node.Header) uint64 {
	w := p.w
	hr := o.stamps.Read(headers)
	m := oracle.Message{Ch: c, Pos: pos, Sender: int32(p.idx), Kind: oracle.MsgEmission, State: oracle.MsgPending,
		Past: o.past.Share(), Expressed: hr.Expressed, HeaderLen: hr.ValueLen, Undecodable: hr.Undecodable}
	switch {
	case !hr.Present:
		p.o.stage(p, spec.CritStruct15, "emission carries no "+node.HeaderKey+" header")
	case hr.Undecodable:
		p.o.stage(p, spec.CritStruct15, "emission header does not decode: "+hr.Refusal.Error())
		m.Raw = hr.Values
	}
	uid := w.or.Add(m, w.clock.Now())
	o.stepSent = append(o.stepSent, uid)
	w.checkExpression(p, uid)
	return uid
}

// stage records a violation that becomes real only if the step commits.
func (o *procOracle) stage(p *proc, crit spec.Criterion, detail string) {
	if !p.w.or.Reports(crit) {
		return
	}
	o.staged = append(o.staged, spec.Violation{Criterion: crit, Step: p.w.step, Process: p.idx, Detail: detail})
}

// onCommit makes the step real: commit-time checks, emissions become committed records, staged
// violations and latency samples are reported.
func (o *procOracle) onCommit(p *proc) {
	w := p.w
	w.checkCommittedStep(p)
	w.sess.onCommit(p) // a projector's rows become real (session_projection.go)
	for _, c := range o.recv {
		o.chans.At(c).firstFixed = true
	}
	for _, uid := range o.stepSent {
		w.or.SetState(uid, oracle.MsgCommitted)
		w.noteCommitted(uid)
	}
	w.or.CommitStep(o.staged, o.stepLat, o.stepDeliv, o.stepHeldRe)
	o.endStep()
}

// rollback undoes the step and reports whether it had done anything.
func (o *procOracle) rollback(p *proc) bool {
	did := len(o.undo) > 0 || len(o.stepSent) > 0
	p.w.sess.onRollback(p)
	for i := len(o.undo) - 1; i >= 0; i-- {
		u := &o.undo[i]
		if u.ch < 0 {
			o.deliveries = u.old
			continue
		}
		oc := o.chans.At(u.ch)
		switch u.kind {
		case undoSetInt:
			oc.fedHigh = u.old
		case undoDelivered:
			oc.delivered = slices.Delete(oc.delivered, u.idx, u.idx+1)
		case undoPendingAdd:
			oc.pending = slices.Delete(oc.pending, u.idx, u.idx+1)
		case undoPendingDel:
			oc.pending = slices.Insert(oc.pending, u.idx, u.pm)
		}
	}
	if o.stepOpen {
		for i, f := range o.frontiers() {
			f.C, f.Shared, f.Digest = o.saved[i], true, 0
		}
	}
	for _, uid := range o.stepSent {
		p.w.or.SetState(uid, oracle.MsgAborted)
	}
	o.endStep()
	return did
}

// endStep clears the step's staging.
func (o *procOracle) endStep() {
	o.stepOpen = false
	o.undo = o.undo[:0]
	o.staged = o.staged[:0]
	o.stepSent = o.stepSent[:0]
	o.stepLat = o.stepLat[:0]
	o.stepCorrupt = 0
	o.stepDeliv, o.stepHeldRe = 0, 0
	o.saved = [4]node.Causes{}
}

// checkExpression runs the send-time structural checks on emission uid.
func (w *world) checkExpression(p *proc, uid uint64) {
	w.checkOwnChannel(p, uid)
	w.checkAssigned(p, uid)
	w.checkExpressed(p, uid)
	w.checkOverexpression(p, uid)
}

// checkCommittedStep runs the commit-time checks of p's step.
func (w *world) checkCommittedStep(p *proc) {
	w.checkUndecodableCommitted(p)
	w.checkRecreatedReceived(p)
}

// violate records a violation found now (not staged) and reports whether it did (false when the
// criterion is disabled).
func (w *world) violate(crit spec.Criterion, proc int, detail string, msgs ...uint64) bool {
	if !w.or.Report(spec.Violation{Criterion: crit, Step: w.step, Process: proc, Detail: detail, Msgs: msgs}) {
		return false
	}
	if w.tracing {
		w.emitRaw("violation", proc, string(crit)+": "+detail)
	}
	return true
}

// report records a violation found at the end of the run (liveness, the lifetime half of S1).
func (w *world) report(v spec.Violation) {
	w.or.Report(v)
}

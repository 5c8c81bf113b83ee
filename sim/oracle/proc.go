package oracle

import (
	"cmp"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// The oracle's view of a process: ground truth from what the simulator did. It never reads
// parsley.causes to decide causality: a process's true causal past grows by the true past of
// every record it is fed (receipt: the record itself is not added) and by each delivered
// record's coordinate and true past (delivery); a sent record's true past is its sender's true
// past at the send; a stamped external record's is the observed record's true past plus its
// coordinate (SPEC §6.2); a forged or corrupt record's, which no writer vouches for, is what its
// header says as the reference decoder reads it (Oracle.OnProduced).
//
// Under FIFO (checked separately, S3) a causal past is a per-channel maximum frontier (SPEC §6.2
// "Efficient checker"), so pasts are node.Causes over real channels, dead incarnations included.
//
// Everything the oracle learns in a step is staged: frontiers are snapshotted copy-on-write at the
// step's first change, per-channel facts go through an undo log, violations found at delivery or
// send time wait in the step, and a crash, refusal or fencing rolls all of it back — a delivery in
// a rolled-back step did not happen.

// At dates an event: the world's step and virtual time (microseconds) when it happened.
type At struct {
	Step   int
	Micros int64
}

// Proc is the oracle's view of one process. The world keeps it in the process's shell, so that
// the explorer's clone copies it with the process (ShareWith, Own), and registers it with the
// oracle (Oracle.SetProc), whose end-of-run checks visit every process. Its events are methods
// of the Oracle taking it.
type Proc struct {
	idx int // the process's index
	// past is the true causal past; seen the maximum of every header fed (what the process may
	// legitimately re-express, STRUCT12); bound is seen plus every delivered coordinate (the
	// over-expression bound); tdp is the true delivered past (the join clamp's truth, D41).
	past, seen, bound, tdp Frontier
	saved                  [4]node.Causes

	stepOpen bool
	undo     []undoEntry
	staged   []spec.Violation
	stepSent []uint64
	stepLat  []LatencySample
	// stepCorrupt is a record fed in this step whose headers the reference decoder refuses
	// (0 = none): committing it breaks S7.
	stepCorrupt uint64
	// stamps reads the process's emissions' headers, reusing the last reading. A cache: not state.
	stamps StampReader
	// chans is the oracle's state of every channel the process ever received, by channel index;
	// list the same states sorted by channel (chan.go).
	chans chanStates
	list  []*chanState
	// recv is the current (or, when down, last) execution's received channels, sorted: replaced
	// by each OnReceived, never changed in place.
	recv []int32
	// failed says the process failed closed (OnRefused): liveness waives it.
	failed bool
	// drains counts the drains begun (OnDrain): a pending message that outlives one was held
	// back. It feeds a statistic and the scheduler's HeldBack, no check, so it is not part of the
	// explorer's state.
	drains int
	// injected is the refusal ledger (OVER_REFUSAL).
	injected RefusalLedger
	// deliveries is the process's lifetime delivery count (the next delivery index).
	deliveries int64
	stepDeliv  int
	stepHeldRe int
}

// NewProc returns the oracle's view of process idx, which has done nothing yet.
func NewProc(idx int) Proc { return Proc{idx: idx} }

type undoKind uint8

const (
	undoSetInt     undoKind = iota + 1 // the channel's fedHigh = old, or deliveries = old (ch -1)
	undoDelivered                      // remove oc.delivered[idx]
	undoPendingAdd                     // remove oc.pending[idx]
	undoPendingDel                     // insert pm at oc.pending[idx]
)

// undoEntry reverses one staged change. It names what it restores by kind and channel index,
// never by a pointer, so a process's copy copies its undo log as plain bytes.
type undoEntry struct {
	kind undoKind
	ch   int32 // the channel whose state it restores; -1 for the delivery count
	old  int64
	idx  int
	pm   Pending
}

// deliveredPos is one first delivery on a channel: its position and the process's delivery index.
type deliveredPos struct {
	pos   int64
	index int
	uid   uint64
}

// Pending is a fed, owed, undelivered message (the oracle's own hold-back view): its uid and
// position, and the step, virtual time and drain count at its receipt.
type Pending struct {
	UID       uint64
	Pos       int64
	fedMicros int64
	FedStep   int
	fedDrains int // the process's drain count at receipt
}

// frontiers lists the four staged frontiers in snapshot order.
func (p *Proc) frontiers() [4]*Frontier {
	return [4]*Frontier{&p.past, &p.seen, &p.bound, &p.tdp}
}

// BeginStep snapshots the frontiers at the first change of a step.
func (p *Proc) BeginStep() {
	if p.stepOpen {
		return
	}
	p.stepOpen = true
	for i, f := range p.frontiers() {
		p.saved[i] = f.Share()
	}
}

// setFedHigh changes oc's staged fedHigh.
func (p *Proc) setFedHigh(oc *chanState, v int64) {
	if oc.fedHigh == v {
		return
	}
	p.undo = append(p.undo, undoEntry{kind: undoSetInt, ch: oc.ch, old: oc.fedHigh})
	oc.fedHigh = v
}

// setDeliveries changes the staged delivery count.
func (p *Proc) setDeliveries(v int64) {
	if p.deliveries == v {
		return
	}
	p.undo = append(p.undo, undoEntry{kind: undoSetInt, ch: -1, old: p.deliveries})
	p.deliveries = v
}

// OnReceived notes the channels an execution of p receives (recv, sorted) and their start
// positions (starts[i] is recv[i]'s), whether or not it starts, and checks the start positions
// against what the execution starts from (H2): the group's committed offsets offs as the
// substrate holds them and the committed ordering state stored as the state store holds it (nil:
// none). recv is the oracle's from then on.
func (o *Oracle) OnReceived(at At, p *Proc, recv []int32, starts []node.Cause, offs []substrate.GroupOffset, stored *node.State) {
	o.checkStartRule(at, p, recv, starts, offs, stored)
	for _, c := range p.recv {
		p.chans.At(c).received = false
	}
	p.recv = recv
	for i, c := range recv {
		oc := p.chanState(c)
		oc.received = true
		oc.startPos = int64(starts[i].Position)
		oc.lastFed = oc.startPos - 1
	}
	o.checkStartPositions(at, p)
}

// OnDrain notes that a drain begins.
func (p *Proc) OnDrain() { p.drains++ }

// OnRefused judges a refusal (OVER_REFUSAL; atReceipt: the engine refused a record fed to it,
// not a drain): the process fails closed for good.
func (o *Oracle) OnRefused(at At, p *Proc, r *node.Refusal, atReceipt bool) {
	o.checkRefusal(at, p, r, atReceipt)
	p.failed = true
}

// OnReadFrom notes that the read positions of an execution receiving channel c reached the
// substrate: where it started reading is where the process first read (H2, S8), whatever becomes
// of the step.
func (p *Proc) OnReadFrom(c int32) { p.chans.At(c).firstFixed = true }

// OnStart records, for each received channel, the first read position (until an execution
// receiving it commits, the latest start position: nothing below it was ever committed) and the
// true delivered past at this execution's start (what the liveness check owes against, D41).
func (o *Oracle) OnStart(p *Proc) {
	for _, c := range p.recv {
		oc := p.chans.At(c)
		if !oc.firstFixed {
			oc.firstRead = oc.startPos
		}
		oc.clampAtStart = -1
		if q, ok := p.tdp.C.Lookup(o.ids[c].nc); ok {
			oc.clampAtStart = int64(q)
		}
	}
}

// OnFeed stages what a receipt of record uid at pos on channel c teaches: the record's true past
// joins the process's past, its header joins seen and bound, and the record becomes pending
// (owed) unless it was delivered already, is at or below the execution's true delivered past, or
// is pending already. Frontiers p shares are copied into room.
func (o *Oracle) OnFeed(at At, p *Proc, c int32, uid uint64, pos int64, room Room) {
	m, oc := o.msgs[uid-1], p.chans.At(c)
	o.checkFeed(at, p, oc, pos, uid)
	oc.lastFed = pos
	p.past.MergeFrom(m.Past, room)
	p.seen.MergeFrom(m.Expressed, room)
	p.bound.MergeFrom(m.Expressed, room)
	if m.Undecodable && p.stepCorrupt == 0 {
		p.stepCorrupt = uid
	}
	if pos > oc.fedHigh {
		p.setFedHigh(oc, pos)
	}
	if pos <= oc.clampAtStart || pos < oc.firstRead || oc.deliveredIndex(pos) >= 0 {
		return
	}
	i, found := slices.BinarySearchFunc(oc.pending, pos, func(e Pending, pos int64) int { return cmp.Compare(e.Pos, pos) })
	if found {
		return
	}
	oc.pending = slices.Insert(withListRoom(oc.pending), i, Pending{UID: uid, Pos: pos, fedMicros: at.Micros, FedStep: at.Step, fedDrains: p.drains})
	p.undo = append(p.undo, undoEntry{kind: undoPendingAdd, ch: oc.ch, idx: i})
}

// OnRefeed notes that the host fed the record uid at pos on channel c to the engine again in the
// same execution (H1).
func (o *Oracle) OnRefeed(at At, p *Proc, c int32, uid uint64, pos int64) {
	o.checkFeed(at, p, p.chans.At(c), pos, uid)
}

// OnDeliver runs the delivery-time checks of p's delivery of record uid on channel c, then stages
// the delivery: the coordinate and the record's true past join the past, the true past joins the
// true delivered past, the coordinate joins the bound, and the record leaves the pending set.
func (o *Oracle) OnDeliver(at At, p *Proc, c int32, uid uint64, room Room) {
	oc := p.chanState(c)
	m := o.msgs[uid-1]
	if o.checkDuplicate(at, p, oc, uid) {
		return
	}
	o.checkFIFO(at, p, oc, uid)
	o.checkCausalOrderAtDelivery(at, p, uid)
	o.checkDeadHolds(at, p, oc, uid)
	nc := o.ids[m.Ch].nc
	p.past.Merge(nc, node.Offset(m.Pos), room)
	p.bound.Merge(nc, node.Offset(m.Pos), room)
	p.past.MergeFrom(m.Past, room)
	p.tdp.MergeFrom(m.Past, room)
	i, _ := slices.BinarySearchFunc(oc.delivered, m.Pos, func(e deliveredPos, pos int64) int { return cmp.Compare(e.pos, pos) })
	oc.delivered = slices.Insert(withListRoom(oc.delivered), i, deliveredPos{pos: m.Pos, index: int(p.deliveries), uid: uid})
	p.undo = append(p.undo, undoEntry{kind: undoDelivered, ch: oc.ch, idx: i})
	p.setDeliveries(p.deliveries + 1)
	p.stepDeliv++
	sample := LatencySample{EndToEndMicros: at.Micros - m.ProducedMicros, HoldMicros: -1}
	if j := oc.pendingIndex(uid); j >= 0 {
		pm := oc.pending[j]
		sample.HoldMicros = at.Micros - pm.fedMicros
		if p.drains > pm.fedDrains+1 { // it survived a drain after its receipt: it was held back
			p.stepHeldRe++
		}
		oc.pending = slices.Delete(oc.pending, j, j+1)
		p.undo = append(p.undo, undoEntry{kind: undoPendingDel, ch: oc.ch, idx: j, pm: pm})
	}
	p.stepLat = append(p.stepLat, sample)
}

// OnSend registers p's emission written at pos on channel c with its key, value and headers as a
// pending message whose true past is the sender's past now, runs the send-time structural checks
// on the header the engine stamped, as the reference decoder reads it (every emission carries
// exactly one decodable parsley.causes header, SPEC §3), and returns its uid.
func (o *Oracle) OnSend(at At, p *Proc, c int32, pos int64, key, value []byte, headers []node.Header) uint64 {
	hr := p.stamps.Read(headers, &o.slab)
	m := Message{Ch: c, Pos: pos, Key: key, Value: value, Sender: int32(p.idx), Kind: MsgEmission, State: MsgPending,
		Past: p.past.Share(), Expressed: hr.Expressed, HeaderLen: hr.ValueLen, Undecodable: hr.Undecodable}
	switch {
	case !hr.Present:
		o.stage(at, p, spec.CritStruct15, "emission carries no "+node.HeaderKey+" header")
	case hr.Undecodable:
		o.stage(at, p, spec.CritStruct15, "emission header does not decode: "+hr.Refusal.Error())
		m.Raw = hr.Values
	}
	uid := o.Add(m, at.Micros)
	p.stepSent = append(p.stepSent, uid)
	o.checkExpression(at, p, uid)
	return uid
}

// stage records a violation that becomes real only if the step commits.
func (o *Oracle) stage(at At, p *Proc, crit spec.Criterion, detail string) {
	if !o.Reports(crit) {
		return
	}
	p.staged = append(p.staged, spec.Violation{Criterion: crit, Step: at.Step, Process: p.idx, Detail: detail})
}

// OnCommit makes p's step real: commit-time checks, emissions become committed records, staged
// violations and latency samples are reported. It returns the step's emissions, now committed
// records (valid until p's next step).
func (o *Oracle) OnCommit(at At, p *Proc) []uint64 {
	o.checkCommittedStep(at, p)
	for _, c := range p.recv {
		p.chans.At(c).firstFixed = true
	}
	sent := p.stepSent
	for _, uid := range sent {
		o.SetState(uid, MsgCommitted)
	}
	for _, v := range p.staged {
		o.violations = append(o.violations, v)
		o.tell(v)
	}
	o.lat.add(p.stepLat)
	o.deliveries += p.stepDeliv
	o.heldReleased += p.stepHeldRe
	p.endStep()
	return sent
}

// Rollback undoes p's step and reports whether it had done anything.
func (o *Oracle) Rollback(p *Proc) bool {
	did := len(p.undo) > 0 || len(p.stepSent) > 0
	for i := len(p.undo) - 1; i >= 0; i-- {
		u := &p.undo[i]
		if u.ch < 0 {
			p.deliveries = u.old
			continue
		}
		oc := p.chans.At(u.ch)
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
	if p.stepOpen {
		for i, f := range p.frontiers() {
			f.C, f.Shared, f.Digest = p.saved[i], true, 0
		}
	}
	for _, uid := range p.stepSent {
		o.SetState(uid, MsgAborted)
	}
	p.endStep()
	return did
}

// endStep clears the step's staging.
func (p *Proc) endStep() {
	p.stepOpen = false
	p.undo = p.undo[:0]
	p.staged = p.staged[:0]
	p.stepSent = p.stepSent[:0]
	p.stepLat = p.stepLat[:0]
	p.stepCorrupt = 0
	p.stepDeliv, p.stepHeldRe = 0, 0
	p.saved = [4]node.Causes{}
}

// checkExpression runs the send-time structural checks on emission uid.
func (o *Oracle) checkExpression(at At, p *Proc, uid uint64) {
	o.checkOwnChannel(at, p, uid)
	o.checkAssigned(at, p, uid)
	o.checkExpressed(at, p, uid)
	o.checkOverexpression(at, p, uid)
}

// checkCommittedStep runs the commit-time checks of p's step.
func (o *Oracle) checkCommittedStep(at At, p *Proc) {
	o.checkUndecodableCommitted(at, p)
	o.checkRecreatedReceived(at, p)
}

// Violate records a violation found now (not staged), reports it to the reporter, and reports
// whether it did (false when the criterion is disabled).
func (o *Oracle) Violate(at At, crit spec.Criterion, proc int, detail string, msgs ...uint64) bool {
	v := spec.Violation{Criterion: crit, Step: at.Step, Process: proc, Detail: detail, Msgs: msgs}
	if !o.report(v) {
		return false
	}
	o.tell(v)
	return true
}

// tell makes the reporter, if any, hear of violation v.
func (o *Oracle) tell(v spec.Violation) {
	if o.reporter != nil {
		o.reporter.ReportViolation(v.Process, string(v.Criterion)+": "+v.Detail)
	}
}

package world

import (
	"errors"
	"fmt"
	"maps"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// feed fetches the next record of channel pc (read_committed, from the working read position) and
// feeds it to the engine. A fetch below the log start fails closed with
// POSITIONS_DISCARDED_UNREAD (auto.offset.reset=none) unless the host sabotage resets it to the
// log start. A fetch that finds only markers or aborted records moves the read position past them.
func (p *proc) feed(pc *pcState) {
	w := p.w
	p.o.BeginStep()
	recs, next, err := w.sub.FetchInto(p.fetchBuf[:0], w.chans[pc.ch].tp, substrate.Offset(pc.readPos), 1)
	if errors.Is(err, substrate.ErrOffsetOutOfRange) {
		logStart := int64(w.offsets(pc.ch).LogStart)
		if w.opts.HostSabotage != spec.HostResetPastLogStart || pc.readPos > logStart {
			p.refuse(&node.Refusal{Reason: node.ReasonPositionsDiscardedUnread, Channel: w.chans[pc.ch].nc,
				Position: node.Offset(pc.readPos), Detail: fmt.Sprintf("fetch from %d below log start %d", pc.readPos, logStart)})
			return
		}
		w.or.OnReadReset(w.at(), &p.o, pc.ch, pc.readPos, logStart)
		pc.readPos = logStart
		recs, next, err = w.sub.FetchInto(p.fetchBuf[:0], w.chans[pc.ch].tp, substrate.Offset(pc.readPos), 1)
	}
	if err != nil {
		panic(fmt.Sprintf("world: fetch %s from %d: %v", w.chanName(pc.ch), pc.readPos, err))
	}
	p.fetchBuf = recs[:0]
	if len(recs) == 0 {
		pc.readPos = int64(next)
		p.stepDirty = true
		if w.tracing {
			w.emitChan("skipped", p, pc.ch, int64(next), 0, "read position moved past markers")
		}
		return
	}
	rec := recs[0]
	pos := int64(rec.Offset)
	uid := w.or.RecordAt(pc.ch, pos)
	if uid == 0 {
		panic(fmt.Sprintf("world: fetched %s:%d which the oracle does not know as a committed record", w.chanName(pc.ch), pos))
	}
	w.or.OnFeed(w.at(), &p.o, pc.ch, uid, pos, p.storage())
	nrec := oracle.NodeRecord(rec.Record)
	if w.hooks != nil && w.hooks.feedHeaders != nil {
		nrec.Headers = w.hooks.feedHeaders(p.idx, pc.ch, nrec.Headers)
	}
	out, rerr := p.eng.Receive(w.chans[pc.ch].nc, node.Offset(pos), nrec)
	w.or.RefReceive(w.at(), &p.ref, pc.ch, pos, rec.Record, out, rerr) // the record as fetched: feedHeaders misreads it in the engine only
	pc.readPos, pc.lastFed = int64(next), pos
	p.stepDirty, p.drainable = true, true
	p.chargeWork()
	if rerr == nil && w.hooks != nil && w.hooks.refeed != nil && w.hooks.refeed(p.idx) {
		w.or.OnRefeed(w.at(), &p.o, pc.ch, uid, pos)
		var again node.ReceiveOutcome
		again, rerr = p.eng.Receive(w.chans[pc.ch].nc, node.Offset(pos), oracle.NodeRecord(rec.Record))
		w.or.RefReceive(w.at(), &p.ref, pc.ch, pos, rec.Record, again, rerr)
	}
	if rerr != nil {
		p.refuse(rerr)
		return
	}
	p.noteReceive(pc, pos, uid, out)
}

// noteReceive counts and traces what Receive did with a fed record.
func (p *proc) noteReceive(pc *pcState, pos int64, uid uint64, out node.ReceiveOutcome) {
	w := p.w
	kind := "held"
	if out == node.Duplicate {
		kind = "duplicate"
		w.stats.Duplicates++
	} else {
		w.stats.Holds++
	}
	if w.tracing {
		w.emitChan(kind, p, pc.ch, pos, uid, "")
	}
}

// drain delivers every deliverable head and runs application logic on each delivery, stamping
// and producing its emissions inside the step's transaction.
func (p *proc) drain() {
	w := p.w
	p.o.BeginStep()
	p.drainable = false
	p.o.OnDrain()
	for {
		d, ok := p.eng.Next()
		var refusal *node.Refusal
		if !ok {
			refusal = p.eng.Refusal()
		}
		w.or.RefNext(w.at(), &p.ref, d, ok, refusal)
		if !ok {
			break
		}
		p.stepDirty = true
		c := w.nodeChan(d.Channel)
		uid := w.or.RecordAt(c, int64(d.Position))
		if c < 0 || uid == 0 {
			panic(fmt.Sprintf("world: %s delivered %v@%d, which is no committed record", p.spec.Name, d.Channel, d.Position))
		}
		w.sess.OnDeliver(p.idx, uid) // a projector's row (package tiers)
		w.or.OnDeliver(w.at(), &p.o, c, uid, p.storage())
		if w.tracing {
			w.emitChan("delivered", p, c, int64(d.Position), uid, "")
		}
		if !p.runLogic(c, d) {
			return
		}
	}
	p.chargeWork()
	if r := p.eng.Refusal(); r != nil {
		p.refuse(r)
	}
}

// runLogic hands a delivery to application logic and sends its emissions. It reports false when
// an emission refused (the process failed closed).
func (p *proc) runLogic(c int32, d node.Delivery) bool {
	w := p.w
	in := spec.Delivered{Process: p.spec.Name, Topic: w.topics[w.chans[c].topic].spec.Name,
		Partition: int32(d.Position), Key: d.Record.Key, Value: d.Record.Value, HopsMax: p.hopsMax()}
	in.Partition, in.Position = w.chans[c].part, int64(d.Position)
	var ems []spec.Emission
	if p.spec.Handler != nil {
		ems = p.spec.Handler(in)
	} else {
		ems = spec.Forward(in, p.spec.Sends, p.spec.FanoutOne)
	}
	for _, em := range ems {
		if !p.send(em, d.Record.TimestampMicros) {
			return false
		}
	}
	return true
}

// send stamps one emission with the engine (Emit) and produces it transactionally.
func (p *proc) send(em spec.Emission, tsMicros int64) bool {
	w := p.w
	t, ok := w.topicByName[em.Topic]
	if !ok || w.topics[t].inc < 0 {
		panic(fmt.Sprintf("world: %s emits to unknown or deleted topic %q", p.spec.Name, em.Topic))
	}
	inc := w.topics[t].inc
	part := int(spec.KeyHash(em.Key) % uint32(w.incs[inc].parts))
	if w.hooks != nil && w.hooks.partition != nil {
		part = w.hooks.partition(p.idx, p.execution, em.Key, w.incs[inc].parts)
	}
	c := w.chanOf(inc, part)
	in := node.Record{Key: em.Key, Value: em.Value, TimestampMicros: tsMicros}
	stamped, err := p.eng.Emit(w.chans[c].nc, in)
	w.or.RefEmit(w.at(), &p.ref, c, in, stamped, err)
	if err != nil {
		p.refuse(err)
		return false
	}
	if !p.txnOpen {
		if err := w.sub.BeginTransaction(p.txn); err != nil {
			panic(fmt.Sprintf("world: begin transaction of %s: %v", p.spec.Name, err))
		}
		p.txnOpen = true
	}
	if w.hooks != nil && w.hooks.stamp != nil {
		last := &stamped.Headers[len(stamped.Headers)-1]
		last.Value = w.hooks.stamp(p.idx, c, int64(w.offsets(c).HighWatermark), last.Value)
	}
	rec := substrate.Record{Key: stamped.Key, Value: stamped.Value, TimestampMicros: stamped.TimestampMicros}
	rec.Headers = make([]substrate.Header, len(stamped.Headers))
	for i, h := range stamped.Headers {
		rec.Headers[i] = substrate.Header{Key: h.Key, Value: h.Value}
	}
	off, err := w.sub.ProduceTx(p.txn, w.chans[c].tp, rec)
	if err != nil {
		panic(fmt.Sprintf("world: produce of %s to %s: %v", p.spec.Name, w.chanName(c), err))
	}
	p.stepChans = append(p.stepChans, c)
	w.logMoved(c)
	w.staleChannelTargets(c) // its high watermark moved; the LSO moves at the step's end
	uid := w.or.OnSend(w.at(), &p.o, c, int64(off), rec.Key, rec.Value, stamped.Headers)
	w.stats.Sent++
	if w.tracing {
		w.emitChan("sent", p, c, int64(off), uid, "")
	}
	return true
}

// commit commits the step atomically (H3): one transaction carries the emissions, the read
// positions and the engine's delta to the committed ordering state (host_commit.go). A fenced
// commit (a zombie) changes nothing.
func (p *proc) commit() error {
	_, err := p.commitSequence(-1)
	return err
}

// applyDelta applies the engine's step delta to p's committed state. An empty delta on an
// existing state changes nothing that any reader sees, so it is skipped: a shared (copy-on-write)
// state is then not cloned, and its cached hash stays valid. (Apply of an empty delta would only
// mark an empty state as validated, which spares Start a validation of an empty state.)
func (p *proc) applyDelta(delta node.Delta) {
	switch {
	case p.committed == nil:
		p.committed = &node.State{}
	case delta.IsEmpty():
		return
	case p.committedShared:
		p.committed, p.committedShared = p.committed.CloneInto(p.store.committedStorage()), false
	}
	if err := p.committed.Apply(delta); err != nil {
		panic(fmt.Sprintf("world: %s: applying the engine's delta: %v", p.spec.Name, err))
	}
}

// refreshStepChans re-reads the LSO of every channel the step's transaction wrote.
func (p *proc) refreshStepChans() {
	for _, c := range p.stepChans {
		p.w.refreshLSO(c)
	}
	p.stepChans = p.stepChans[:0]
}

// rollback ends the execution without committing: the transaction aborts (its records become
// never-yielding offsets), the engine and every uncommitted change are discarded, and the oracle
// forgets the step (a delivery in a rolled-back step did not happen).
func (p *proc) rollback() {
	w := p.w
	if p.txnOpen {
		if err := w.sub.AbortTransaction(p.txn); err != nil && !errors.Is(err, substrate.ErrFenced) {
			panic(fmt.Sprintf("world: abort transaction of %s: %v", p.spec.Name, err))
		}
		p.txnOpen = false
	}
	p.refreshStepChans()
	w.sess.OnRollback(p.idx)
	if w.or.Rollback(&p.o) {
		w.stats.Rollbacks++
	}
	p.dropEngine()
	p.stepDirty, p.drainable = false, false
	if p.status == procRunning {
		p.status = procDown
	}
}

// crash rolls the step back and leaves the process down.
func (p *proc) crash() {
	p.rollback()
	p.w.stats.Crashes++
	if p.w.tracing {
		p.w.emitProc("crashed", p, "")
	}
}

// stop is a clean stop: commit the step, then close.
func (p *proc) stop() {
	if err := p.commit(); err != nil {
		panic(fmt.Sprintf("world: clean stop of %s could not commit: %v", p.spec.Name, err))
	}
	p.dropEngine()
	p.status = procDown
	p.w.stats.Stops++
	if p.w.tracing {
		p.w.emitProc("stopped", p, "")
	}
}

// refuse fails the process closed: the step rolls back, the refusal is judged against the
// injected causes (OVER_REFUSAL), and the process stays down for the rest of the run.
func (p *proc) refuse(err error) {
	w := p.w
	var r *node.Refusal
	if !errors.As(err, &r) {
		panic(fmt.Sprintf("world: %s: engine error that is not a refusal: %v", p.spec.Name, err))
	}
	w.or.OnRefused(w.at(), &p.o, r, w.action == spec.ActFeed)
	p.rollback()
	p.status = procFailed
	p.refusalWhy = string(r.Reason)
	w.countRefusal(r.Reason)
	if w.tracing {
		w.emitProc("refused", p, w.or.RefusalText(r))
	}
}

// countRefusal counts one refusal in the run's stats.
func (w *World) countRefusal(r node.Reason) {
	s := &w.stats
	if w.refusalsShared {
		s.Refusals, w.refusalsShared = maps.Clone(s.Refusals), false
	}
	if s.Refusals == nil {
		s.Refusals = make(map[string]int)
	}
	s.Refusals[string(r)]++
}

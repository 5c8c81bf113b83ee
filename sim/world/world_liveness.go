package world

import "github.com/parsleysim/parsleysim/sim/spec"

// The liveness phase (TigerBeetle's healed core, rafttest's Stabilize): faults stop, the open
// external transaction is committed, and every process that has not failed closed is started,
// fed everything fetchable, drained and committed, round after round in process order, until a
// round moves nothing or the budget of LivenessStepsMax actions is spent. No choice is made here:
// the order is fixed, so the phase adds nothing to the choice list.

// livenessPhase runs the final phase.
func (w *World) livenessPhase() {
	w.ownAll()
	w.liveness = true
	start := w.step
	if w.ext.open {
		w.step++
		w.action = spec.ActTxnClose
		w.txnClose(true)
	}
	budget := w.set.LivenessStepsMax
	for moved := true; moved && w.step-start < budget; {
		moved = false
		for _, p := range w.procs {
			if w.settle(p, start+budget) {
				moved = true
			}
		}
	}
	w.stats.LivenessSteps = w.step - start
}

// settle starts, feeds, drains and commits p until it has nothing left or the step limit is
// reached; it reports whether anything moved.
func (w *World) settle(p *proc, limit int) bool {
	moved := false
	act := func(k spec.ActionKind, f func()) {
		w.step++
		w.action = k
		w.stats.Actions[k]++
		w.clock.Advance(k)
		f()
		moved = true
	}
	if p.status == procDown && w.step < limit {
		act(spec.ActStart, func() { p.start(true) })
	}
	for p.status == procRunning && w.step < limit {
		switch {
		case p.anyFeedable():
			act(spec.ActFeed, func() { p.feed(w.firstFeedable(p)) })
		case p.drainable:
			act(spec.ActDrain, p.drain)
		case p.stepDirty:
			act(spec.ActCommit, func() { must(p.commit()) })
		default:
			return moved
		}
	}
	return moved
}

// firstFeedable returns p's first feedable received channel.
func (w *World) firstFeedable(p *proc) *pcState {
	for _, pc := range p.recv {
		if p.feedable(pc) {
			return pc
		}
	}
	return nil
}

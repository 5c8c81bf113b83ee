package sim

// LIVENESS (SPEC §6.1 L1, D41, Assumption 13): after the final phase — faults stopped, every
// process started, fed, drained and committed until nothing moves — every message fed to a
// process in a committed step and owed has been delivered. A fed message is owed unless its
// position is at or below the process's true delivered past on that channel at the start of the
// execution that fed it (decided at feed time: such a message never enters the pending set). A
// pending message is exempt when it names a position no committed record occupies on a channel
// its process receives (out of contract), sits behind an exempt message on its channel, or names
// a position at or above an exempt message on a received channel (it waits for it). Processes
// that failed closed are waived; safety never is.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkLiveness reports every owed, undelivered, non-exempt message of every non-failed process.
func (w *world) checkLiveness() {
	for _, p := range w.procs {
		if p.o.failed {
			continue
		}
		exempt := w.exemptions(p)
		for _, oc := range p.o.list {
			c := oc.ch
			for _, pm := range oc.pending {
				if from, ok := exempt[c]; ok && pm.pos >= from {
					break
				}
				w.report(spec.Violation{Criterion: spec.CritLiveness, Step: w.step, Process: p.idx,
					Detail: fmt.Sprintf("%s was fed at step %d and never delivered", w.or.MsgName(pm.uid), pm.fedStep)})
				break
			}
		}
	}
}

// exemptions computes, per channel, the lowest position from which p's pending messages are
// exempt from liveness, iterating to a fixpoint (an exempt message exempts what waits for it).
func (w *world) exemptions(p *proc) map[int32]int64 {
	exempt := map[int32]int64{}
	for changed := true; changed; {
		changed = false
		for _, oc := range p.o.list {
			c := oc.ch
			for _, pm := range oc.pending {
				if from, ok := exempt[c]; ok && pm.pos >= from {
					break
				}
				if w.stuckForever(p, pm.uid, exempt) {
					exempt[c] = pm.pos
					changed = true
					break
				}
			}
		}
	}
	return exempt
}

// stuckForever reports whether message uid at p names a never-occupied position on a received
// channel, or waits for an exempt message.
func (w *world) stuckForever(p *proc, uid uint64, exempt map[int32]int64) bool {
	m := w.or.Msg(uid)
	for _, cause := range m.Expressed.Pairs() {
		c := w.or.NodeChan(cause.Channel)
		if c < 0 {
			continue
		}
		if c == m.Ch && int64(cause.Position) >= m.Pos {
			return true // names itself or a later position of its own channel
		}
		if !p.o.receives(c) {
			continue
		}
		q := int64(cause.Position)
		if from, ok := exempt[c]; ok && q >= from {
			return true
		}
		if w.or.Alive(c) && w.or.RecordAt(c, q) == 0 {
			return true
		}
	}
	return false
}

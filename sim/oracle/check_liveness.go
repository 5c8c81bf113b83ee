package oracle

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

// OnRunEnd runs the end-of-run checks: liveness, when the run had a liveness phase, then the
// lifetime half of S1.
func (o *Oracle) OnRunEnd(at At, liveness bool) {
	if liveness {
		o.checkLiveness(at)
	}
	o.checkCausalOrderLifetime(at)
}

// checkLiveness reports every owed, undelivered, non-exempt message of every non-failed process.
func (o *Oracle) checkLiveness(at At) {
	for _, p := range o.procs {
		if p.failed {
			continue
		}
		exempt := o.exemptions(p)
		for _, oc := range p.list {
			c := oc.ch
			for _, pm := range oc.pending {
				if from, ok := exempt[c]; ok && pm.Pos >= from {
					break
				}
				o.report(spec.Violation{Criterion: spec.CritLiveness, Step: at.Step, Process: p.idx,
					Detail: fmt.Sprintf("%s was fed at step %d and never delivered", o.MsgName(pm.UID), pm.FedStep)})
				break
			}
		}
	}
}

// exemptions computes, per channel, the lowest position from which p's pending messages are
// exempt from liveness, iterating to a fixpoint (an exempt message exempts what waits for it).
func (o *Oracle) exemptions(p *Proc) map[int32]int64 {
	exempt := map[int32]int64{}
	for changed := true; changed; {
		changed = false
		for _, oc := range p.list {
			c := oc.ch
			for _, pm := range oc.pending {
				if from, ok := exempt[c]; ok && pm.Pos >= from {
					break
				}
				if o.stuckForever(p, pm.UID, exempt) {
					exempt[c] = pm.Pos
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
func (o *Oracle) stuckForever(p *Proc, uid uint64, exempt map[int32]int64) bool {
	m := o.Msg(uid)
	for _, cause := range m.Expressed.Pairs() {
		c := o.NodeChan(cause.Channel)
		if c < 0 {
			continue
		}
		if c == m.Ch && int64(cause.Position) >= m.Pos {
			return true // names itself or a later position of its own channel
		}
		if !p.receives(c) {
			continue
		}
		q := int64(cause.Position)
		if from, ok := exempt[c]; ok && q >= from {
			return true
		}
		if o.Alive(c) && o.RecordAt(c, q) == 0 {
			return true
		}
	}
	return false
}

package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// Interesting targets: the facts the target rules (package shape, targets.go) read through
// shapeView, and the memo of where a fail-closed fault has a target. They read the world's
// state alone, never which sabotage mode is on.

// explored reports whether the world is being explored (RunOptions.explored). The explorer's
// chooser tells a zero weight only from a non-zero one (explore.StepChooser.Choose): it enumerates
// every candidate whatever its bias, so an explored world skips computing bias weights that never
// turn a candidate's weight to or from zero (shape.Run.Explored; TestExploredWeightsKeepCandidates).
func (w *World) explored() bool { return w.opts.explored }

// topicDisturbed reports whether topic t was hit by a fault that stops receivers: it was deleted
// or recreated, or a current channel of it was truncated (by delete-records or retention).
func (w *World) topicDisturbed(t int) bool {
	inc := w.topics[t].inc
	if inc < 0 {
		return true
	}
	if len(w.topicIncs.Of(t)) > 1 { // an earlier incarnation
		return true
	}
	in := &w.incs[inc]
	for i := range in.parts {
		if w.offsets(in.firstChan+int32(i)).LogStart > 0 {
			return true
		}
	}
	return false
}

// receivesNow reports whether channel c is in p's current (or, when down, last) received set.
func (p *proc) receivesNow(c int32) bool {
	pc := p.pcs.At(c)
	return pc != nil && pc.received
}

// readPosition is where p would read channel pc next: the working read position of a running
// execution, the committed position of a down process (-1, none, reads from the log start).
func (p *proc) readPosition(pc *pcState) int64 {
	if p.status == procRunning {
		return pc.readPos
	}
	return pc.committedPos
}

// heldBackOnTopic reports whether p holds a message on a received channel of topic t's current
// incarnation that a drain has already held back (it waits for a cause or behind a blocked head),
// not merely one fed since the last drain.
func (p *proc) heldBackOnTopic(t int) bool {
	return p.anyOnTopic(t, func(pc *pcState) bool { return p.o.HeldBack(pc.ch) })
}

// holdsOnTopic reports whether p has fed, undelivered messages on a received channel of topic
// t's current incarnation.
func (p *proc) holdsOnTopic(t int) bool {
	return p.anyOnTopic(t, func(pc *pcState) bool { return p.o.HasPending(pc.ch) })
}

// faultHasTarget reports whether fail-closed kind k has an interesting target now: a live
// external topic a receiver holds a blocked head on that a rollback keeps (blockedOnTopic: a hold
// that is not blocked is delivered first after the deletion, so nothing could be delivered past
// it); one with a running receiver (recreation), a channel a live receiver has not read to its
// end (truncation), an external partition with a live receiver (a corrupt header).
// k must be switched on (Settings.FaultAtStep). The answer comes from a memo (package targets),
// built at the first question for the kinds switched on, which recomputes only the contributions
// (targetsOf) that went stale: a process's when it is about to change (proc.own: a deletion or a
// recreation owns every receiver it reaches), its readers' when a channel's log moves
// (refreshLSO, which a truncation calls too) or its high watermark moves under an open
// transaction (staleChannelTargets).
func (w *World) faultHasTarget(k spec.ActionKind) bool {
	return w.memo().Has(slices.Index(swarm.FailClosedKinds, k))
}

// memo returns the world's memo of fault targets and action masks, built at its first question.
func (w *World) memo() *targets.Memo {
	if w.targets == nil {
		kinds := uint8(0)
		for j, k := range swarm.FailClosedKinds {
			if w.set.FaultAtStep[k] != 0 {
				kinds |= 1 << j
			}
		}
		w.targets = targets.New(len(w.procs), len(w.topics), kinds, 1<<slices.Index(swarm.FailClosedKinds, spec.ActProduceCorrupt), w.targetsOf, w.maskAt, w.declaredOf, w.factsOf)
	}
	return w.targets
}

// staleChannelTargets marks the contributions of channel c's readers out of date.
func (w *World) staleChannelTargets(c int32) {
	for _, i := range w.readers.Of(int(c)) {
		w.targets.Stale(int(i))
	}
}

// targetsOf is process i's contribution to the memo (targets.Contribution): anyFaultTarget's
// conditions but sparesDoomed, which the memo counts, and faultHasTarget's (targetCond).
func (w *World) targetsOf(i int, kinds uint8, add func(t int, targetOf uint8)) (doomed bool) {
	p := w.procs[i]
	if p.status == procFailed {
		return false
	}
	doomed = p.doomed()
	for _, pc := range p.recv {
		t, m := w.chans[pc.ch].topic, uint8(0)
		if !doomed && w.topics[t].inc >= 0 && p.declares(t) { // aimable's conditions on p and t
			for j, k := range swarm.FailClosedKinds {
				if kinds&(1<<j) != 0 && aimsAt(k, w.topics[t].spec) && targetCond(k, p, t) {
					m |= 1 << j
				}
			}
		}
		add(t, m)
	}
	return doomed
}

// aimable reports whether fail-closed kind k may aim at topic t through its receiver p: t is live
// and p declares it, and k aims at it (aimsAt).
func (w *World) aimable(k spec.ActionKind, p *proc, t int) bool {
	return w.topics[t].inc >= 0 && aimsAt(k, w.topics[t].spec) && p.declares(t)
}

// aimsAt reports whether fail-closed kind k may aim at topic ts: it is external (any topic for a
// truncation) and not spared from k.
func aimsAt(k spec.ActionKind, ts *spec.TopicSpec) bool {
	return (ts.External || k == spec.ActDeleteRecords) && !ts.Spares(k)
}

// targetCond is faultHasTarget's condition on receiver p of topic t for kind k.
func targetCond(k spec.ActionKind, p *proc, t int) bool {
	switch k {
	case spec.ActDeleteTopic:
		return p.blockedOnTopic(t)
	case spec.ActRecreateTopic:
		return p.status == procRunning
	case spec.ActDeleteRecords:
		return p.unreadOnTopic(t)
	}
	return true
}

// anyFaultTarget reports whether cond holds for some p and t that fail-closed kind k may aim at:
// aimable, p neither failed nor doomed, and (but for a corrupt header) sparesDoomed(t).
func (w *World) anyFaultTarget(k spec.ActionKind, cond func(p *proc, t int) bool) bool {
	memo := make([]int8, len(w.procs)) // doomed() of the processes asked so far: 1 no, 2 yes
	doomed := func(p *proc) bool {
		if memo[p.idx] == 0 {
			memo[p.idx] = 1
			if p.doomed() {
				memo[p.idx] = 2
			}
		}
		return memo[p.idx] == 2
	}
	spared := map[int]bool{} // sparesDoomed(t) of the topics met so far
	for _, p := range w.procs {
		if p.status == procFailed || doomed(p) {
			continue
		}
		for _, pc := range p.recv {
			t := w.chans[pc.ch].topic
			if !w.aimable(k, p, t) {
				continue
			}
			if k != spec.ActProduceCorrupt {
				if _, ok := spared[t]; !ok {
					spared[t] = w.sparesDoomed(t, doomed)
				}
				if !spared[t] {
					continue
				}
			}
			if cond(p, t) {
				return true
			}
		}
	}
	return false
}

// unreadOnTopic reports whether p has not read some received channel of topic t's current
// incarnation to its end.
func (p *proc) unreadOnTopic(t int) bool {
	return p.anyOnTopic(t, func(pc *pcState) bool {
		return p.w.alive(pc.ch) && p.readPosition(pc) < int64(p.w.offsets(pc.ch).HighWatermark)
	})
}

// lastRecordBelow returns the position of the last committed record of channel c in [lo,
// before), or -1.
func (w *World) lastRecordBelow(c int32, lo, before int64) int64 {
	for o := before - 1; o >= max(lo, 0); o-- {
		if w.or.RecordAt(c, o) != 0 {
			return o
		}
	}
	return -1
}

// unreadCorrupt reports whether a channel of topic t's current incarnation has an undecodable record
// at or above the read position of a receiver that has not failed closed: a receiver is still to
// read it.
func (w *World) unreadCorrupt(t int) bool {
	inc := w.topics[t].inc
	if inc < 0 {
		return false
	}
	in := &w.incs[inc]
	for i := range in.parts {
		c := in.firstChan + int32(i)
		lso := w.chans[c].lso
		for _, r := range w.readers.Of(int(c)) {
			p := w.procs[r]
			pc := p.pcs.At(c)
			if !pc.received || p.status == procFailed {
				continue
			}
			for o := max(p.readPosition(pc), 0); o < lso; o++ {
				if uid := w.or.RecordAt(c, o); uid != 0 && w.or.Msg(uid).Undecodable {
					return true
				}
			}
		}
	}
	return false
}

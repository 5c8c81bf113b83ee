package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// The safety-phase scheduler. Each step asks the Chooser which enabled action kind fires (weights
// from the settings, zero for kinds with no eligible target), then which target (process,
// channel, topic, offset) — always over lists in a fixed order, so a run is a pure function of
// its choices.

// maskOf computes the kinds p is an eligible target of, less the exemptions of the rules on
// eligibility (shape.LeftRunning, shape.Redeclarable, shape.FeedPause).
func (w *World) maskOf(p *proc) explore.Mask {
	var m explore.Mask
	switch p.status {
	case procRunning:
		if !shape.LeftRunning(w.set, (*shapeView)(w), p.idx) {
			m |= 1<<spec.ActCrash | 1<<spec.ActStop | 1<<spec.ActMigrate | 1<<spec.ActZombie
		}
		if p.feedableAt(w.step + 1) { // the step the chosen action runs at
			m |= 1 << spec.ActFeed
		}
		if p.drainable {
			m |= 1 << spec.ActDrain
		}
		if p.stepDirty {
			m |= 1 << spec.ActCommit
			if m&(1<<spec.ActCrash) != 0 {
				m |= 1 << spec.ActCommitCrash
			}
		}
	case procDown:
		m |= 1 << spec.ActStart
		if shape.Redeclarable((*shapeView)(w), p.idx) {
			m |= 1 << spec.ActRedeclare
		}
		if w.rewindable(p) {
			m |= 1 << spec.ActRewind
		}
	}
	return m
}

// rewindable reports whether down process p has a committed position above 0 on a live channel.
func (w *World) rewindable(p *proc) bool {
	return slices.ContainsFunc(p.recv, func(pc *pcState) bool { return pc.committedPos > 0 && w.alive(pc.ch) })
}

// chooseAction picks the next action kind, or reports false when nothing is enabled. It fills
// masks with every process's mask or, when masks is nil, refreshes the masks the memo keeps.
func (w *World) chooseAction(masks []explore.Mask) (spec.ActionKind, bool) {
	var any explore.Mask
	if masks == nil {
		any = explore.Mask(w.memo().Masks().Refresh())
	}
	for i, p := range w.procs[:len(masks)] {
		masks[i] = w.maskOf(p)
		any |= masks[i]
	}
	if w.kinds.Fill(w.set, uint32(any)|w.worldKinds()) == 0 {
		return 0, false
	}
	shape.KindWeights(w.shapeRun(), &w.kinds)
	return spec.ActionKind(w.chooser.ChooseFrom("action", &w.kinds)), true
}

// anyRemovableHolds reports whether some down process has removableHolds while no redeclaration
// has removed a channel with holds yet (the first removal tests it; more only end deliveries early).
func (w *World) anyRemovableHolds() bool {
	if w.removedWithHolds() {
		return false
	}
	for _, p := range w.procs {
		if p.status == procDown && p.removableHolds() && !p.doomed() {
			return true
		}
	}
	return false
}

// worldKinds is the set (bit k: kind k) of the kinds acting on topics, logs, transactions or
// session clients that have a target; an action kind acting on a process has one where the union
// of the process masks has it. A corrupt record and a recreation need a topic that is not
// deletion-only too. The kinds whose test reads more than a count are tested only when the
// settings weigh them.
func (w *World) worldKinds() uint32 {
	on, weights := uint32(1<<spec.ActDeleteRecords), &w.set.Weights
	if w.liveExternals > 0 {
		on |= 1<<spec.ActProducePlain | 1<<spec.ActTxnAbort | 1<<spec.ActDeleteTopic
		if w.recentN > 0 {
			on |= 1 << spec.ActProduceStamped
		}
		if !w.ext.open {
			on |= 1 << spec.ActTxnOpen
		}
		if weights[spec.ActProduceCorrupt] > 0 && w.anyFaultable(spec.ActProduceCorrupt, true) {
			on |= 1 << spec.ActProduceCorrupt
		}
	}
	if w.ext.open {
		on |= 1 << spec.ActTxnClose
	}
	if w.set.RetentionMicros > 0 || w.set.RetentionRecords > 0 {
		on |= 1 << spec.ActRetention
	}
	if w.externals > 0 && weights[spec.ActRecreateTopic] > 0 && w.anyFaultable(spec.ActRecreateTopic, false) {
		on |= 1 << spec.ActRecreateTopic
	}
	for k := spec.ActSessionWrite; w.sess != nil && k <= spec.ActTokenDamage; k++ { // the session kinds
		if weights[k] > 0 && w.sessionEnabled(k) {
			on |= 1 << k
		}
	}
	return on
}

// maskAt is process i's mask as the memo keeps it (targets.MaskFunc): maskOf, which reads the step
// only where a feed pause keeps the feed off.
func (w *World) maskAt(i int) (uint32, bool) {
	m := w.maskOf(w.procs[i])
	return uint32(m), m&(1<<spec.ActFeed) == 0 && w.procs[i].anyFeedable()
}

// chooseProc picks a process whose mask (in masks or, when nil, the memo's) has kind k; a
// redeclaration prefers one with holds it can remove (shape.RedeclareProcWeight), a rewind one
// that is not doomed (shape.RewindProcWeight).
func (w *World) chooseProc(label string, k spec.ActionKind, masks []explore.Mask) *proc {
	var kept choose.Options
	if masks == nil {
		kept = w.targets.Masks().Kind(int(k))
		if k != spec.ActRedeclare && k != spec.ActRewind { // every weight 1: drawn from the memo's index
			return w.procs[w.chooser.ChooseFrom(label, kept)]
		}
	}
	weights := w.weights.Zeroed(len(w.procs))
	for i := range w.procs {
		if masks == nil && kept.Weight(i) == 0 || masks != nil && masks[i]&(1<<k) == 0 {
			continue
		}
		switch k {
		case spec.ActRedeclare:
			weights[i] = shape.RedeclareProcWeight((*shapeView)(w), i)
		case spec.ActRewind:
			weights[i] = shape.RewindProcWeight((*shapeView)(w), i)
		default:
			weights[i] = 1
		}
	}
	return w.procs[w.chooser.Choose(label, weights)]
}

// chooseExternal picks the external topic action kind k targets — a live one, or any for a
// recreation — weighed by the target rules (shape.ExternalWeights; obs is the record a stamped
// record names, 0 otherwise) and returns its index.
func (w *World) chooseExternal(label string, k spec.ActionKind, obs uint64) int {
	return w.chooser.Choose(label, shape.ExternalWeights(w.shapeRun(), k, obs, w.weights.Zeroed(len(w.topics))))
}

// declaredOf is process i's part of the declarer counts (targets.Declared).
func (w *World) declaredOf(i int, add func(t int, blocked bool)) {
	if p := w.procs[i]; p.status != procFailed {
		for _, t := range p.declared {
			add(t, p.blockedOnTopic(t))
		}
	}
}

// chooseProducePartition picks a partition channel of live topic t for a produce, biased toward
// partitions with live receivers (shape.PartitionWeight; k and obs as for chooseExternal).
func (w *World) chooseProducePartition(label string, k spec.ActionKind, t int, obs uint64) int32 {
	inc := w.topics[t].inc
	weights := w.weights.Zeroed(w.incs[inc].parts)
	r := w.shapeRun()
	for i := range weights {
		weights[i] = shape.PartitionWeight(r, k, w.chanOf(inc, i), obs)
	}
	return w.chanOf(inc, w.chooser.Choose(label, weights))
}

// chooseOffset picks one of cands.
func (w *World) chooseOffset(label string, cands []int64) int64 {
	return cands[w.chooser.ChooseFrom(label, choose.Uniform(len(cands)))]
}

// faultDue reports whether fail-closed kind k is due (shape.FaultDue).
func (w *World) faultDue(k spec.ActionKind) bool { return shape.FaultDue(w.shapeRun(), k) }

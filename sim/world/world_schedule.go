package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// The safety-phase scheduler. Each step asks the Chooser which enabled action kind fires (weights
// from the settings, zero for kinds with no eligible target), then which target (process,
// channel, topic, offset) — always over lists in a fixed order, so a run is a pure function of
// its choices.

// processKinds are the action kinds that act on one process.
var processKinds = []spec.ActionKind{spec.ActFeed, spec.ActDrain, spec.ActCommit, spec.ActCrash, spec.ActStop, spec.ActStart, spec.ActRewind,
	spec.ActRedeclare, spec.ActMigrate, spec.ActZombie, spec.ActCommitCrash}

// maskOf computes the kinds p is an eligible target of.
func (w *World) maskOf(p *proc) explore.Mask {
	var m explore.Mask
	switch p.status {
	case procRunning:
		if !w.set.SpareDeadHoldSurvivors || !p.heldOnDead() { // a survivor is left to show what it does next (world_doomed.go)
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
		if !p.readsDeletionOnly() {
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
	weights := w.kindWeights[:]
	clear(weights)
	total := uint32(0)
	liveExt := w.liveExternals > 0
	for k := range spec.NumActionKinds {
		if w.set.Weights[k] == 0 || !w.kindEnabled(spec.ActionKind(k), any, liveExt) {
			continue
		}
		weights[k] = w.set.Weights[k]
		total += weights[k]
	}
	if total == 0 {
		return 0, false
	}
	w.shapeKindWeights(weights, total)
	return spec.ActionKind(w.chooser.Choose("action", weights)), true
}

// shapeKindWeights applies the schedule's weight rules to the enabled kinds' weights (total is
// their sum before any rule): lastCall, dueFailClosed and removeHeldChannelsLate, in that order.
// The rules change only weights, never which kinds are enabled, so the set of possible choices
// stays the same.
func (w *World) shapeKindWeights(weights []uint32, total uint32) {
	end := len(w.procs) + w.set.SafetySteps
	w.lastCall(weights, total, end)
	w.dueFailClosed(weights, total, end)
	w.removeHeldChannelsLate(weights, end)
}

// lastCall is the rule "every fault class a seed switches on is exercised". In the last
// 1/swarm.LastCallFraction of the safety phase (end is the world step it ends at), every enabled
// optional fault kind without a due step (Settings.FaultAtStep) that has not fired yet weighs at
// least half of the enabled kinds' total: a rewind or a redeclaration, say, waits for a process
// to be down, and a seed whose settings switch such a class on would otherwise often end without
// it, so its sabotage modes would count the seed as eligible while nothing exposed them.
func (w *World) lastCall(weights []uint32, total uint32, end int) {
	if w.step+1 < end-w.set.SafetySteps/swarm.LastCallFraction {
		return
	}
	for k := range spec.NumActionKinds {
		if !swarm.AlwaysOn(spec.ActionKind(k)) && w.set.FaultAtStep[k] == 0 && weights[k] > 0 && w.stats.Actions[k] == 0 {
			weights[k] = max(weights[k], total/2)
		}
	}
}

// dueFailClosed is the rule "each fail-closed fault fires once, late, at a target that shows
// something". A fail-closed kind that is on and has not fired weighs swarm.FaultDueBoost times the
// enabled kinds' total from its step on (faultDue: Settings.FaultAtStep, late in the safety
// phase, after holds have built up; earlier where dueEarlyKinds or deletionDueEarly say so), as
// soon as it has an interesting target (faultHasTarget), and in the last thirtieth of the safety
// phase whatever its targets. A fail-closed fault stops its receivers for good in an honest run,
// so at random times it would mostly come early and end the run's deliveries; never firing, it
// would leave its sabotage modes unexposed.
func (w *World) dueFailClosed(weights []uint32, total uint32, end int) {
	lastCall := end - w.set.SafetySteps/30
	for _, k := range swarm.FailClosedKinds {
		if weights[k] == 0 || !w.faultDue(k) {
			continue
		}
		if w.step+1 >= lastCall || w.faultHasTarget(k) {
			weights[k] = swarm.FaultDueBoost * total
		}
	}
}

// removeHeldChannelsLate is the rule "a redeclaration removes a channel with holds, once, late".
// In the last swarm.RedeclareLatePct of the safety phase, while some down process holds messages on a
// channel a redeclaration can remove and no removal with holds has happened yet
// (anyRemovableHolds), a redeclaration weighs swarm.RedeclareHeldBoost times more: removing a channel
// with holds is the redeclaration that tests something (the engine must refuse rather than drop
// the holds), and the holds are there only for a while.
func (w *World) removeHeldChannelsLate(weights []uint32, end int) {
	if weights[spec.ActRedeclare] > 0 && w.step+1 >= end-w.set.SafetySteps*swarm.RedeclareLatePct/100 && w.anyRemovableHolds() {
		weights[spec.ActRedeclare] *= swarm.RedeclareHeldBoost
	}
}

// anyRemovableHolds reports whether some down process has removableHolds while no redeclaration
// has removed a channel with holds yet (the first such removal tests it; more would only stop
// more receivers, which fail closed after it, and end the run's deliveries early).
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

// kindEnabled reports whether kind k has an eligible target (any: the union of process masks;
// liveExt: some external topic is live). A corrupt record and a recreation also need an external
// topic that is not deletion-only (anyFaultable).
func (w *World) kindEnabled(k spec.ActionKind, any explore.Mask, liveExt bool) bool {
	switch k {
	case spec.ActProducePlain, spec.ActTxnAbort, spec.ActDeleteTopic:
		return liveExt
	case spec.ActProduceCorrupt:
		return liveExt && w.anyFaultable(k, true)
	case spec.ActProduceStamped:
		return w.recentN > 0 && liveExt
	case spec.ActTxnOpen:
		return !w.ext.open && liveExt
	case spec.ActTxnClose:
		return w.ext.open
	case spec.ActDeleteRecords:
		return true
	case spec.ActRetention:
		return w.set.RetentionMicros > 0 || w.set.RetentionRecords > 0
	case spec.ActRecreateTopic:
		return w.externals > 0 && w.anyFaultable(k, false)
	case spec.ActSessionWrite, spec.ActSessionRead, spec.ActTokenDamage:
		return w.sessionEnabled(k)
	}
	return any&(1<<k) != 0
}

// maskAt is process i's mask as the memo keeps it (targets.MaskFunc): maskOf, which reads the step
// only where a feed pause keeps the feed off.
func (w *World) maskAt(i int) (uint32, bool) {
	m := w.maskOf(w.procs[i])
	return uint32(m), m&(1<<spec.ActFeed) == 0 && w.procs[i].anyFeedable()
}

// chooseProc picks a process whose mask (in masks or, when nil, the memo's) has kind k; a
// redeclaration prefers one with holds it can remove (redeclareProcWeight), a rewind one that is
// not doomed (rewindProcWeight).
func (w *World) chooseProc(label string, k spec.ActionKind, masks []explore.Mask) *proc {
	var kept choose.Options
	if masks == nil {
		kept = w.targets.Masks().Kind(int(k))
		if k != spec.ActRedeclare && k != spec.ActRewind { // every weight 1: drawn from the memo's index
			return w.procs[w.chooser.ChooseFrom(label, kept)]
		}
	}
	weights := w.weights.Zeroed(len(w.procs))
	for i, p := range w.procs {
		if masks == nil && kept.Weight(i) == 0 || masks != nil && masks[i]&(1<<k) == 0 {
			continue
		}
		switch k {
		case spec.ActRedeclare:
			weights[i] = w.redeclareProcWeight(p)
		case spec.ActRewind:
			weights[i] = rewindProcWeight(p)
		default:
			weights[i] = 1
		}
	}
	return w.procs[w.chooser.Choose(label, weights)]
}

// chooseExternal picks the external topic action kind k targets — a live one, or any for a
// recreation — biased toward interesting targets (externalWeight; obs is the record a stamped
// record names, 0 otherwise) and returns its index. A produce's weights, sums over a topic's
// declarers, come from counts the memo keeps (declaredOf) and, for a stamped record, from the
// receivers of obs's channel (sharedBonus).
func (w *World) chooseExternal(label string, k spec.ActionKind, obs uint64) int {
	return w.chooser.Choose(label, w.externalWeights(k, obs, w.weights.Zeroed(len(w.topics))))
}

// externalWeights fills weights, zeroed, with chooseExternal's weights and returns it.
func (w *World) externalWeights(k spec.ActionKind, obs uint64, weights []uint32) []uint32 {
	var decl *targets.Declarers
	if (k == spec.ActProducePlain || k == spec.ActProduceStamped) && !w.explored() {
		decl = w.memo().Declarers(len(w.topics), w.declaredOf)
		if m := w.msgOf(obs); m != nil && k == spec.ActProduceStamped {
			w.sharedBonus(m, weights)
		}
	}
	for t := range w.topics {
		if !w.topics[t].spec.External || (k != spec.ActRecreateTopic && w.topics[t].inc < 0) {
			weights[t] = 0
		} else if decl != nil {
			live, blocked := decl.Of(t)
			weights[t] += 1 + live*swarm.TargetLiveReceiver
			if k == spec.ActProducePlain {
				weights[t] += blocked * (swarm.TargetBlockedHead / 2)
			}
		} else {
			weights[t] = w.externalWeight(k, t, obs)
		}
	}
	return weights
}

// declaredOf is process i's part of the declarer counts (targets.Declared).
func (w *World) declaredOf(i int, add func(t int, blocked bool)) {
	if p := w.procs[i]; p.status != procFailed {
		for _, t := range p.declared {
			add(t, p.blockedOnTopic(t))
		}
	}
}

// sharedBonus adds to weights, for a stamped record naming m, receiverBonus's part for m: per
// live receiver of m's channel, to each other topic it declares.
func (w *World) sharedBonus(m *oracle.Message, weights []uint32) {
	for _, i := range w.readers.Of(int(m.Ch)) {
		if p := w.procs[i]; p.status != procFailed && p.receivesNow(m.Ch) {
			b := uint32(swarm.TargetSharedReceiver)
			if p.unfedAt(m.Ch, m.Pos) {
				b += swarm.TargetUnfedCause
			}
			for _, t := range p.declared {
				if t != w.chans[m.Ch].topic {
					weights[t] += b
				}
			}
		}
	}
}

// chooseProducePartition picks a partition channel of live topic t for a produce, biased toward
// partitions with live receivers (partitionWeight; k and obs as for chooseExternal).
func (w *World) chooseProducePartition(label string, k spec.ActionKind, t int, obs uint64) int32 {
	inc := w.topics[t].inc
	weights := w.weights.Zeroed(w.incs[inc].parts)
	for i := range weights {
		weights[i] = w.partitionWeight(k, w.chanOf(inc, i), obs)
	}
	return w.chanOf(inc, w.chooser.Choose(label, weights))
}

// chooseOffset picks one of cands.
func (w *World) chooseOffset(label string, cands []int64) int64 {
	return cands[w.chooser.ChooseFrom(label, choose.Uniform(len(cands)))]
}

// faultDue reports whether fail-closed kind k is due: it is on, has not fired, and its step
// (Settings.FaultAtStep) has come — or, for a kind that only running receivers meet
// (dueEarlyKinds), from swarm.DueEarlyPct of the safety phase on, once at most one process is left to
// aim it at (aimableReceivers): the run is losing its receivers to earlier faults, and at its
// step the fault would find none. A deletion is due early the same way once it has a target
// (deletionDueEarly).
func (w *World) faultDue(k spec.ActionKind) bool {
	at := w.set.FaultAtStep[k]
	if at == 0 || w.faultFired(k) {
		return false
	}
	if w.step+1 >= at {
		return true
	}
	if k == spec.ActDeleteTopic && w.deletionDueEarly() {
		return true
	}
	from := len(w.procs) + w.set.SafetySteps*swarm.DueEarlyPct/100
	return slices.Contains(dueEarlyKinds, k) && w.step+1 >= from && w.aimableReceivers() <= 1
}

// faultFired reports whether fail-closed kind k has fired. A corrupt produce fires the fault only
// with a record a receiver must refuse: a near miss that decodes is a forged record, which
// stops nobody, so the fault stays due after one.
func (w *World) faultFired(k spec.ActionKind) bool {
	if k == spec.ActProduceCorrupt {
		return w.stats.Corrupt > w.stats.CorruptDecodable
	}
	return w.stats.Actions[k] > 0
}

// dueEarlyKinds are the fail-closed kinds due early when the run is losing its receivers
// (faultDue): a recreation reaches only the receivers running when it fires (a down one fails
// closed at its next start whatever its engine does, as its stored name binding no longer
// matches), so with no running receiver left it tests nothing. The other kinds keep their step:
// a truncation or a corrupt record waits in the log for a receiver to read it, and a deletion
// needs a held message; and each fault due early would stop the last receiver the other faults
// need.
var dueEarlyKinds = []spec.ActionKind{spec.ActRecreateTopic}

package shape

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The rules on the action kind: which kind the scheduler's next step takes is drawn from the
// settings' weights, and these rules raise the weight of a kind when the run needs it. They
// change weights only, never which kinds are enabled, so the set of possible choices stays the
// same.

const (
	// lastCallFraction: LastCall acts in the last 1/lastCallFraction of the safety phase.
	lastCallFraction = 6
	// faultDueBoost is how many times the other kinds' total weight a due fail-closed fault
	// weighs (DueFailClosed): it fires at its step with probability 4/5, and within a few steps
	// almost surely.
	faultDueBoost = 4
	// redeclareHeldBoost multiplies the weight of a redeclaration under RemoveHeldChannelsLate.
	redeclareHeldBoost = 20
	// redeclareLatePct is the last part of the safety phase, in percent, in which
	// RemoveHeldChannelsLate applies: a removal makes its receiver fail closed, so earlier it
	// would end the deliveries the run's other faults need. It reaches further back than the late
	// fail-closed faults because a recreation may come early (dueEarlyPct) and stop the last
	// receivers a removal could find.
	redeclareLatePct = 70
	// dueEarlyPct is the part of the safety phase, in percent, before which no fault is due
	// early (FaultDue): the run first delivers and builds up holds.
	dueEarlyPct = 40
)

// Kinds is the list an action choice draws from, one weight per action kind, as choose.Options:
// a draw reads the enabled kinds only, and knows their total. The rules on the action kind
// (KindWeights) raise weights, never turn one to or from zero.
type Kinds struct {
	weights [spec.NumActionKinds]uint32 // non-zero exactly for the kinds in on
	on      uint32                      // bit k: kind k
	total   uint64                      // the sum of weights
}

// Fill sets l to the kinds of enabled (bit k: kind k) that set weighs, at set's weights, and
// returns their total.
func (l *Kinds) Fill(set *swarm.Settings, enabled uint32) (total uint32) {
	l.weights, l.on = [spec.NumActionKinds]uint32{}, 0
	for on := enabled; on != 0; on &= on - 1 {
		k := bits.TrailingZeros32(on)
		if wk := set.Weights[k]; wk > 0 {
			l.weights[k] = wk
			l.on |= 1 << k
			total += wk
		}
	}
	l.total = uint64(total)
	return total
}

// raise sets kind k's weight to wk, keeping the total in step.
func (l *Kinds) raise(k spec.ActionKind, wk uint32) {
	l.total += uint64(wk) - uint64(l.weights[k])
	l.weights[k] = wk
}

// Len, Count, Total, Weight, Dense and Find make Kinds a choose.Options: every kind is an option
// (Len), the enabled ones are those of non-zero weight (Count, Total), and Find walks only them,
// in kind order, as a chooser's scan of the whole list would.
func (l *Kinds) Len() int                    { return len(l.weights) }
func (l *Kinds) Count() int                  { return bits.OnesCount32(l.on) }
func (l *Kinds) Total() uint64               { return l.total }
func (l *Kinds) Weight(i int) uint32         { return l.weights[i] }
func (l *Kinds) Dense(dst []uint32) []uint32 { return append(dst, l.weights[:]...) }

func (l *Kinds) Find(r uint64) int {
	for on := l.on; on != 0; on &= on - 1 {
		k := bits.TrailingZeros32(on)
		if r < uint64(l.weights[k]) {
			return k
		}
		r -= uint64(l.weights[k])
	}
	panic(fmt.Sprintf("shape: Find(%d) past the enabled kinds' total %d", r, l.total))
}

// KindWeights applies the rules on the action kind to the enabled kinds' weights in l, filled
// from the settings (Kinds.Fill): LastCall, DueFailClosed and RemoveHeldChannelsLate, in that
// order, each reading the enabled kinds' total before any rule.
func KindWeights(r *Run, l *Kinds) {
	end, total := r.Procs+r.Settings.SafetySteps, uint32(l.total)
	LastCall(r, l, total, end)
	DueFailClosed(r, l, total, end)
	RemoveHeldChannelsLate(r, l, end)
}

// LastCall is the rule "every fault class a seed switches on is exercised". In the last
// 1/lastCallFraction of the safety phase (end is the world step it ends at), every enabled
// optional fault kind without a due step (Settings.FaultAtStep) that has not fired yet weighs at
// least half of the enabled kinds' total: a rewind or a redeclaration, say, waits for a process
// to be down, and a seed whose settings switch such a class on would otherwise often end without
// it, so its sabotage modes would count the seed as eligible while nothing exposed them.
func LastCall(r *Run, l *Kinds, total uint32, end int) {
	set, stats := r.Settings, r.Stats
	if r.Step+1 < end-set.SafetySteps/lastCallFraction {
		return
	}
	for on := l.on; on != 0; on &= on - 1 {
		k := spec.ActionKind(bits.TrailingZeros32(on))
		if !swarm.AlwaysOn(k) && set.FaultAtStep[k] == 0 && stats.Actions[k] == 0 {
			l.raise(k, max(l.weights[k], total/2))
		}
	}
}

// DueFailClosed is the rule "each fail-closed fault fires once, late, at a target that shows
// something". A fail-closed kind that is on and has not fired weighs faultDueBoost times the
// enabled kinds' total from its step on (FaultDue: Settings.FaultAtStep, late in the safety
// phase, after holds have built up; earlier where dueEarlyKinds or DeletionDueEarly say so), as
// soon as it has an interesting target (World.FaultHasTarget), and in the last thirtieth of the
// safety phase whatever its targets. A fail-closed fault stops its receivers for good in an
// honest run, so at random times it would mostly come early and end the run's deliveries; never
// firing, it would leave its sabotage modes unexposed.
func DueFailClosed(r *Run, l *Kinds, total uint32, end int) {
	lastCall := end - r.Settings.SafetySteps/30
	for on := l.on & failClosed; on != 0; on &= on - 1 {
		k := spec.ActionKind(bits.TrailingZeros32(on))
		if FaultDue(r, k) && (r.Step+1 >= lastCall || r.World.FaultHasTarget(k)) {
			l.raise(k, faultDueBoost*total)
		}
	}
}

// failClosed is swarm.FailClosedKinds as a set (bit k: kind k).
var failClosed = func() (set uint32) {
	for _, k := range swarm.FailClosedKinds {
		set |= 1 << k
	}
	return set
}()

// RemoveHeldChannelsLate is the rule "a redeclaration removes a channel with holds, once, late".
// In the last redeclareLatePct of the safety phase, while some down process holds messages on a
// channel a redeclaration can remove and no removal with holds has happened yet
// (World.AnyRemovableHolds), a redeclaration weighs redeclareHeldBoost times more: removing a
// channel with holds is the redeclaration that tests something (the engine must refuse rather
// than drop the holds), and the holds are there only for a while.
func RemoveHeldChannelsLate(r *Run, l *Kinds, end int) {
	if l.weights[spec.ActRedeclare] > 0 && r.Step+1 >= end-r.Settings.SafetySteps*redeclareLatePct/100 && r.World.AnyRemovableHolds() {
		l.raise(spec.ActRedeclare, l.weights[spec.ActRedeclare]*redeclareHeldBoost)
	}
}

// FaultDue reports whether fail-closed kind k is due: it is on, has not fired (FaultFired), and
// its step (Settings.FaultAtStep) has come — or, for a kind that only running receivers meet
// (dueEarlyKinds), from dueEarlyPct of the safety phase on, once at most one process is left to
// aim it at (World.AimableReceivers): the run is losing its receivers to earlier faults, and at
// its step the fault would find none. A deletion is due early the same way once it has a target
// (DeletionDueEarly).
func FaultDue(r *Run, k spec.ActionKind) bool {
	at := r.Settings.FaultAtStep[k]
	if at == 0 || FaultFired(r.Stats, k) {
		return false
	}
	return r.Step+1 >= at || dueEarly(r, k)
}

// dueEarly reports whether fail-closed kind k, on and not fired, is due before its step
// (FaultDue): a deletion by DeletionDueEarly, one of dueEarlyKinds once the run is losing its
// receivers.
func dueEarly(r *Run, k spec.ActionKind) bool {
	if k == spec.ActDeleteTopic && DeletionDueEarly(r) {
		return true
	}
	return slices.Contains(dueEarlyKinds, k) && r.Step+1 >= r.Procs+r.Settings.SafetySteps*dueEarlyPct/100 && r.aimableReceivers() <= 1
}

// FaultFired reports whether fail-closed kind k has fired in a run with stats. A corrupt produce
// fires the fault only with a record a receiver must refuse: a near miss that decodes is a forged
// record, which stops nobody, so the fault stays due after one.
func FaultFired(stats *spec.Stats, k spec.ActionKind) bool {
	if k == spec.ActProduceCorrupt {
		return stats.Corrupt > stats.CorruptDecodable
	}
	return stats.Actions[k] > 0
}

// dueEarlyKinds are the fail-closed kinds due early when the run is losing its receivers
// (FaultDue): a recreation reaches only the receivers running when it fires (a down one fails
// closed at its next start whatever its engine does, as its stored name binding no longer
// matches), so with no running receiver left it tests nothing. The other kinds keep their step:
// a truncation or a corrupt record waits in the log for a receiver to read it, and a deletion
// needs a held message; and each fault due early would stop the last receiver the other faults
// need.
var dueEarlyKinds = []spec.ActionKind{spec.ActRecreateTopic}

// quarryDeletePct is the part of the safety phase, in percent, from which a deletion is due as
// soon as a deletion-only topic has a blocked head to delete past (World.DeletionOnlyHeld;
// DeletionDueEarly).
const quarryDeletePct = 30

// deleteEarlyPct is the part of the safety phase, in percent, before which a deletion is never
// due early for want of receivers (DeletionDueEarly).
const deleteEarlyPct = 30

// deleteHoldAgeSteps is how many world steps a blocked head must have been held before an early
// deletion strands it (DeletionDueEarly): long enough for what queues behind it to be fed and
// drained first (a FIFO hold is the other fault that head exposes; the deletion stops its
// receiver in an honest run).
const deleteHoldAgeSteps = 30

// DeletionDueEarly reports whether a topic deletion should come due before its step
// (Settings.FaultAtStep, 55-90% of the safety phase): from quarryDeletePct of the safety phase
// on, once a deletion-only topic has a blocked head to strand (World.DeletionOnlyHeld: the
// deletion quarry); and from deleteEarlyPct of the safety phase on, once at most one process is
// left to aim a fault at (World.AimableReceivers) and a receiver has held a blocked head that a
// deletion can strand for deleteHoldAgeSteps (World.AgedDeletionTarget). The run is losing its
// receivers, and by its step the deletion would most often find no hold to delete past. Waiting
// for one receiver left and an aged hold, rather than coming due at any blocked head, keeps the
// deletion from stopping the receivers the FIFO and corrupt-header checks need.
func DeletionDueEarly(r *Run) bool {
	step, start, safety := r.Step, r.Procs, r.Settings.SafetySteps
	if step+1 >= start+safety*quarryDeletePct/100 && r.World.DeletionOnlyHeld() {
		return true
	}
	if step+1 < start+safety*deleteEarlyPct/100 {
		return false
	}
	return r.aimableReceivers() <= 1 && r.World.AgedDeletionTarget(step-deleteHoldAgeSteps)
}

package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// Interesting targets. A fault or a produce aimed where nobody reads is wasted: a corrupt header
// on a partition no process receives refuses nothing, a truncation behind every read position
// discards nothing unread, deleting a topic whose receivers hold nothing from it tests no hold.
// These weights bias the target choices toward the shapes that expose faults (SPEC §6.2: "holds
// on channels about to be deleted, truncation near held heads"), from the world's state alone —
// never from which sabotage mode is on. Every candidate keeps a weight of at least 1, so the set
// of possible choices is the same as without the bias; the one exception is a property of the
// scenario, not a bias: a deletion-only topic is no candidate of the other fail-closed faults
// (world_deletion_only.go). The weights are named in sim/swarm (targets.go).

// explored reports whether the world is being explored (RunOptions.explored). The explorer's
// chooser tells a zero weight only from a non-zero one (explore.StepChooser.Choose): it enumerates every
// candidate whatever its bias. The bias weights here never turn a candidate's weight to or from
// zero (every candidate keeps at least 1; a deletion-only topic's 0 is decided first), so an
// explored world skips computing them (TestExploredWeightsKeepCandidates).
func (w *World) explored() bool { return w.opts.explored }

// failClosedTarget reports whether action kind k can make a receiver fail closed: whether it is
// one of swarm.FailClosedKinds.
func failClosedTarget(k spec.ActionKind) bool { return slices.Contains(swarm.FailClosedKinds, k) }

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

// externalWeight is how strongly action kind k prefers external topic t: more for every live
// receiver (receiverBonus: every interesting receiver counts, not only the most interesting one);
// for deleting or recreating it, more again for running receivers, for receivers
// holding messages from it, and most for receivers whose head there waits on another channel;
// for a stamped record naming record obs (0 for none), more for receivers of obs's channel, whose
// copy of obs may still be undelivered, and more again when they have not been fed obs yet (the
// stamped record arrives first and is held); for a plain record, more for receivers whose head on
// t is blocked (the plain record queues behind it); for a corrupt record, more for running
// receivers (swarm.TargetCorruptReader), which read it soonest. A fail-closed fault counts only receivers
// that actually receive a partition of t and are not doomed (world_doomed.go); deleting or
// recreating a topic a doomed process receives weighs the minimum (it would stop a survivor of an
// earlier fault), and one that spares them all weighs swarm.TargetSpared more; one with an unread
// corrupt record (unreadCorrupt) weighs a swarm.TargetUnreadCorrupt-th. A deletion-only topic weighs 0
// for every fail-closed fault but its deletion, which weighs targetDeletionOnlyHeld times more
// while it has a blocked head. A record or a topic change aimed where nobody reads is wasted: it
// holds nothing, strands no hold, is refused by nobody.
func (w *World) externalWeight(k spec.ActionKind, t int, obs uint64) uint32 {
	if failClosedTarget(k) && w.topics[t].spec.Spares(k) {
		return 0
	}
	if w.explored() {
		return 1
	}
	endsIncarnation := k == spec.ActDeleteTopic || k == spec.ActRecreateTopic
	if endsIncarnation && !w.sparesDoomed(t, (*proc).doomed) {
		return 1
	}
	sum := uint32(0)
	for _, i := range w.declarers.Of(t) {
		p := w.procs[i]
		if p.status == procFailed {
			continue
		}
		if failClosedTarget(k) && (!p.receivesTopic(t) || p.doomed()) {
			continue
		}
		sum += w.receiverBonus(k, p, t, obs)
	}
	weight := 1 + sum
	if endsIncarnation {
		weight += swarm.TargetSpared
	}
	if failClosedTarget(k) && !w.topicDisturbed(t) {
		weight *= swarm.TargetUndisturbed
	}
	if endsIncarnation && w.unreadCorrupt(t) {
		weight = max(1, weight/swarm.TargetUnreadCorrupt)
	}
	if k == spec.ActDeleteTopic && w.topics[t].spec.DeletionOnly && w.topicBlocked(t) {
		weight *= targetDeletionOnlyHeld
	}
	return weight
}

// receiverBonus is what live receiver p of external topic t adds to externalWeight for action
// kind k (obs as there).
func (w *World) receiverBonus(k spec.ActionKind, p *proc, t int, obs uint64) uint32 {
	b := uint32(swarm.TargetLiveReceiver)
	switch k {
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		if p.status == procRunning {
			b += swarm.TargetRunningReceiver
		}
		if p.blockedOnTopic(t) {
			b += swarm.TargetBlockedHead
		}
		if p.heldBackOnTopic(t) {
			b += swarm.TargetHeldOn
		} else if p.holdsOnTopic(t) {
			b += swarm.TargetHeldOn / 2
		}
	case spec.ActProduceStamped:
		if m := w.msgOf(obs); m != nil && w.chans[m.Ch].topic != t && p.receivesNow(m.Ch) {
			b += swarm.TargetSharedReceiver
			if p.unfedAt(m.Ch, m.Pos) {
				b += swarm.TargetUnfedCause
			}
		}
	case spec.ActProducePlain:
		if p.blockedOnTopic(t) {
			b += swarm.TargetBlockedHead / 2
		}
	case spec.ActProduceCorrupt:
		b += receiverWeight(p, swarm.TargetCorruptReader)
	}
	return b
}

// msgOf returns the message uid, or nil for 0.
func (w *World) msgOf(uid uint64) *oracle.Message {
	if uid == 0 {
		return nil
	}
	return w.or.Msg(uid)
}

// partitionWeight is how strongly a produce of kind k (stamped naming record obs, or 0) prefers
// channel c: more for every live receiver of c; for a stamped record, for each that also receives
// obs's channel and more again if it has not been fed obs yet; for a plain record, for each whose
// head on c is blocked (blockedHead); for a corrupt record, for each running one
// (swarm.TargetCorruptReader). It builds, within the topic externalWeight chose, the same shapes at
// partition grain: a stamped record that reaches a receiver before its cause and is held, a plain
// record that queues behind a held head (FIFO), a corrupt header that a running receiver reads
// soon. A record on a partition nobody in that position reads exposes nothing.
func (w *World) partitionWeight(k spec.ActionKind, c int32, obs uint64) uint32 {
	if w.explored() {
		return 1
	}
	weight := uint32(1)
	m := w.msgOf(obs)
	for _, i := range w.readers.Of(int(c)) {
		p := w.procs[i]
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if k == spec.ActProduceCorrupt && p.doomed() {
			return 1
		}
		weight += swarm.TargetLiveReceiver
		if k == spec.ActProduceCorrupt {
			weight += receiverWeight(p, swarm.TargetCorruptReader)
		}
		if m != nil && m.Ch != c && p.receivesNow(m.Ch) {
			weight += swarm.TargetSharedReceiver
			if p.unfedAt(m.Ch, m.Pos) {
				weight += swarm.TargetUnfedCause
			}
		}
		if k == spec.ActProducePlain && p.blockedHead(p.pcs.At(c)) {
			weight += swarm.TargetBlockedHead / 2
		}
	}
	return weight
}

// truncationWeight is how strongly a truncation prefers live channel c: more for every live
// receiver that has not read it to its end (a truncation can discard records it has not read),
// most for a running one, whose next fetch falls below the new log start at once.
func (w *World) truncationWeight(c int32) uint32 {
	if w.topics[w.chans[c].topic].spec.Spares(spec.ActDeleteRecords) {
		return 0
	}
	if w.explored() {
		return 1
	}
	weight := uint32(1)
	hw := int64(w.offsets(c).HighWatermark)
	for _, i := range w.readers.Of(int(c)) {
		p := w.procs[i]
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if p.readPosition(p.pcs.At(c)) < hw {
			if p.doomed() {
				return 1
			}
			weight += receiverWeight(p, swarm.TargetUnread)
		}
	}
	if !w.topicDisturbed(w.chans[c].topic) {
		weight *= swarm.TargetUndisturbed
	}
	return weight
}

// truncationOffsetWeight is how strongly a truncation of channel c prefers "delete before"
// offset: more when it passes a live receiver's position (records it has not read), most when
// it passes a running one's — shared by the live receivers it passes, so an offset that stops
// one receiver is preferred to one that stops several (each stopped receiver is one fewer for
// the run's other faults and deliveries).
func (w *World) truncationOffsetWeight(c int32, before int64) uint32 {
	if w.explored() {
		return 1
	}
	best, passed := uint32(0), uint32(0)
	for _, i := range w.readers.Of(int(c)) {
		p := w.procs[i]
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if before > p.readPosition(p.pcs.At(c)) {
			if p.doomed() {
				return 1
			}
			best = max(best, receiverWeight(p, swarm.TargetPastRead))
			passed++
		}
	}
	if passed == 0 {
		return 1
	}
	return 1 + best/passed
}

// receiverWeight is bonus for a running receiver p, a quarter of it for a down one (which
// meets the change only if it starts again before another fault stops it).
func receiverWeight(p *proc, bonus uint32) uint32 {
	if p.status == procRunning {
		return bonus
	}
	return bonus / 4
}

// redeclareProcWeight is how strongly a redeclaration prefers down process p: swarm.TargetHeldOn more
// when p holds messages on a channel a redeclaration can remove (removableHolds), is not doomed,
// and no removal with holds has happened yet (removedWithHolds). Removing a channel with holds is
// the redeclaration that tests something; a second one only stops another receiver.
func (w *World) redeclareProcWeight(p *proc) uint32 {
	if p.removableHolds() && !p.doomed() && !w.removedWithHolds() {
		return 1 + swarm.TargetHeldOn
	}
	return 1
}

// redeclareWeight is how strongly a redeclaration of down process p prefers topic t: removing a
// channel p holds messages on is the interesting change.
func (w *World) redeclareWeight(p *proc, t int) uint32 {
	if w.topics[t].spec.Spares(spec.ActRedeclare) {
		return 0
	}
	if p.declares(t) && p.holdsOnTopic(t) {
		if w.removedWithHolds() {
			return 1
		}
		return 1 + swarm.TargetHeldOn
	}
	return 1
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
		w.targets = targets.New(len(w.procs), len(w.topics), kinds, 1<<slices.Index(swarm.FailClosedKinds, spec.ActProduceCorrupt), w.targetsOf, w.maskAt)
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
		for j, k := range swarm.FailClosedKinds {
			if kinds&(1<<j) != 0 && !doomed && w.aimable(k, p, t) && targetCond(k, p, t) {
				m |= 1 << j
			}
		}
		add(t, m)
	}
	return doomed
}

// aimable reports whether fail-closed kind k may aim at topic t through its receiver p: t is live
// and external (any live topic for a truncation) and not spared from k, and p declares t.
func (w *World) aimable(k spec.ActionKind, p *proc, t int) bool {
	topic := &w.topics[t]
	return topic.inc >= 0 && (topic.spec.External || k == spec.ActDeleteRecords) && !topic.spec.Spares(k) && p.declares(t)
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

// rewindProcWeight is how strongly a rewind prefers down process p: more when it is not doomed
// (swarm.TargetRewindable). A rewind re-feeds records the process delivered, which its engine must drop
// as replays when it starts again; a doomed process refuses at its next start whatever it
// re-reads, so rewinding it shows nothing.
func rewindProcWeight(p *proc) uint32 {
	if p.doomed() {
		return 1
	}
	return 1 + swarm.TargetRewindable
}

// rewindChannelWeight is how strongly a rewind prefers received channel pc (committed position
// above 0, live): more when a record lies between its log start and the committed position
// (swarm.TargetRewindable), which the rewind can re-feed. A rewind over markers and truncated offsets
// alone re-feeds nothing, so the engine's replay handling is not exercised.
func (w *World) rewindChannelWeight(pc *pcState) uint32 {
	if w.lastRecordBelow(pc.ch, int64(w.offsets(pc.ch).LogStart), pc.committedPos) < 0 {
		return 1
	}
	return 1 + swarm.TargetRewindable
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

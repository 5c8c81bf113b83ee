package sim

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Interesting targets. A fault or a produce aimed where nobody reads is wasted: a corrupt header
// on a partition no process receives refuses nothing, a truncation behind every read position
// discards nothing unread, deleting a topic whose receivers hold nothing from it tests no hold.
// These weights bias the target choices toward the shapes that expose faults (SPEC §6.2: "holds
// on channels about to be deleted, truncation near held heads"), from the world's state alone —
// never from which sabotage mode is on. Every candidate keeps a weight of at least 1, so the set
// of possible choices is the same as without the bias; the one exception is a property of the
// scenario, not a bias: a deletion-only topic is no candidate of the other fail-closed faults
// (world_deletion_only.go).

// Bias weights added per receiver that makes a target interesting.
const (
	targetLiveReceiver    = 2  // a process that has not failed closed receives the target
	targetRunningReceiver = 12 // ... and is running, so a topic change re-initialises it now
	targetHeldOn          = 16 // ... and holds fed, undelivered messages from it
	targetSharedReceiver  = 6  // ... and also receives the channel a stamped record names
	targetBlockedHead     = 48 // ... and its head there waits on another channel (blockedHead)
	targetUnfedCause      = 24 // ... and has not been fed the record a stamped record names
	// A truncation is aimed hard at running receivers it passes (receiverWeight): aimed weakly,
	// it lands on channels nobody receives, or passes no live receiver although one is there to
	// pass, and exposes nothing.
	targetUnread   = 48 // a live receiver has not read the truncated channel to its end
	targetPastRead = 48 // a truncation offset past a receiver's position
	// A corrupt header is aimed hard at the running receivers that will read it
	// (receiverWeight: a quarter for a down one), on its topic and its partition: a corrupt
	// record on a partition nobody receives, or whose receivers have all stopped, refuses
	// nothing and exposes nothing.
	targetCorruptReader = 48
	// targetRewindable is added to a rewind's process when it is not doomed (world_doomed.go:
	// a doomed process refuses at its next start whatever it re-reads) and to a received
	// channel that has a record between its log start and the committed position (the rewind
	// re-feeds something): a rewind re-feeds delivered records, which the engine must drop as
	// replays.
	targetRewindable = 8
	// targetUnreadCorrupt divides the weight of deleting or recreating a topic with a corrupt
	// record that a live receiver has not read yet (unreadCorrupt): the new incarnation (or no
	// incarnation) erases the corrupt record before anyone reads it, so the run loses the one
	// corrupt header its settings insist on. It divides rather than zeroes the weight: the
	// recreation and deletion faults need those topics too.
	targetUnreadCorrupt = 4
	// targetUndisturbed multiplies the weight of a topic no fail-closed fault has hit yet
	// (topicDisturbed), so the run's few fail-closed faults spread over the topology instead of
	// piling onto the receivers an earlier one already stopped.
	targetUndisturbed = 3
	// targetSpared is added to a fail-closed fault's target that stops no doomed process (a
	// survivor of an earlier fault), so that even with no live receiver left anywhere a last-call
	// fault prefers a target that spares the survivors.
	targetSpared = 4
)

// explored reports whether the world is being explored (RunOptions.explored). The explorer's
// chooser tells a zero weight only from a non-zero one (stepChooser.Choose): it enumerates every
// candidate whatever its bias. The bias weights here never turn a candidate's weight to or from
// zero (every candidate keeps at least 1; a deletion-only topic's 0 is decided first), so an
// explored world skips computing them (TestExploredWeightsKeepCandidates).
func (w *world) explored() bool { return w.opts.explored }

// failClosedTarget reports whether action kind k can make a receiver fail closed: whether it is
// one of swarm.FailClosedKinds.
func failClosedTarget(k spec.ActionKind) bool { return slices.Contains(swarm.FailClosedKinds, k) }

// topicDisturbed reports whether topic t was hit by a fault that stops receivers: it was deleted
// or recreated, or a current channel of it was truncated (by delete-records or retention).
func (w *world) topicDisturbed(t int) bool {
	inc := w.topics[t].inc
	if inc < 0 {
		return true
	}
	for i := range w.incs {
		if w.incs[i].topic == t && int32(i) != inc {
			return true
		}
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
// receivers (targetCorruptReader), which read it soonest. A fail-closed fault counts only receivers
// that actually receive a partition of t and are not doomed (world_doomed.go); deleting or
// recreating a topic a doomed process receives weighs the minimum (it would stop a survivor of an
// earlier fault), and one that spares them all weighs targetSpared more; one with an unread
// corrupt record (unreadCorrupt) weighs a targetUnreadCorrupt-th. A deletion-only topic weighs 0
// for every fail-closed fault but its deletion, which weighs targetDeletionOnlyHeld times more
// while it has a blocked head. A record or a topic change aimed where nobody reads is wasted: it
// holds nothing, strands no hold, is refused by nobody.
func (w *world) externalWeight(k spec.ActionKind, t int, obs uint64) uint32 {
	if failClosedTarget(k) && w.topics[t].spec.Spares(k) {
		return 0
	}
	if w.explored() {
		return 1
	}
	endsIncarnation := k == spec.ActDeleteTopic || k == spec.ActRecreateTopic
	if endsIncarnation && !w.sparesDoomed(t) {
		return 1
	}
	sum := uint32(0)
	for _, p := range w.procs {
		if p.status == procFailed || !p.declares(t) {
			continue
		}
		if failClosedTarget(k) && (!p.receivesTopic(t) || p.doomed()) {
			continue
		}
		sum += w.receiverBonus(k, p, t, obs)
	}
	weight := 1 + sum
	if endsIncarnation {
		weight += targetSpared
	}
	if failClosedTarget(k) && !w.topicDisturbed(t) {
		weight *= targetUndisturbed
	}
	if endsIncarnation && w.unreadCorrupt(t) {
		weight = max(1, weight/targetUnreadCorrupt)
	}
	if k == spec.ActDeleteTopic && w.topics[t].spec.DeletionOnly && w.topicBlocked(t) {
		weight *= targetDeletionOnlyHeld
	}
	return weight
}

// receiverBonus is what live receiver p of external topic t adds to externalWeight for action
// kind k (obs as there).
func (w *world) receiverBonus(k spec.ActionKind, p *proc, t int, obs uint64) uint32 {
	b := uint32(targetLiveReceiver)
	switch k {
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		if p.status == procRunning {
			b += targetRunningReceiver
		}
		if p.blockedOnTopic(t) {
			b += targetBlockedHead
		}
		if p.heldBackOnTopic(t) {
			b += targetHeldOn
		} else if p.holdsOnTopic(t) {
			b += targetHeldOn / 2
		}
	case spec.ActProduceStamped:
		if m := w.msgOf(obs); m != nil && w.chans[m.ch].topic != t && p.receivesNow(m.ch) {
			b += targetSharedReceiver
			if p.unfedAt(m.ch, m.pos) {
				b += targetUnfedCause
			}
		}
	case spec.ActProducePlain:
		if p.blockedOnTopic(t) {
			b += targetBlockedHead / 2
		}
	case spec.ActProduceCorrupt:
		b += receiverWeight(p, targetCorruptReader)
	}
	return b
}

// msgOf returns the message uid, or nil for 0.
func (w *world) msgOf(uid uint64) *message {
	if uid == 0 {
		return nil
	}
	return w.or.msgs[uid-1]
}

// partitionWeight is how strongly a produce of kind k (stamped naming record obs, or 0) prefers
// channel c: more for every live receiver of c; for a stamped record, for each that also receives
// obs's channel and more again if it has not been fed obs yet; for a plain record, for each whose
// head on c is blocked (blockedHead); for a corrupt record, for each running one
// (targetCorruptReader). It builds, within the topic externalWeight chose, the same shapes at
// partition grain: a stamped record that reaches a receiver before its cause and is held, a plain
// record that queues behind a held head (FIFO), a corrupt header that a running receiver reads
// soon. A record on a partition nobody in that position reads exposes nothing.
func (w *world) partitionWeight(k spec.ActionKind, c int32, obs uint64) uint32 {
	if w.explored() {
		return 1
	}
	weight := uint32(1)
	m := w.msgOf(obs)
	for _, p := range w.procs {
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if k == spec.ActProduceCorrupt && p.doomed() {
			return 1
		}
		weight += targetLiveReceiver
		if k == spec.ActProduceCorrupt {
			weight += receiverWeight(p, targetCorruptReader)
		}
		if m != nil && m.ch != c && p.receivesNow(m.ch) {
			weight += targetSharedReceiver
			if p.unfedAt(m.ch, m.pos) {
				weight += targetUnfedCause
			}
		}
		if k == spec.ActProducePlain && p.blockedHead(p.pcs.at(c)) {
			weight += targetBlockedHead / 2
		}
	}
	return weight
}

// truncationWeight is how strongly a truncation prefers live channel c: more for every live
// receiver that has not read it to its end (a truncation can discard records it has not read),
// most for a running one, whose next fetch falls below the new log start at once.
func (w *world) truncationWeight(c int32) uint32 {
	if w.topics[w.chans[c].topic].spec.Spares(spec.ActDeleteRecords) {
		return 0
	}
	if w.explored() {
		return 1
	}
	weight := uint32(1)
	hw := int64(w.offsets(c).HighWatermark)
	for _, p := range w.procs {
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if p.readPosition(p.pcs.at(c)) < hw {
			if p.doomed() {
				return 1
			}
			weight += receiverWeight(p, targetUnread)
		}
	}
	if !w.topicDisturbed(w.chans[c].topic) {
		weight *= targetUndisturbed
	}
	return weight
}

// truncationOffsetWeight is how strongly a truncation of channel c prefers "delete before"
// offset: more when it passes a live receiver's position (records it has not read), most when
// it passes a running one's — shared by the live receivers it passes, so an offset that stops
// one receiver is preferred to one that stops several (each stopped receiver is one fewer for
// the run's other faults and deliveries).
func (w *world) truncationOffsetWeight(c int32, before int64) uint32 {
	if w.explored() {
		return 1
	}
	best, passed := uint32(0), uint32(0)
	for _, p := range w.procs {
		if p.status == procFailed || !p.receivesNow(c) {
			continue
		}
		if before > p.readPosition(p.pcs.at(c)) {
			if p.doomed() {
				return 1
			}
			best = max(best, receiverWeight(p, targetPastRead))
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

// redeclareProcWeight is how strongly a redeclaration prefers down process p: targetHeldOn more
// when p holds messages on a channel a redeclaration can remove (removableHolds), is not doomed,
// and no removal with holds has happened yet (removedWithHolds). Removing a channel with holds is
// the redeclaration that tests something; a second one only stops another receiver.
func (w *world) redeclareProcWeight(p *proc) uint32 {
	if p.removableHolds() && !p.doomed() && !w.removedWithHolds() {
		return 1 + targetHeldOn
	}
	return 1
}

// redeclareWeight is how strongly a redeclaration of down process p prefers topic t: removing a
// channel p holds messages on is the interesting change.
func (w *world) redeclareWeight(p *proc, t int) uint32 {
	if w.topics[t].spec.Spares(spec.ActRedeclare) {
		return 0
	}
	if p.declares(t) && p.holdsOnTopic(t) {
		if w.removedWithHolds() {
			return 1
		}
		return 1 + targetHeldOn
	}
	return 1
}

// receivesNow reports whether channel c is in p's current (or, when down, last) received set.
func (p *proc) receivesNow(c int32) bool {
	pc, ok := p.pcs.get(c)
	return ok && pc.received
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
	return p.anyOnTopic(t, func(pc *pcState) bool { return p.o.heldBack(pc.ch) })
}

// holdsOnTopic reports whether p has fed, undelivered messages on a received channel of topic
// t's current incarnation.
func (p *proc) holdsOnTopic(t int) bool {
	return p.anyOnTopic(t, func(pc *pcState) bool { return p.o.hasPending(pc.ch) })
}

// faultHasTarget reports whether fail-closed kind k has an interesting target now: a live
// external topic a receiver holds a blocked head on that a rollback keeps (blockedOnTopic: a hold
// that is not blocked is delivered first after the deletion, so nothing could be delivered past
// it); one with a running receiver (recreation), a channel a live receiver has not read to its
// end (truncation), an external partition with a live receiver (a corrupt header).
func (w *world) faultHasTarget(k spec.ActionKind) bool {
	return w.anyFaultTarget(k, func(p *proc, t int) bool {
		switch k {
		case spec.ActDeleteTopic:
			return p.blockedOnTopic(t)
		case spec.ActRecreateTopic:
			return p.status == procRunning
		case spec.ActDeleteRecords:
			return p.unreadOnTopic(t)
		}
		return true
	})
}

// anyFaultTarget reports whether cond holds for some receiver p and topic t that fail-closed kind
// k may aim at: t is live and external (any live topic for a truncation) and not spared from k,
// p has not failed, declares and receives t, and is not doomed (world_doomed.go), and, but for a
// corrupt header, no doomed process receives t. It reads the received sets twice (the topics
// doomed processes receive, then the others' channels), so its cost grows with the
// subscriptions, not with topics times processes.
func (w *world) anyFaultTarget(k spec.ActionKind, cond func(p *proc, t int) bool) bool {
	doomedOn := make([]bool, len(w.topics)) // the topics a doomed process receives
	for _, p := range w.procs {
		if k != spec.ActProduceCorrupt && p.doomed() {
			for _, pc := range p.recv {
				doomedOn[w.chans[pc.ch].topic] = true
			}
		}
	}
	for _, p := range w.procs {
		if p.status == procFailed || p.doomed() {
			continue
		}
		for _, pc := range p.recv {
			t := w.chans[pc.ch].topic
			topic := &w.topics[t]
			if !topic.spec.External && k != spec.ActDeleteRecords || topic.inc < 0 || topic.spec.Spares(k) || doomedOn[t] || !p.declares(t) {
				continue
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
// (targetRewindable). A rewind re-feeds records the process delivered, which its engine must drop
// as replays when it starts again; a doomed process refuses at its next start whatever it
// re-reads, so rewinding it shows nothing.
func rewindProcWeight(p *proc) uint32 {
	if p.doomed() {
		return 1
	}
	return 1 + targetRewindable
}

// rewindChannelWeight is how strongly a rewind prefers received channel pc (committed position
// above 0, live): more when a record lies between its log start and the committed position
// (targetRewindable), which the rewind can re-feed. A rewind over markers and truncated offsets
// alone re-feeds nothing, so the engine's replay handling is not exercised.
func (w *world) rewindChannelWeight(pc *pcState) uint32 {
	if w.lastRecordBelow(pc.ch, int64(w.offsets(pc.ch).LogStart), pc.committedPos) < 0 {
		return 1
	}
	return 1 + targetRewindable
}

// lastRecordBelow returns the position of the last committed record of channel c in [lo,
// before), or -1.
func (w *world) lastRecordBelow(c int32, lo, before int64) int64 {
	for o := before - 1; o >= max(lo, 0); o-- {
		if w.or.recordAt(c, o) != 0 {
			return o
		}
	}
	return -1
}

// unreadCorrupt reports whether a channel of topic t's current incarnation has an undecodable record
// at or above the read position of a receiver that has not failed closed: a receiver is still to
// read it.
func (w *world) unreadCorrupt(t int) bool {
	inc := w.topics[t].inc
	if inc < 0 {
		return false
	}
	in := &w.incs[inc]
	for i := range in.parts {
		c := in.firstChan + int32(i)
		lso := w.chans[c].lso
		for _, p := range w.procs {
			pc, ok := p.pcs.get(c)
			if !ok || !pc.received || p.status == procFailed {
				continue
			}
			for o := max(p.readPosition(pc), 0); o < lso; o++ {
				if uid := w.or.recordAt(c, o); uid != 0 && w.or.msgs[uid-1].undecodable {
					return true
				}
			}
		}
	}
	return false
}

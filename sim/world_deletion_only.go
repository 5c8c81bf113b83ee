package sim

import "github.com/parsleysim/parsleysim/sim/spec"

// Deletion-only topics (TopicSpec.DeletionOnly). A scenario reserves such a topic for the deletion
// fault (TopicSpec.spares names the rule once): no corrupt record (externalWeight), truncation (truncationWeight; no retention policy,
// world.go), recreation (externalWeight) or redeclaration (maskOf, redeclareWeight) is aimed at it
// or at its receivers, so they are still running, holding its messages, when a deletion comes
// due. Every other rule treats it as any external topic: it is produced to, fed, crashed around.
// A deletion of it is due early once it has a blocked head to strand (deletionOnlyHeld), and
// weighs targetDeletionOnlyHeld times more then: its receivers stop (in an honest run) without
// costing any other fault a receiver.
//
// Measured (go run ./cmd/simrun sweep --catch-rates --seeds 1-1000 -j 2) with the random
// scenario's deletion quarry (scenarios.addDeletionQuarry) and stamped produce on wherever topics
// are deleted (stampWhereDeleted): DELIVER_PAST_DEAD_HOLDS caught on 423 of its 797 eligible seeds
// (53.1%) instead of 133; without the early deletion 394 (NO_FIFO 629 instead of 570); without
// the early deletion and the weight, and with receivers of deletion-only topics still redeclared
// and counted by aimableReceivers, 254, with IGNORE_REMOVED_CHANNELS 387 and IGNORE_RECREATION 560
// (both below their goals). Before stampWhereDeleted, 297 of the 302 deletions that found a blocked
// head on the quarry were caught; the seeds missed were those whose quarry never held one. The
// same reservation for truncation was measured and left out: a truncation-only topic with a silent
// reader of its own, in every seed that truncates, caught RESET_PAST_LOG_START on 762 seeds
// instead of 584, but NO_FIFO on only 492 (below its goal), DELIVER_PAST_DEAD_HOLDS on 399 and
// IGNORE_CAUSES on 813 (the extra topic and process thin out the produce and the steps the other
// receivers get).

// readsDeletionOnly reports whether p declares a deletion-only topic: its declaration is not
// redeclared (a removal with holds would stop it before the deletion it waits for), and it is no
// receiver a fault of another kind can be aimed at (aimableReceivers).
func (p *proc) readsDeletionOnly() bool {
	for _, t := range p.declared {
		if p.w.topics[t].spec.spares(spec.ActRedeclare) {
			return true
		}
	}
	return false
}

// quarryDeletePct is the part of the safety phase, in percent, from which a deletion is due as
// soon as a deletion-only topic has a blocked head to delete past (deletionOnlyHeld).
const quarryDeletePct = 30

// targetDeletionOnlyHeld multiplies the weight of deleting a deletion-only topic that has a
// blocked head (topicBlocked): that is what the topic is there for.
const targetDeletionOnlyHeld = 16

// deletionOnlyHeld reports whether a live deletion-only topic has a blocked head to delete past
// (topicBlocked).
func (w *world) deletionOnlyHeld() bool {
	for t := range w.topics {
		if w.topics[t].spec.DeletionOnly && w.topics[t].inc >= 0 && w.topicBlocked(t) {
			return true
		}
	}
	return false
}

// topicBlocked reports whether a process that has not failed closed and is not doomed holds a
// blocked head a rollback keeps (blockedOnTopic) on topic t.
func (w *world) topicBlocked(t int) bool {
	for _, p := range w.procs {
		if p.status != procFailed && !p.doomed() && p.blockedOnTopic(t) {
			return true
		}
	}
	return false
}

// anyFaultable reports whether fault kind k may be aimed at some external topic (one that does
// not spare it, TopicSpec.spares; and, when live is set, is live): a corrupt record needs a live
// one, a recreation any one. Without it those kinds are disabled (kindEnabled) rather than aimed
// at a topic that spares them.
func (w *world) anyFaultable(k spec.ActionKind, live bool) bool {
	for t := range w.topics {
		ts := w.topics[t].spec
		if ts.External && !ts.spares(k) && (!live || w.topics[t].inc >= 0) {
			return true
		}
	}
	return false
}

package world

import "github.com/parsleysim/parsleysim/sim/spec"

// Deletion-only topics (TopicSpec.DeletionOnly): the facts the rules of the deletion quarry read
// (package shape's doc says what the quarry is and why it is kept for its deletion), and whether
// a fault kind has an external topic left to aim at (anyFaultable).

// readsDeletionOnly reports whether p declares a deletion-only topic: it is not redeclared
// (shape.Redeclarable), and it is no receiver a fault of another kind can be aimed at
// (aimableReceivers).
func (p *proc) readsDeletionOnly() bool {
	for _, t := range p.declared {
		if p.w.topics[t].spec.Spares(spec.ActRedeclare) {
			return true
		}
	}
	return false
}

// deletionOnlyHeld reports whether a process neither failed nor doomed has a blocked head on a
// live deletion-only topic (factsOf): the deletion quarry is ready (shape.DeletionDueEarly). Deleting
// a topic under a held message is the only shape that exposes delivery past a dead hold.
func (w *World) deletionOnlyHeld() bool { return w.memo().Facts().Kind(factQuarry).Count() > 0 }

// topicBlocked reports whether a process that has not failed closed and is not doomed holds a
// blocked head a rollback keeps (blockedOnTopic, asked first: the rarer fact) on topic t.
func (w *World) topicBlocked(t int) bool {
	for inc, c := w.topics[t].inc, int32(0); inc >= 0 && c < int32(w.incs[inc].parts); c++ { // t's readers
		for _, i := range w.readers.Of(int(w.incs[inc].firstChan + c)) {
			if p := w.procs[i]; p.status != procFailed && p.blockedOnTopic(t) && !p.doomed() {
				return true
			}
		}
	}
	return false
}

// anyFaultable reports whether fault kind k may be aimed at some external topic (one that does
// not spare it, TopicSpec.spares; and, when live is set, is live): a corrupt record needs a live
// one, a recreation any one. Without it those kinds are disabled (kindEnabled) rather than aimed
// at a topic that spares them.
func (w *World) anyFaultable(k spec.ActionKind, live bool) bool {
	for t := range w.topics {
		ts := w.topics[t].spec
		if ts.External && !ts.Spares(k) && (!live || w.topics[t].inc >= 0) {
			return true
		}
	}
	return false
}

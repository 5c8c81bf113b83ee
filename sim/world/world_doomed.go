package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Doomed processes: the survivors of earlier faults (doomed), which the fault targets spare, and
// the other facts about a fault's receivers that the target rules (package shape) read.
// Everything here reads the world's state only, never the sabotage mode.

// doomed reports whether live process p is already entitled to fail closed by an earlier fault,
// so that it stops (where its engine honours the refusal) as soon as it next reads or starts: the
// refusal ledger marks it (a removed channel with holds, a recreated or held-on deleted topic), or
// a received channel's log start has passed its read position. Fail-closed faults spare doomed
// processes (their targets weigh the minimum, and they are no target for faultHasTarget): a
// second fault on a process an earlier one already stops tests nothing new in an honest run, and
// where a sabotaged engine does not stop it, the second fault would stop it before it shows what
// the first one did (S8, RECREATION, S9, a liveness hole: only a run that goes on long enough
// shows them). An unread corrupt record is no doom: sparing its readers takes them from the
// recreation fault.
func (p *proc) doomed() bool {
	if p.status == procFailed {
		return false
	}
	if l := p.o.Ledger(); l.RemovedHeld || l.IdentityChanged || l.DeletedHeld {
		return true
	}
	for _, pc := range p.recv {
		if p.w.alive(pc.ch) && max(p.readPosition(pc), 0) < int64(p.w.offsets(pc.ch).LogStart) {
			return true
		}
	}
	return false
}

// heldOnDead reports whether p is running while it holds fed, undelivered messages on a received
// channel that no longer exists (a deleted topic's, or a recreated topic's old incarnation): its
// engine carried on where an honest one refuses, so it survives only in a sabotaged run
// (shape.LeftRunning spares it).
func (p *proc) heldOnDead() bool {
	return p.status == procRunning && slices.ContainsFunc(p.recv, func(pc *pcState) bool {
		return !p.w.alive(pc.ch) && p.o.HasPending(pc.ch)
	})
}

// receivesTopic reports whether p's current (or, when down, last) received set has a channel of
// topic t: a process may declare a topic without receiving any of its partitions (its task has
// no partition of that topic), and then deleting or recreating the topic does not touch it.
func (p *proc) receivesTopic(t int) bool {
	return slices.ContainsFunc(p.recv, func(pc *pcState) bool {
		return p.w.chans[pc.ch].topic == t
	})
}

// sparesDoomed reports whether no doomed process receives a channel of topic t, so a fail-closed
// fault on t stops no survivor of an earlier one; doomed is proc.doomed, or a memo of it.
func (w *World) sparesDoomed(t int, doomed func(*proc) bool) bool {
	for _, inc := range w.topicIncs.Of(t) {
		in := &w.incs[inc]
		for c := in.firstChan; c < in.firstChan+int32(in.parts); c++ {
			for _, i := range w.readers.Of(int(c)) {
				p := w.procs[i]
				if p.receivesTopic(t) && doomed(p) {
					return false
				}
			}
		}
	}
	return true
}

// removedWithHolds reports whether a redeclaration has already removed a channel some process held
// messages on: the run has exercised that shape, and each further one only stops another receiver.
func (w *World) removedWithHolds() bool {
	return slices.ContainsFunc(w.procs, func(p *proc) bool { return p.o.Ledger().RemovedHeld })
}

// aimableReceivers counts the processes that have not failed closed, are not doomed, read no
// deletion-only topic and receive a channel of a live external topic (memo facts, factsOf).
func (w *World) aimableReceivers() int { return w.memo().Facts().Kind(factAimable).Count() }

// agedDeletionTarget reports whether a deletion has a target (faultHasTarget, asked first: the
// memo's answer) whose blocked head was fed at step since or earlier; a deletion must be on.
func (w *World) agedDeletionTarget(since int) bool {
	return w.faultHasTarget(spec.ActDeleteTopic) && w.anyFaultTarget(spec.ActDeleteTopic, func(p *proc, t int) bool {
		return p.anyOnTopic(t, func(pc *pcState) bool {
			return p.committedBlockedHead(pc) && p.o.PendingHead(pc.ch).FedStep <= since
		})
	})
}

// factsOf is process i's facts for the memo (targets.Memo.Facts), none when it failed or is
// doomed: factAimable (aimableReceivers), factQuarry (deletionOnlyHeld; blockedOnTopic).
func (w *World) factsOf(i int) (facts uint32, timed bool) {
	p, live := w.procs[i], false
	if p.status == procFailed || p.doomed() {
		return 0, false
	}
	for _, pc := range p.recv {
		ch, topic := &w.chans[pc.ch], &w.topics[w.chans[pc.ch].topic]
		live = live || w.alive(pc.ch) && topic.spec.External
		if topic.spec.DeletionOnly && ch.inc == topic.inc && p.committedBlockedHead(pc) { // a live topic's
			facts |= 1 << factQuarry
		}
	}
	if live && !p.readsDeletionOnly() {
		facts |= 1 << factAimable
	}
	return facts, false
}

const factAimable, factQuarry = 0, 1 // factsOf's bits

package sim

// Doomed processes: the survivors of earlier faults. A fail-closed fault (a truncation past a
// read position, a recreated topic, a deleted topic with holds, a removed channel with holds)
// entitles its receivers to refuse; an honest engine stops them at their next read or start. A
// sabotaged engine that ignores that one fault keeps them running, and only a run that goes on
// long enough shows what they then do wrong (S8, RECREATION, S9, a liveness hole). The fault
// targets (world_targets.go) therefore spare doomed processes: a second fault on a process an
// earlier one already stops tests nothing new in an honest run, and stops the survivor before it
// shows the first fault in a sabotaged one. Everything here reads the world's state only, never
// the sabotage mode.
//
// Measured (go run ./cmd/simrun sweep --catch-rates --seeds 1-1000 -j 2), with the truncation
// targets of world_targets.go aimed at running receivers: without sparing, RESET_PAST_LOG_START
// was caught on 587 seeds, IGNORE_REMOVED_CHANNELS 379, IGNORE_CAUSES 534; sparing doomed
// processes and biasing redeclarations toward holds only until the first removal with holds
// (removedWithHolds), 665, 413 and 553, and every other mode but IGNORE_RECREATION (462 to 443,
// made up for by dueEarlyKinds) gained 1-20 seeds.

// doomed reports whether live process p is already entitled to fail closed by an earlier fault,
// so that it stops (where its engine honours the refusal) as soon as it next reads or starts: the
// refusal ledger marks it (a removed channel with holds, a recreated or held-on deleted topic), or
// a received channel's log start has passed its read position. Fail-closed faults spare doomed
// processes (their targets weigh the minimum, and they are no target for faultHasTarget): a
// second fault on a process an earlier one already stops tests nothing new, and where the engine
// does not stop it, the second fault would stop it before it shows what the first one did. It
// reads the world's state only, never the sabotage mode. (Counting an unread corrupt record as
// doom too was measured and left out: it spared corrupt-header readers, +40 UNDECODABLE_AS_ABSENT
// catches over seeds 1-1000, but cost IGNORE_RECREATION 40.)
func (p *proc) doomed() bool {
	if p.status == procFailed {
		return false
	}
	if p.injected.removedHeld || p.injected.identityChanged || p.injected.deletedHeld {
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
// engine carried on where an honest one refuses (CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES,
// CHANNEL_IDENTITY_CHANGED), so it survives only in a sabotaged run. Such a survivor is no target
// of a crash, stop, migration or zombie (maskOf) in swarm runs (Settings.SpareDeadHoldSurvivors;
// explorations still enumerate those faults): each restarts it, rolls back what it delivered
// since its last commit (a staged S9 violation with it) and, when the restart drops its feed
// state, can lose the hold, so the survivor is left running to deliver past its dead hold, or
// not. It reads the world's state only, never the sabotage mode; an honest run never has a
// running process holding on a dead channel (its receivers refuse at the restart the deletion or
// recreation forces), so its schedule is unchanged. Measured (go run ./cmd/simrun sweep
// --catch-rates --seeds 1-1000 -j 2): DELIVER_PAST_DEAD_HOLDS caught on 133 seeds instead of 121
// (1001-2000: 143 instead of 128) and IGNORE_RECREATION on 624 instead of 609, every other mode
// within one seed. Of the 204 eligible seeds whose honest run refuses a deletion with holds, 83
// were missed before, most often because the survivor was crashed, stopped or migrated before it
// committed a delivery past its hold. (Running the safety phase up to 50 or 150 steps longer
// while a survivor holds on a dead channel caught nothing more: 132; nor did aiming plain
// produce at a survivor's channels, 133 at weight 200 or 2000, starting a down survivor first,
// 133, or feeding first the channel its dead hold waits on, 132-135; pausing that channel instead
// caught 118. In the seeds looked at among the 71 eligible ones still missed whose honest run
// refuses a deletion with holds, the survivor delivers only the dead channel's own pending
// records, which waited on nothing but a drain, or receives no other channel, or meets the
// deletion in the last steps with nothing left to feed.)
func (p *proc) heldOnDead() bool {
	if p.status != procRunning {
		return false
	}
	for _, pc := range p.recv {
		if len(pc.pending) > 0 && !p.w.alive(pc.ch) {
			return true
		}
	}
	return false
}

// receivesTopic reports whether p's current (or, when down, last) received set has a channel of
// topic t: a process may declare a topic without receiving any of its partitions (its task has
// no partition of that topic), and then deleting or recreating the topic does not touch it.
func (p *proc) receivesTopic(t int) bool {
	for _, pc := range p.recv {
		if p.w.chans[pc.ch].topic == t {
			return true
		}
	}
	return false
}

// sparesDoomed reports whether no doomed process receives a channel of topic t, so a
// fail-closed fault on t stops no survivor of an earlier one.
func (w *world) sparesDoomed(t int) bool {
	for _, p := range w.procs {
		if p.receivesTopic(t) && p.doomed() {
			return false
		}
	}
	return true
}

// removedWithHolds reports whether a redeclaration has already removed a channel some process
// held messages on: the run has exercised that shape, and each further one only stops another
// receiver (measured: without this, redeclarations biased toward holds stopped about 1.6
// receivers in each run that had one).
func (w *world) removedWithHolds() bool {
	for _, p := range w.procs {
		if p.injected.removedHeld {
			return true
		}
	}
	return false
}

// aimableReceivers counts the processes that have not failed closed, are not doomed by an
// earlier fault, and receive a channel of a live external topic.
func (w *world) aimableReceivers() int {
	n := 0
	for _, p := range w.procs {
		if p.status == procFailed || p.doomed() || p.readsDeletionOnly() {
			continue
		}
		for _, pc := range p.recv {
			if w.alive(pc.ch) && w.topics[w.chans[pc.ch].topic].spec.External {
				n++
				break
			}
		}
	}
	return n
}

// deleteEarlyPct is the part of the safety phase, in percent, before which a deletion is never
// due early (deletionDueEarly).
const deleteEarlyPct = 30

// deleteHoldAgeSteps is how many world steps a blocked head must have been held before an early
// deletion strands it (deletionDueEarly): long enough for what queues behind it to be fed and
// drained first (a FIFO hold is the other fault that head exposes; the deletion stops its
// receiver in an honest run).
const deleteHoldAgeSteps = 30

// deletionDueEarly reports whether a topic deletion should come due before its step
// (Settings.FaultAtStep, 55-90% of the safety phase): from quarryDeletePct of the safety phase on,
// once a deletion-only topic has a blocked head to strand (world_deletion_only.go); and from
// deleteEarlyPct of the safety phase on, once at most one process is left to aim a fault at
// (aimableReceivers) and a receiver has held a blocked head that a deletion can strand for
// deleteHoldAgeSteps (agedDeletionTarget). The run is losing its receivers, and by its step the
// deletion would most often find no hold to delete past: measured over seeds 1-1000, 484 seeds
// had such a hold at some point of the safety phase, but only 162 when their deletion came due,
// with 2.7 of 5.2 processes failed closed by then on average. It reads the world's state only, never the sabotage mode. Measured (go run
// ./cmd/simrun sweep --catch-rates --seeds 1-1000 -j 2): DELIVER_PAST_DEAD_HOLDS caught on 121
// seeds instead of 96 (1001-2000: 128 instead of 114), the others within 10 seeds (NO_FIFO 503
// and 500 instead of 504 and 503, IGNORE_RECREATION 609 and 641 instead of 619 and 648).
// Without the hold age: 129 (132), but NO_FIFO 501 (496, below its goal); due early from 40%:
// 119 (129); with two processes left instead of one: 166, but NO_FIFO 481 and
// UNDECODABLE_AS_ABSENT 708, below their goals; due early at any blocked head from 30% of the
// safety phase, whatever the receivers left: 282, but NO_FIFO 408 and UNDECODABLE_AS_ABSENT 606.
// Also measured and left out (with survivors spared, heldOnDead: 133; NO_FIFO 503 and 500 over
// 1001-2000, UNDECODABLE_AS_ABSENT 731, REDELIVER_REFEEDS 705, RESET_PAST_LOG_START 584): before
// survivors were spared (121), a hold age of 10 steps, 130, but NO_FIFO 497 over 1001-2000, and
// deletion targets weighing a blocked head 20 times more, 130, NO_FIFO 500; due early, whatever the
// receivers left, at a blocked head behind which a record whose causes were all fed has outlived a
// drain (the FIFO shape has been shown), 245, but NO_FIFO 489 and UNDECODABLE_AS_ABSENT 680; the
// same only while no corrupt record is due, unread or read in an open step, with channels whose
// next record is corrupt exempt from the hold-shaping feed weights, 171, NO_FIFO 504 but 494 over
// 1001-2000, RESET_PAST_LOG_START 566; stamped produce switched on whenever deletion is
// (Settings: stamped produce was off on 70 deletion seeds, of which one was caught), 146, NO_FIFO
// 542, but UNDECODABLE_AS_ABSENT 710; stamped produce weighing 3 times more while a due deletion
// waits for a target, 146, but REDELIVER_REFEEDS 680 and UNDECODABLE_AS_ABSENT 725; the deletion
// due from 50-60% of the safety phase (faultAtPct), 207, but NO_FIFO 485 and
// UNDECODABLE_AS_ABSENT 700 (45-80%: 167, 488, 715). Seeds whose deletion came due at 50-59% were
// caught on 31% of them, at 60-89% on 12-17%.
func (w *world) deletionDueEarly() bool {
	if w.step+1 >= len(w.procs)+w.set.SafetySteps*quarryDeletePct/100 && w.deletionOnlyHeld() {
		return true
	}
	if w.step+1 < len(w.procs)+w.set.SafetySteps*deleteEarlyPct/100 {
		return false
	}
	return w.aimableReceivers() <= 1 && w.agedDeletionTarget(w.step-deleteHoldAgeSteps)
}

// agedDeletionTarget reports whether a deletion has a target (faultHasTarget) whose blocked head
// was fed at step since or earlier.
func (w *world) agedDeletionTarget(since int) bool {
	aged := func(p *proc) func(*pcState) bool {
		return func(pc *pcState) bool { return p.committedBlockedHead(pc) && pc.pending[0].fedStep <= since }
	}
	for t := range w.topics {
		if !w.topics[t].spec.External || w.topics[t].inc < 0 || !w.sparesDoomed(t) {
			continue
		}
		for _, p := range w.procs {
			if p.status == procFailed || !p.declares(t) || !p.receivesTopic(t) || p.doomed() {
				continue
			}
			if p.anyOnTopic(t, aged(p)) {
				return true
			}
		}
	}
	return false
}

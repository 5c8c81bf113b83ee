package shape

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// The rules on the target: once the action kind is chosen, which topic, partition, channel,
// offset or process it acts on. A fault or a produce aimed where nobody reads is wasted: a
// corrupt header on a partition no process receives refuses nothing, a truncation behind every
// read position discards nothing unread, deleting a topic whose receivers hold nothing from it
// tests no hold. These weights bias the target choices toward the shapes that expose faults
// (SPEC §6.2: "holds on channels about to be deleted, truncation near held heads"). Every
// candidate keeps a weight of at least 1, so the set of possible choices is the same as without
// the bias; the one exception is a property of the scenario, not a bias: a deletion-only topic
// is no candidate of the other fail-closed faults (TopicSpec.Spares). An explored run
// (Run.Explored) skips the bias: the explorer's chooser tells a zero weight only from a non-zero
// one, and enumerates every candidate whatever its bias.

// Bias weights added per receiver that makes a target interesting.
const (
	targetLiveReceiver    = 2  // a process that has not failed closed receives the target
	targetRunningReceiver = 12 // ... and is running, so a topic change re-initialises it now
	targetHeldOn          = 16 // ... and holds fed, undelivered messages from it
	targetSharedReceiver  = 6  // ... and also receives the channel a stamped record names
	targetBlockedHead     = 48 // ... and its head there waits on another channel (World.BlockedHead)
	targetUnfedCause      = 24 // ... and has not been fed the record a stamped record names
	// A truncation is aimed hard at running receivers it passes (receiverWeight): aimed weakly,
	// it lands on channels nobody receives, or passes no live receiver although one is there to
	// pass, and exposes nothing.
	targetUnread   = 48 // a live receiver has not read the truncated channel to its end
	targetPastRead = 48 // a truncation offset past a receiver's position
	// A corrupt header is aimed hard at the running receivers that will read it (receiverWeight:
	// a quarter for a down one), on its topic and its partition: a corrupt record on a partition
	// nobody receives, or whose receivers have all stopped, refuses nothing and exposes nothing.
	targetCorruptReader = 48
	// targetRewindable is added to a rewind's process when it is not doomed (a doomed process
	// refuses at its next start whatever it re-reads) and to a received channel that has a
	// record between its log start and the committed position (the rewind re-feeds something):
	// a rewind re-feeds delivered records, which the engine must drop as replays.
	targetRewindable = 8
	// targetSpared is added to a fail-closed fault's target that stops no doomed process (a
	// survivor of an earlier fault), so that even with no live receiver left anywhere a last-call
	// fault prefers a target that spares the survivors.
	targetSpared = 4
	// targetDeletionOnlyHeld multiplies the weight of deleting a deletion-only topic that has a
	// blocked head (World.TopicBlocked): that is what the topic is there for.
	targetDeletionOnlyHeld = 16
)

// targetUndisturbed multiplies the weight of a fail-closed fault's target on a topic no
// fail-closed fault has hit yet (World.TopicDisturbed), so the run's few fail-closed faults
// spread over the topology instead of piling onto the receivers an earlier one already stopped.
const targetUndisturbed = 3

// targetUnreadCorrupt divides the weight of deleting or recreating a topic with a corrupt record
// that a live receiver has not read yet (World.UnreadCorrupt): the new incarnation (or no
// incarnation) erases the corrupt record before anyone reads it, so the run loses the one corrupt
// header its settings insist on. It divides rather than zeroes the weight: the recreation and
// deletion faults need those topics too.
const targetUnreadCorrupt = 4

// failClosedTarget reports whether action kind k can make a receiver fail closed: whether it is
// one of swarm.FailClosedKinds.
func failClosedTarget(k spec.ActionKind) bool { return slices.Contains(swarm.FailClosedKinds, k) }

// ExternalWeight is how strongly action kind k prefers external topic t: more for every live
// receiver (receiverBonus: every interesting receiver counts, not only the most interesting
// one); for deleting or recreating it, more again for running receivers, for receivers holding
// messages from it, and most for receivers whose head there waits on another channel; for a
// stamped record naming record obs (0 for none), more for receivers of obs's channel, whose copy
// of obs may still be undelivered, and more again when they have not been fed obs yet (the
// stamped record arrives first and is held); for a plain record, more for receivers whose head
// on t is blocked (the plain record queues behind it); for a corrupt record, more for running
// receivers (targetCorruptReader), which read it soonest. A fail-closed fault counts only
// receivers that actually receive a partition of t and are not doomed; deleting or recreating a
// topic a doomed process receives weighs the minimum (it would stop a survivor of an earlier
// fault), and one that spares them all weighs targetSpared more; one with an unread corrupt
// record weighs a targetUnreadCorrupt-th. A deletion-only topic weighs 0 for every fail-closed
// fault but its deletion, which weighs targetDeletionOnlyHeld times more while it has a blocked
// head. A record or a topic change aimed where nobody reads is wasted: it holds nothing, strands
// no hold, is refused by nobody.
func ExternalWeight(r *Run, k spec.ActionKind, t int, obs uint64) uint32 {
	w := r.World
	failClosed := failClosedTarget(k)
	if failClosed && w.Topic(t).Spares(k) {
		return 0
	}
	if r.Explored {
		return 1
	}
	endsIncarnation := k == spec.ActDeleteTopic || k == spec.ActRecreateTopic
	if endsIncarnation && !w.SparesDoomed(t) {
		return 1
	}
	sum := uint32(0)
	for _, i := range w.Declarers(t) {
		p := int(i)
		status := w.Status(p)
		if status == Failed {
			continue
		}
		if failClosed && (!w.ReceivesTopic(p, t) || w.Doomed(p)) {
			continue
		}
		sum += receiverBonus(r, k, p, status, t, obs)
	}
	weight := 1 + sum
	if endsIncarnation {
		weight += targetSpared
	}
	if failClosed && !w.TopicDisturbed(t) {
		weight *= targetUndisturbed
	}
	if endsIncarnation && w.UnreadCorrupt(t) {
		weight = max(1, weight/targetUnreadCorrupt)
	}
	if k == spec.ActDeleteTopic && w.Topic(t).DeletionOnly && w.TopicBlocked(t) {
		weight *= targetDeletionOnlyHeld
	}
	return weight
}

// receiverBonus is what live receiver p (whose status is status) of external topic t adds to
// ExternalWeight for action kind k (obs as there).
func receiverBonus(r *Run, k spec.ActionKind, p int, status Status, t int, obs uint64) uint32 {
	w := r.World
	b := uint32(targetLiveReceiver)
	switch k {
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		if status == Running {
			b += targetRunningReceiver
		}
		if w.BlockedOnTopic(p, t) {
			b += targetBlockedHead
		}
		if w.HeldBackOnTopic(p, t) {
			b += targetHeldOn
		} else if w.HoldsOnTopic(p, t) {
			b += targetHeldOn / 2
		}
	case spec.ActProduceStamped:
		if c, pos, ok := w.Message(obs); ok && w.ChannelTopic(c) != t && w.ReceivesNow(p, c) {
			b += targetSharedReceiver
			if w.UnfedAt(p, c, pos) {
				b += targetUnfedCause
			}
		}
	case spec.ActProducePlain:
		if w.BlockedOnTopic(p, t) {
			b += targetBlockedHead / 2
		}
	case spec.ActProduceCorrupt:
		b += receiverWeight(status, targetCorruptReader)
	}
	return b
}

// ExternalWeights fills weights, zeroed and one per topic, with ExternalWeight's weights of
// action kind k (obs as there) for every external topic a target of k (a live one, or any for a
// recreation), 0 for the others, and returns it. A produce's weights, sums over a topic's
// declarers, come from counts the memo keeps (World.Declared) and, for a stamped record, from the
// receivers of obs's channel (sharedBonus): the same weights as ExternalWeight's scan of every
// declarer, at the cost of what changed since the last produce.
func ExternalWeights(r *Run, k spec.ActionKind, obs uint64, weights []uint32) []uint32 {
	w := r.World
	var decl *targets.Declarers
	if (k == spec.ActProducePlain || k == spec.ActProduceStamped) && !r.Explored {
		decl = w.Declared()
		if k == spec.ActProduceStamped {
			if c, pos, ok := w.Message(obs); ok {
				sharedBonus(w, c, pos, weights)
			}
		}
	}
	for t := range weights {
		if ts := w.Topic(t); !ts.External || (k != spec.ActRecreateTopic && !w.TopicLive(t)) {
			weights[t] = 0
		} else if decl != nil {
			live, blocked := decl.Of(t)
			weights[t] += 1 + live*targetLiveReceiver
			if k == spec.ActProducePlain {
				weights[t] += blocked * (targetBlockedHead / 2)
			}
		} else {
			weights[t] = ExternalWeight(r, k, t, obs)
		}
	}
	return weights
}

// sharedBonus adds to weights, for a stamped record naming the record at position pos of channel
// c, receiverBonus's part for it: per live receiver of c, to each other topic it declares.
func sharedBonus(w World, c int32, pos int64, weights []uint32) {
	own := w.ChannelTopic(c)
	for _, i := range w.Readers(c) {
		p := int(i)
		if w.Status(p) != Failed && w.ReceivesNow(p, c) {
			b := uint32(targetSharedReceiver)
			if w.UnfedAt(p, c, pos) {
				b += targetUnfedCause
			}
			for _, t := range w.DeclaredTopics(p) {
				if t != own {
					weights[t] += b
				}
			}
		}
	}
}

// PartitionWeight is how strongly a produce of kind k (stamped naming record obs, or 0) prefers
// channel c: more for every live receiver of c; for a stamped record, for each that also receives
// obs's channel and more again if it has not been fed obs yet; for a plain record, for each whose
// head on c is blocked (World.BlockedHead); for a corrupt record, for each running one
// (targetCorruptReader), and the minimum when a doomed process receives c. It builds, within the
// topic ExternalWeight chose, the same shapes at partition grain: a stamped record that reaches a
// receiver before its cause and is held, a plain record that queues behind a held head (FIFO), a
// corrupt header that a running receiver reads soon. A record on a partition nobody in that
// position reads exposes nothing.
func PartitionWeight(r *Run, k spec.ActionKind, c int32, obs uint64) uint32 {
	if r.Explored {
		return 1
	}
	w := r.World
	weight := uint32(1)
	mc, mpos, named := w.Message(obs)
	for _, i := range w.Readers(c) {
		p := int(i)
		status := w.Status(p)
		if status == Failed || !w.ReceivesNow(p, c) {
			continue
		}
		if k == spec.ActProduceCorrupt && w.Doomed(p) {
			return 1
		}
		weight += targetLiveReceiver
		if k == spec.ActProduceCorrupt {
			weight += receiverWeight(status, targetCorruptReader)
		}
		if named && mc != c && w.ReceivesNow(p, mc) {
			weight += targetSharedReceiver
			if w.UnfedAt(p, mc, mpos) {
				weight += targetUnfedCause
			}
		}
		if k == spec.ActProducePlain && w.BlockedHead(p, c) {
			weight += targetBlockedHead / 2
		}
	}
	return weight
}

// TruncationWeight is how strongly a truncation prefers live channel c: more for every live
// receiver that has not read it to its end (a truncation can discard records it has not read),
// most for a running one, whose next fetch falls below the new log start at once; the minimum
// when such a receiver is doomed; targetUndisturbed times more on a topic no fail-closed fault
// has hit yet.
func TruncationWeight(r *Run, c int32) uint32 {
	w := r.World
	t := w.ChannelTopic(c)
	if w.Topic(t).Spares(spec.ActDeleteRecords) {
		return 0
	}
	if r.Explored {
		return 1
	}
	weight := uint32(1)
	hw := w.HighWatermark(c)
	for _, i := range w.Readers(c) {
		p := int(i)
		status := w.Status(p)
		if status == Failed || !w.ReceivesNow(p, c) {
			continue
		}
		if w.ReadPosition(p, c) < hw {
			if w.Doomed(p) {
				return 1
			}
			weight += receiverWeight(status, targetUnread)
		}
	}
	if !w.TopicDisturbed(t) {
		weight *= targetUndisturbed
	}
	return weight
}

// TruncationOffsetWeight is how strongly a truncation of channel c prefers "delete before"
// offset: more when it passes a live receiver's position (records it has not read), most when
// it passes a running one's — shared by the live receivers it passes, so an offset that stops
// one receiver is preferred to one that stops several (each stopped receiver is one fewer for
// the run's other faults and deliveries); the minimum when it passes a doomed one's.
func TruncationOffsetWeight(r *Run, c int32, before int64) uint32 {
	if r.Explored {
		return 1
	}
	w := r.World
	best, passed := uint32(0), uint32(0)
	for _, i := range w.Readers(c) {
		p := int(i)
		status := w.Status(p)
		if status == Failed || !w.ReceivesNow(p, c) {
			continue
		}
		if before > w.ReadPosition(p, c) {
			if w.Doomed(p) {
				return 1
			}
			best = max(best, receiverWeight(status, targetPastRead))
			passed++
		}
	}
	if passed == 0 {
		return 1
	}
	return 1 + best/passed
}

// receiverWeight is bonus for a running receiver, a quarter of it for a down one (which meets
// the change only if it starts again before another fault stops it).
func receiverWeight(status Status, bonus uint32) uint32 {
	if status == Running {
		return bonus
	}
	return bonus / 4
}

// RedeclareProcWeight is how strongly a redeclaration prefers down process p: targetHeldOn more
// when p holds messages on a channel a redeclaration can remove (World.RemovableHolds), is not
// doomed, and no removal with holds has happened yet (World.RemovedWithHolds). Removing a channel
// with holds is the redeclaration that tests something; a second one only stops another receiver.
func RedeclareProcWeight(w World, p int) uint32 {
	if w.RemovableHolds(p) && !w.Doomed(p) && !w.RemovedWithHolds() {
		return 1 + targetHeldOn
	}
	return 1
}

// RedeclareWeight is how strongly a redeclaration of down process p prefers topic t: removing a
// channel p holds messages on is the interesting change, while no removal with holds has
// happened yet; a topic that spares redeclarations (a deletion-only one) weighs 0.
func RedeclareWeight(w World, p, t int) uint32 {
	if w.Topic(t).Spares(spec.ActRedeclare) {
		return 0
	}
	if w.Declares(p, t) && w.HoldsOnTopic(p, t) {
		if w.RemovedWithHolds() {
			return 1
		}
		return 1 + targetHeldOn
	}
	return 1
}

// RewindProcWeight is how strongly a rewind prefers down process p: more when it is not doomed
// (targetRewindable). A rewind re-feeds records the process delivered, which its engine must drop
// as replays when it starts again; a doomed process refuses at its next start whatever it
// re-reads, so rewinding it shows nothing.
func RewindProcWeight(w World, p int) uint32 {
	if w.Doomed(p) {
		return 1
	}
	return 1 + targetRewindable
}

// RewindChannelWeight is how strongly a rewind prefers a received channel (committed position
// above 0, live): more when a record lies between its log start and the committed position
// (refeeds; targetRewindable), which the rewind can re-feed. A rewind over markers and truncated
// offsets alone re-feeds nothing, so the engine's replay handling is not exercised.
func RewindChannelWeight(refeeds bool) uint32 {
	if !refeeds {
		return 1
	}
	return 1 + targetRewindable
}

// ObservedWeight is how strongly a stamped record prefers to name candidate i of n recent
// committed records (the most recent first; i >= n: a lagging channel's last record), unfed the
// live receivers of its channel that receive another channel too and have not been fed it: the
// more recent the likelier (the receivers of its channel are likelier not to have delivered it
// yet), and much likelier per such receiver, as the stamped record can reach it first and wait
// for the named one.
func ObservedWeight(i, n, unfed int) uint32 {
	weight := uint32(2 * n * unfed)
	if i < n {
		weight += uint32(n - i)
	}
	return weight
}

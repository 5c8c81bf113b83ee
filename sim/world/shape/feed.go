package shape

import "github.com/parsleysim/parsleysim/sim/swarm"

// The rules on the feed: which of a running process's feedable received channels a feed takes
// next. A message is held only if its receiver is fed it before its cause, and stays held only
// while the cause is not fed; these rules make both likelier, from the world's state alone.

// feedLagWindowSteps is how many world steps one received channel of each process lags before
// the next one does (LagChannel).
const feedLagWindowSteps = 48

// LagChannel is the index, among process p's n received channels, of the channel p feeds slowly
// at world step step (Settings.FeedLagFactor), or -1 with fewer than two: it rotates every
// feedLagWindowSteps world steps, offset per process so processes lag on different channels.
// Records then reach a receiver out of order across its channels, so a record's cause on the
// lagging channel is often not yet fed when the record is: the record is held, which uniform
// feeding rarely does.
func LagChannel(p, n, step int) int {
	if n < 2 {
		return -1
	}
	return (p + step/feedLagWindowSteps) % n
}

// Waits is how a received channel stands to its process's holds, as the feed rules ask it.
type Waits uint8

const (
	// NoWait: no held head waits on the channel and its next record would not be held.
	NoWait Waits = iota
	// HeadWaits: the head of another received channel waits on a cause on this one.
	HeadWaits
	// NextWaits: the next record fed on this channel names a cause not fed yet, so it would be
	// held.
	NextWaits
)

// heldCauseLast multiplies, under Settings.HoldPauseSteps, the feed weight of every channel but
// those a held head waits on (HeadWaits): the cause a held message waits for is fed last, so the
// hold outlives its pause while the receiver has anything else to feed. A long-lived hold is what
// the hold-related faults need: a crash that must keep it, a deletion that strands it, a later
// record queued behind it (FIFO).
const heldCauseLast = 100

// waitingRecordBoost multiplies, under Settings.HoldPauseSteps, the feed weight of a channel
// whose next record will be held (NextWaits): feeding a record before its cause is how a hold
// starts, so the run has holds to shape at all.
const waitingRecordBoost = 8

// FeedWeight is the weight of feeding a feedable received channel that no pause keeps off:
// Settings.FeedLagFactor, or 1 on the lagging channel (lagging: LagChannel's); under
// Settings.HoldPauseSteps, 1 on a channel a held head waits on (heldCauseLast) and
// waitingRecordBoost times more on one whose next record will be held. waits says how the channel
// stands to the holds; it is asked only under Settings.HoldPauseSteps.
func FeedWeight(set *swarm.Settings, lagging bool, waits func() Waits) uint32 {
	weight := uint32(max(1, set.FeedLagFactor))
	if lagging {
		weight = 1
	}
	if set.HoldPauseSteps == 0 {
		return weight
	}
	switch waits() {
	case HeadWaits:
		return 1
	case NextWaits:
		return weight * heldCauseLast * waitingRecordBoost
	}
	return weight * heldCauseLast
}

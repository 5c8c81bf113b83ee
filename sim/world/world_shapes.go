package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// Blocked heads: the world-state shape behind most hold-related faults. A held message whose
// header names a record on another received channel that its receiver has not been fed yet waits
// on that other channel: a later record on its own channel queues behind it (FIFO), deleting its
// topic leaves a hold that cannot be delivered past, removing its channel drops a hold. Target
// rules (package shape) read these predicates through shapeView to aim produces and faults at such shapes; they
// read only the world's and the oracle's state, never which sabotage mode is on.

// causeUnfed reports whether message m names a cause on a channel other than except that p
// receives now and has not been fed up to: the cause is still to come, so m waits for it.
func (p *proc) causeUnfed(m *oracle.Message, except int32) bool {
	for _, pc := range p.recv { // few: each is looked up in m's causes, a sorted frontier
		if pc.ch == except {
			continue
		}
		if pos, ok := m.Expressed.Lookup(p.w.or.Channel(pc.ch)); ok && p.o.FedHigh(pc.ch) < int64(pos) {
			return true
		}
	}
	return false
}

// unfedAt reports whether p receives channel c now and has not been fed position pos of it.
func (p *proc) unfedAt(c int32, pos int64) bool {
	return p.receivesNow(c) && p.o.FedHigh(c) < pos
}

// blockedHead reports whether the first fed, undelivered message of p on channel pc waits for a
// cause on another channel that p has not been fed yet.
func (p *proc) blockedHead(pc *pcState) bool {
	head := p.o.PendingHead(pc.ch)
	if head == nil {
		return false
	}
	return p.causeUnfed(p.w.or.Msg(head.UID), pc.ch)
}

// committedBlockedHead reports whether p has a blocked head on pc that a rollback keeps: nothing
// was fed on pc in the open step (its oracle undo log adds no pending message there).
func (p *proc) committedBlockedHead(pc *pcState) bool {
	if !p.blockedHead(pc) {
		return false
	}
	return !p.o.StepFedOn(pc.ch)
}

// blockedOnTopic reports whether p has a blocked head that a rollback keeps
// (committedBlockedHead) on a received channel of topic t's current incarnation: deleting or
// recreating t rolls its running receivers back first.
func (p *proc) blockedOnTopic(t int) bool {
	return p.anyOnTopic(t, p.committedBlockedHead)
}

// anyOnTopic reports whether cond holds for one of p's received channels of topic t's current
// incarnation (a deleted or recreated topic's old channels do not count).
func (p *proc) anyOnTopic(t int, cond func(*pcState) bool) bool {
	inc := p.w.topics[t].inc
	for _, pc := range p.recv {
		ch := &p.w.chans[pc.ch]
		if ch.topic == t && ch.inc == inc && cond(pc) {
			return true
		}
	}
	return false
}

// removableHolds reports whether down process p holds messages on a declared topic it does not
// send to: a redeclaration can remove a channel with holds.
func (p *proc) removableHolds() bool {
	for _, t := range p.declared {
		if !slices.Contains(p.sends, t) && p.holdsOnTopic(t) {
			return true
		}
	}
	return false
}

// Holds by feed order. A message waits only if its receiver is fed it before its cause, and stays
// held only while the cause is not fed; these predicates let the feed rules (package shape,
// Settings.HoldPauseSteps) make both likelier from the world's state alone.

// nextRecordWaits reports whether the next record p would be fed on pc names a cause on another
// received channel that p has not been fed yet: fed now, it is held.
func (p *proc) nextRecordWaits(pc *pcState) bool {
	o := p.w.or.FirstRecordIn(pc.ch, pc.readPos, p.w.chans[pc.ch].lso-1)
	if o < 0 {
		return false
	}
	return p.causeUnfed(p.w.or.Msg(p.w.or.RecordAt(pc.ch, o)), pc.ch)
}

// waits is how p's received channel pc stands to p's holds (shape.Waits): a head of another
// channel waits on it (headWaitsOn), or its next record would be held (nextRecordWaits).
func (p *proc) waits(pc *pcState) shape.Waits {
	switch {
	case p.headWaitsOn(pc, 0):
		return shape.HeadWaits
	case p.nextRecordWaits(pc):
		return shape.NextWaits
	}
	return shape.NoWait
}

// headWaitsOn reports whether the head of another of p's received channels, fed at step since or
// later, names a cause on pc that p has not been fed yet: feeding pc may release it.
func (p *proc) headWaitsOn(pc *pcState, since int) bool {
	for _, o := range p.recv {
		if o == pc {
			continue
		}
		head := p.o.PendingHead(o.ch)
		if head == nil || head.FedStep < since {
			continue
		}
		if pos, ok := p.w.or.Msg(head.UID).Expressed.Lookup(p.w.or.Channel(pc.ch)); ok && p.o.FedHigh(pc.ch) < int64(pos) {
			return true
		}
	}
	return false
}

// feedPaused reports whether a feed at world step may not pick pc: a head p was fed within the
// pause shape.FeedPause sets waits on it (headWaitsOn).
func (p *proc) feedPaused(pc *pcState, step int) bool {
	since, on := shape.FeedPause(p.w.set, step)
	return on && p.headWaitsOn(pc, since)
}

// feedableAt reports whether p is running and has a feedable received channel that a feed at
// world step may pick (feedPaused).
func (p *proc) feedableAt(step int) bool {
	if p.status != procRunning {
		return false
	}
	for _, pc := range p.recv {
		if p.feedable(pc) && !p.feedPaused(pc, step) {
			return true
		}
	}
	return false
}

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
	for i := range m.Expressed.Len() {
		cause := m.Expressed.At(i)
		c := p.w.nodeChan(cause.Channel)
		if c < 0 || c == except {
			continue
		}
		if p.unfedAt(c, int64(cause.Position)) {
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

// unfedReceivers counts the live processes that receive the channel of message uid, have not
// been fed it yet, and receive some other channel too: a record stamped with uid's coordinate
// and produced on that other channel can reach them first and be held.
func (w *World) unfedReceivers(uid uint64) int {
	m := w.or.Msg(uid)
	n := 0
	for _, i := range w.readers.Of(int(m.Ch)) {
		p := w.procs[i]
		if p.status != procFailed && len(p.recv) > 1 && p.unfedAt(m.Ch, m.Pos) {
			n++
		}
	}
	return n
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

// lagScanSlots bounds how far below a channel's last stable offset laggingRecords looks for a
// committed record.
const lagScanSlots = 8

// laggingRecords appends to out, for every channel that a live process receiving more than one
// channel has not been fed to its last stable offset, the last committed record below that offset
// (within lagScanSlots): a record that receiver has not been fed, which a stamped record produced
// on its other channel can name (chooseObserved). Channels in process and channel order, each
// once.
func (w *World) laggingRecords(out []uint64) []uint64 {
	for _, p := range w.procs {
		if p.status == procFailed || len(p.recv) < 2 {
			continue
		}
		for _, pc := range p.recv {
			lso := w.chans[pc.ch].lso
			if !w.alive(pc.ch) || p.o.FedHigh(pc.ch) >= lso-1 {
				continue
			}
			for o := lso - 1; o >= max(0, lso-lagScanSlots); o-- {
				if uid := w.or.RecordAt(pc.ch, o); uid != 0 {
					if !slices.Contains(out, uid) && p.unfedAt(pc.ch, o) {
						out = append(out, uid)
					}
					break
				}
			}
		}
	}
	return out
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
		m := p.w.or.Msg(head.UID)
		for i := range m.Expressed.Len() {
			cause := m.Expressed.At(i)
			if p.w.nodeChan(cause.Channel) == pc.ch && p.o.FedHigh(pc.ch) < int64(cause.Position) {
				return true
			}
		}
	}
	return false
}

// feedPaused reports whether a feed at world step may not pick pc: a head p was fed within the
// last Settings.HoldPauseSteps steps waits on it (headWaitsOn). Feeding the cause at once would
// release the hold at the next drain; paused, the held message stays held across drains and
// more records queue behind it, which is the shape FIFO, crash and deletion faults test.
func (p *proc) feedPaused(pc *pcState, step int) bool {
	pause := p.w.set.HoldPauseSteps
	return pause > 0 && p.headWaitsOn(pc, step-pause)
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

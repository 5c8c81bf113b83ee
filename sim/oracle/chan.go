package oracle

import (
	"cmp"
	"slices"

	"github.com/parsleysim/parsleysim/sim/chanindex"
)

// The oracle's own per-(process, channel) state: what it learned, over the process's lifetime,
// about each channel the process received or delivered on. It is kept apart from the host's read
// state and changed only by the oracle's own events (OnReceived, OnStart, OnFeed, OnDeliver,
// OnCommit, Rollback); the scheduler and the explorer read it only through the queries below
// (FedHigh, PendingHead, HasPending, DeliverySequence, DeliveriesSince).

// chanState is the oracle's lifetime view of one (process, channel) pair. Its changes within a
// step go through the process's undo log (Proc.undo).
type chanState struct {
	ch int32
	// Per execution: set by OnReceived, lastFed by each feed.
	received bool  // in the current execution's received set
	startPos int64 // the current execution's start position
	lastFed  int64 // last position fed this execution (startPos-1 before the first)
	// Lifetime.
	firstRead    int64 // start position of the first committed execution that received it; -1
	firstFixed   bool  // firstRead is final: an execution receiving the channel committed
	clampAtStart int64 // true delivered past on the channel at this execution's start; -1 none
	fedHigh      int64 // highest position fed in committed history or the current step; -1
	delivered    []deliveredPos
	pending      []Pending
}

// chanStates indexes a process's oracle channel states by channel, sparsely, as the host's
// index does (sim/chanindex).
type chanStates = chanindex.Index[chanState]

// chanState returns the oracle's state of channel c, creating it.
func (p *Proc) chanState(c int32) *chanState {
	if oc := p.chans.At(c); oc != nil {
		return oc
	}
	oc := &chanState{ch: c, firstRead: -1, clampAtStart: -1, fedHigh: -1}
	i := p.chans.Insert(c, oc)
	p.list = slices.Insert(p.list, i, oc)
	return oc
}

// FedHigh is the highest position fed to the process on channel c in committed history or the
// current step, -1 when none.
func (p *Proc) FedHigh(c int32) int64 {
	if oc := p.chans.At(c); oc != nil {
		return oc.fedHigh
	}
	return -1
}

// PendingHead returns the lowest fed, owed, undelivered message on channel c, nil if there is
// none. The caller reads it and keeps it no longer than the current action.
func (p *Proc) PendingHead(c int32) *Pending {
	if oc := p.chans.At(c); oc != nil && len(oc.pending) > 0 {
		return &oc.pending[0]
	}
	return nil
}

// receives reports whether channel c is in the current (or, when down, last) execution's
// received set.
func (p *Proc) receives(c int32) bool {
	oc := p.chans.At(c)
	return oc != nil && oc.received
}

// HeldBack reports whether the head of channel c's pending messages was fed before the latest
// drain began: a drain has held it back (it waits for a cause or behind a blocked head).
func (p *Proc) HeldBack(c int32) bool {
	head := p.PendingHead(c)
	return head != nil && head.fedDrains < p.drains
}

// HasPending reports whether the process owes a delivery on channel c.
func (p *Proc) HasPending(c int32) bool {
	oc := p.chans.At(c)
	return oc != nil && len(oc.pending) > 0
}

// StepFedOn reports whether the open step made a message on channel c pending: a rollback
// would take it away.
func (p *Proc) StepFedOn(c int32) bool {
	for _, u := range p.undo {
		if u.kind == undoPendingAdd && u.ch == c {
			return true
		}
	}
	return false
}

// Deliveries is the process's delivery count, and the deliveries of the open step among them.
func (p *Proc) Deliveries() (all int64, step int) { return p.deliveries, p.stepDeliv }

// DeliverySequence returns the process's first deliveries in delivery order.
func (p *Proc) DeliverySequence() []uint64 {
	seq := make([]uint64, p.deliveries)
	for _, oc := range p.list {
		for _, d := range oc.delivered {
			seq[d.index] = d.uid
		}
	}
	return seq
}

// DeliveriesSince returns the process's deliveries from delivery index from on, in order. In a
// run they end each channel's list (a channel delivers in position order), so only the lists'
// tails are read; a run that delivered out of order on a channel is read whole.
func (p *Proc) DeliveriesSince(from int64) []uint64 {
	n := p.deliveries
	if n <= from {
		return nil
	}
	out := make([]uint64, n-from)
	found := int64(0)
	for _, oc := range p.list {
		for j := len(oc.delivered) - 1; j >= 0 && int64(oc.delivered[j].index) >= from; j-- {
			out[int64(oc.delivered[j].index)-from] = oc.delivered[j].uid
			found++
		}
	}
	if found == n-from {
		return out
	}
	for _, oc := range p.list {
		for _, d := range oc.delivered {
			if int64(d.index) >= from {
				out[int64(d.index)-from] = d.uid
			}
		}
	}
	return out
}

// withListRoom returns list, or, when it has no room at all, an empty list with room for
// chanListRoom entries: a channel's delivered and pending lists start at that length, so that
// their first insertions do not each grow them.
func withListRoom[T any](list []T) []T {
	if cap(list) == 0 {
		return make([]T, 0, chanListRoom)
	}
	return list
}

// chanListRoom is the room a channel's delivered or pending list starts with.
const chanListRoom = 4

// deliveredIndex returns the index in oc.delivered of position pos, or -1.
func (oc *chanState) deliveredIndex(pos int64) int {
	i, ok := slices.BinarySearchFunc(oc.delivered, pos, func(e deliveredPos, pos int64) int { return cmp.Compare(e.pos, pos) })
	if !ok {
		return -1
	}
	return i
}

// pendingIndex returns the index of uid in oc.pending, or -1.
func (oc *chanState) pendingIndex(uid uint64) int {
	for i := range oc.pending {
		if oc.pending[i].UID == uid {
			return i
		}
	}
	return -1
}

// RefusalLedger is what the run injected that entitles a process to fail closed with a given
// reason (OVER_REFUSAL).
type RefusalLedger struct {
	RemovedHeld     bool // a redeclaration removed a channel the process held messages on
	IdentityChanged bool // a topic the process received was recreated
	DeletedHeld     bool // a topic was deleted while the process held messages from it
}

// Events of the faults that may entitle a process to fail closed.

// OnChannelsDeleted notes that channels first to first+n-1 (one incarnation's) were deleted, or
// (recreated) that their topic was recreated: holding messages on one of them entitles the
// process to refuse CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES, and after a recreation
// CHANNEL_REMOVED_WITH_HELD_MESSAGES as well (an application start leaves the old channel out).
func (p *Proc) OnChannelsDeleted(first int32, n int, recreated bool) {
	for i := range n {
		if p.HasPending(first + int32(i)) {
			p.injected.DeletedHeld = true
			if recreated {
				p.injected.RemovedHeld = true
			}
			return
		}
	}
}

// OnIdentityChanged notes that a topic the process resolved was recreated: it is entitled to
// refuse CHANNEL_IDENTITY_CHANGED.
func (p *Proc) OnIdentityChanged() { p.injected.IdentityChanged = true }

// OnChannelRemoved notes that a redeclaration removed channel c from the process's received set:
// holding messages on it entitles the process to refuse CHANNEL_REMOVED_WITH_HELD_MESSAGES.
func (p *Proc) OnChannelRemoved(c int32) {
	if p.HasPending(c) {
		p.injected.RemovedHeld = true
	}
}

// Ledger returns what the run injected that entitles the process to fail closed.
func (p *Proc) Ledger() RefusalLedger { return p.injected }

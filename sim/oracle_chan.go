package sim

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/sim/chanindex"
)

// The oracle's own per-(process, channel) state: what it learned, over the process's lifetime,
// about each channel the process received or delivered on. It is kept apart from the host's read
// state (pcState) and changed only by the oracle's own handlers (onReceive, onStart, onFeed,
// onDeliver, onCommit, rollback); the scheduler and the explorer read it only through the
// queries below (fedHigh, pendingHead, hasPending, deliverySequence, deliveriesSince).

// chanOracle is the oracle's lifetime view of one (process, channel) pair. Its changes within a
// step go through the process's undo log (procOracle.undo).
type chanOracle struct {
	ch int32
	// Per execution: set by onReceived, lastFed by each feed.
	received bool  // in the current execution's received set
	startPos int64 // the current execution's start position
	lastFed  int64 // last position fed this execution (startPos-1 before the first)
	// Lifetime.
	firstRead    int64 // start position of the first committed execution that received it; -1
	firstFixed   bool  // firstRead is final: an execution receiving the channel committed
	clampAtStart int64 // true delivered past on the channel at this execution's start; -1 none
	fedHigh      int64 // highest position fed in committed history or the current step; -1
	delivered    []deliveredPos
	pending      []pendingMsg
}

// chanOracles indexes a process's oracle channel states by channel, sparsely, as the host's
// index does (sim/chanindex).
type chanOracles = chanindex.Index[chanOracle]

// chanState returns the oracle's state of channel c, creating it.
func (o *procOracle) chanState(c int32) *chanOracle {
	if oc := o.chans.At(c); oc != nil {
		return oc
	}
	oc := &chanOracle{ch: c, firstRead: -1, clampAtStart: -1, fedHigh: -1}
	i := o.chans.Insert(c, oc)
	o.list = slices.Insert(o.list, i, oc)
	return oc
}

// fedHigh is the highest position fed to the process on channel c in committed history or the
// current step, -1 when none.
func (o *procOracle) fedHigh(c int32) int64 {
	if oc := o.chans.At(c); oc != nil {
		return oc.fedHigh
	}
	return -1
}

// pendingHead returns the lowest fed, owed, undelivered message on channel c, nil if there is
// none. The caller reads it and keeps it no longer than the current action.
func (o *procOracle) pendingHead(c int32) *pendingMsg {
	if oc := o.chans.At(c); oc != nil && len(oc.pending) > 0 {
		return &oc.pending[0]
	}
	return nil
}

// receives reports whether channel c is in the current (or, when down, last) execution's
// received set.
func (o *procOracle) receives(c int32) bool {
	oc := o.chans.At(c)
	return oc != nil && oc.received
}

// heldBack reports whether the head of channel c's pending messages was fed before the latest
// drain began: a drain has held it back (it waits for a cause or behind a blocked head).
func (o *procOracle) heldBack(c int32) bool {
	head := o.pendingHead(c)
	return head != nil && head.fedDrains < o.drains
}

// hasPending reports whether the process owes a delivery on channel c.
func (o *procOracle) hasPending(c int32) bool {
	oc := o.chans.At(c)
	return oc != nil && len(oc.pending) > 0
}

// deliverySequence returns the process's first deliveries in delivery order.
func (o *procOracle) deliverySequence() []uint64 {
	seq := make([]uint64, o.deliveries)
	for _, oc := range o.list {
		for _, d := range oc.delivered {
			seq[d.index] = d.uid
		}
	}
	return seq
}

// deliveriesSince returns the process's deliveries from delivery index from on, in order. In a
// run they end each channel's list (a channel delivers in position order), so only the lists'
// tails are read; a run that delivered out of order on a channel is read whole.
func (o *procOracle) deliveriesSince(from int64) []uint64 {
	n := o.deliveries
	if n <= from {
		return nil
	}
	out := make([]uint64, n-from)
	found := int64(0)
	for _, oc := range o.list {
		for j := len(oc.delivered) - 1; j >= 0 && int64(oc.delivered[j].index) >= from; j-- {
			out[int64(oc.delivered[j].index)-from] = oc.delivered[j].uid
			found++
		}
	}
	if found == n-from {
		return out
	}
	for _, oc := range o.list {
		for _, d := range oc.delivered {
			if int64(d.index) >= from {
				out[int64(d.index)-from] = d.uid
			}
		}
	}
	return out
}

// deliveredIndex returns the index in oc.delivered of position pos, or -1.
func (oc *chanOracle) deliveredIndex(pos int64) int {
	i, ok := slices.BinarySearchFunc(oc.delivered, pos, func(e deliveredPos, pos int64) int { return cmp.Compare(e.pos, pos) })
	if !ok {
		return -1
	}
	return i
}

// pendingIndex returns the index of uid in oc.pending, or -1.
func (oc *chanOracle) pendingIndex(uid uint64) int {
	for i := range oc.pending {
		if oc.pending[i].uid == uid {
			return i
		}
	}
	return -1
}

// chanStore is the storage a process shell copies the oracle's channel states into
// (procOracle.ownChans), reused when the shell is recycled.
type chanStore struct {
	index     chanOracles
	list      []*chanOracle
	states    []chanOracle
	delivered []deliveredPos // every channel's delivered positions, back to back
	pending   []pendingMsg   // every channel's pending messages, back to back
}

// ownChans gives o its own copy of its channel states, in st, dropping whatever an earlier life
// of the store held. Each channel's delivered and pending slices get pcHeadroom spare room, so
// the step's deliveries and receipts insert in place.
func (o *procOracle) ownChans(st *chanStore) {
	src := o.list
	nd, np := 0, 0
	for _, oc := range src {
		nd += len(oc.delivered) + pcHeadroom
		np += len(oc.pending) + pcHeadroom
	}
	states := reuse(st.states, len(src))
	delivered, pending := reuse(st.delivered, nd), reuse(st.pending, np)
	list, vals := st.list[:0], st.index.Values()[:0] // the index keeps a list of its own
	for _, oc := range src {
		states = append(states, *oc)
		cp := &states[len(states)-1]
		cp.delivered, delivered = carve(delivered, oc.delivered)
		cp.pending, pending = carve(pending, oc.pending)
		list, vals = append(list, cp), append(vals, cp)
	}
	st.index.Rebuild(o.chans, vals)
	index := st.index
	st.index, st.states, st.list = index, states, list
	st.delivered, st.pending = delivered[:0], pending[:0]
	o.chans, o.list = index, list
}

// appendChans appends the canonical encoding of o's channel states, sorted by channel, for the
// explorer's state hash. A rollback-free process (free) is encoded without firstFixed: only a
// restart reads it. The per-execution facts (received, startPos, lastFed) are left out: they
// repeat what the host's read state of the same channel holds (pcState), which the world's hash
// encodes already (TestOracleExecutionFactsAreTheHosts), so encoding them again would cost
// without telling states apart.
func (o *procOracle) appendChans(b []byte, free bool) []byte {
	for _, oc := range o.list {
		b = binary.AppendUvarint(b, uint64(oc.ch)+1)
		b = binary.AppendVarint(b, oc.firstRead)
		b = binary.AppendVarint(b, oc.clampAtStart)
		b = binary.AppendVarint(b, oc.fedHigh)
		if !free {
			b = appendBool(b, oc.firstFixed)
		}
		b = binary.AppendUvarint(b, uint64(len(oc.delivered)))
		for _, d := range oc.delivered {
			b = binary.AppendVarint(b, d.pos)
			b = binary.AppendVarint(b, int64(d.index))
		}
		b = binary.AppendUvarint(b, uint64(len(oc.pending)))
		for _, pm := range oc.pending {
			b = binary.AppendVarint(b, pm.pos)
		}
	}
	return append(b, 0)
}

// injectedCauses is the refusal ledger: the faults the run injected that entitle a process to
// fail closed with a given reason (OVER_REFUSAL).
type injectedCauses struct {
	removedHeld     bool // a redeclaration removed a channel the process held messages on
	identityChanged bool // a topic the process received was recreated
	deletedHeld     bool // a topic was deleted while the process held messages from it
}

// Events of the faults that may entitle a process to fail closed.

// onChannelsDeleted notes that channels first to first+n-1 (one incarnation's) were deleted, or
// (recreated) that their topic was recreated: holding messages on one of them entitles the
// process to refuse CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES, and after a recreation
// CHANNEL_REMOVED_WITH_HELD_MESSAGES as well (an application start leaves the old channel out).
func (o *procOracle) onChannelsDeleted(first int32, n int, recreated bool) {
	for i := range n {
		if o.hasPending(first + int32(i)) {
			o.injected.deletedHeld = true
			if recreated {
				o.injected.removedHeld = true
			}
			return
		}
	}
}

// onIdentityChanged notes that a topic the process resolved was recreated: it is entitled to
// refuse CHANNEL_IDENTITY_CHANGED.
func (o *procOracle) onIdentityChanged() { o.injected.identityChanged = true }

// onChannelRemoved notes that a redeclaration removed channel c from the process's received set:
// holding messages on it entitles the process to refuse CHANNEL_REMOVED_WITH_HELD_MESSAGES.
func (o *procOracle) onChannelRemoved(c int32) {
	if o.hasPending(c) {
		o.injected.removedHeld = true
	}
}

// refusalLedger returns what the run injected that entitles the process to fail closed.
func (o *procOracle) refusalLedger() injectedCauses { return o.injected }

package node

// heldBuffer is one received channel's hold-back buffer in the engine, in position order: first
// restored, the committed holds the execution started with, then own, the holds taken since.
//
// Why two parts: copying every committed hold into the engine at a restart would make starting an
// execution cost time and memory in proportion to the held messages, and every restart behind a
// long hold-back buffer slow. Restored holds are viewed in place in the committed State's queue:
// the view is read-only and capacity-clipped, and a committed queue never writes into a slot it
// has filled (fifo.popShared, fifo.dropAtShared, fifo.insertAtShared), so the host may keep
// applying deltas to the State while the engine runs. Clones share the view as well.
//
// Invariants: restored holds are flushed (they are in the committed state); every restored
// position is below every own position; holds taken in the current step (holdNew) are all in own.
// A sabotage mode that delivers or inserts out of order (SabotageNoFIFO, SabotageRedeliverRefeeds)
// first moves the restored holds into own (materialize), where they can change in place.
type heldBuffer struct {
	restored []HeldMessage
	own      fifo[heldEntry]
}

// len returns the number of held messages.
func (b *heldBuffer) len() int { return len(b.restored) + b.own.len() }

// msg returns the j-th held message (0 = head). A restored one must only be read.
func (b *heldBuffer) msg(j int) *HeldMessage {
	if j < len(b.restored) {
		return &b.restored[j]
	}
	return &b.own.at(j - len(b.restored)).msg
}

// state returns the commit bookkeeping of the j-th held message.
func (b *heldBuffer) state(j int) holdState {
	if j < len(b.restored) {
		return holdFlushed
	}
	return b.own.at(j - len(b.restored)).state
}

// front returns the head; the buffer must not be empty. It must only be read.
func (b *heldBuffer) front() *HeldMessage { return b.msg(0) }

// dropAt removes the j-th held message: the head in O(1) (a restored head is skipped over, never
// cleared: the slot is the committed state's), anything else after materialize.
func (b *heldBuffer) dropAt(j int) {
	switch {
	case len(b.restored) == 0:
		b.own.dropAt(j)
	case j == 0:
		b.restored = b.restored[1:]
	case j < len(b.restored):
		b.materialize()
		b.own.dropAt(j)
	default:
		b.own.dropAt(j - len(b.restored))
	}
}

// pushSlot appends an own entry at the back and returns it for the caller to fill in place: every
// field, as its contents are unspecified.
func (b *heldBuffer) pushSlot() *heldEntry { return b.own.pushSlot() }

// insertAt inserts v before the j-th held message (sabotage only), after materialize.
func (b *heldBuffer) insertAt(j int, v heldEntry) {
	b.materialize()
	b.own.insertAt(j, v)
}

// materialize moves the restored holds into own, as flushed entries ahead of the own ones, so the
// whole buffer can change in place.
func (b *heldBuffer) materialize() {
	if len(b.restored) == 0 {
		return
	}
	items := make([]heldEntry, 0, len(b.restored)+b.own.len()+heldSpare)
	for _, m := range b.restored {
		items = append(items, heldEntry{msg: m, state: holdFlushed})
	}
	items = append(items, b.own.live()...)
	b.own = fifo[heldEntry]{items: items}
	b.restored = nil
}

package node

import "slices"

// Clone returns an independent engine in exactly e's state: the same received channels, holds
// (with their commit bookkeeping), fedUpTo positions, frontier, delivered past, bindings, refusal,
// counters and uncommitted change, so that every later call on either engine behaves as the same
// call on the other would. The simulator's explorer clones a world for every transition.
//
// Sharing: record bytes and the decoded causes of held messages are immutable once received, so
// they stay shared; so do the per-sender indexes and the layout mark (engine_index.go), which are
// never changed once made; so do the channel keys, retained fedUpTo positions, send topics and
// bindings, which only Start sets (shared with their capacity clipped, so even an append could
// not write into the other engine's view); everything else the engine changes in place is
// copied. The decode chunk is not carried over (its spare room would be written by both
// engines), so the clone's next receipt starts a fresh chunk. The refusal is shared: it is never
// changed after it is made.
//
// Cost: at most four allocations whatever the number of channels and holds (the engine, its
// channels, one block for every channel's own held entries, one block for the four frontiers;
// the blocks only when not empty), plus the uncommitted change lists when a step is under way.
// The explorer clones an engine on most transitions: an allocation per channel and per frontier
// would be a large share of a transition's cost.
func (e *Engine) Clone() *Engine { return e.CloneInto(new(Engine)) }

// CloneInto is Clone into the storage of dst, an engine nothing reads or changes any more (the
// simulator's explorer recycles the engines of worlds it is done with): dst's channel array and
// step change lists, holds block, frontier block and CommitReused's room are reused (e's room is
// not copied), so a clone costs up to four allocations fewer. (Frontier and DeliveredPast hand
// out views of the frontier block: they must not be read once the engine is dead.) It returns
// dst, in exactly e's state. dst must not be e.
func (e *Engine) CloneInto(dst *Engine) *Engine {
	if dst == e {
		panic("node: CloneInto an engine's own storage")
	}
	chans, dirty, removed, holdBlock, causeBlock := dst.chans[:0], dst.dirty[:0], dst.removed[:0], dst.holdBlock, dst.causeBlock
	room := dst.deltaRoom // e's is e's own: CommitReused on both would write into one array
	c := dst
	*c = *e
	c.deltaRoom = room
	c.chans = append(chans, e.chans...)
	c.holdBlock = cloneHolds(c.chans, e.chans, holdBlock)
	c.keys = slices.Clip(e.keys)
	c.retained = slices.Clip(e.retained)
	c.sendTopics = slices.Clip(e.sendTopics)
	c.bindings = slices.Clip(e.bindings)
	causes := [4]*Causes{&c.frontier, &c.past, &c.commitFrontier, &c.commitPast}
	c.causeBlock = copyCausesBlockInto(causes[:], causeBlock, 0)
	c.causes = causeArena{}
	c.dirty = append(dirty, e.dirty...)
	c.removed = append(removed, e.removed...)
	return c
}

// heldSpare is the free room each channel's held buffer gets in a clone or a restored engine:
// the next receipt on the channel then holds its message without growing the buffer.
const heldSpare = 1

// cloneHolds gives every channel of dst (a copy of src) its own copy of src's own held entries,
// all carved from one block: each channel's region is its live entries plus heldSpare free
// entries, capacity-capped (s[a:b:c]) so that no append, insertion or compaction through one
// buffer reaches a neighbour's region. The restored holds are a read-only view: it is shared.
// The block is carved from spare (a dead engine's block, CloneInto) when it is large enough, so
// that even a clone with no own entries (the usual case right after a restart, or once the step's
// holds are delivered) gets room for its next receipt on every channel without allocating; when
// spare is too small, a clone with no own entries allocates nothing (a later receipt grows its own
// buffer) and one with own entries allocates a block of the size it needs. cloneHolds returns the
// block dst's engine now owns (spare itself when nothing was allocated).
func cloneHolds(dst, src []chanState, spare []heldEntry) []heldEntry {
	n := 0
	for i := range src {
		n += src[i].held.own.len()
	}
	size := n + len(src)*heldSpare
	if n == 0 && cap(spare) < size {
		for i := range dst {
			dst[i].held.own = fifo[heldEntry]{}
		}
		return spare
	}
	owned := spare[:cap(spare)]
	if cap(spare) < size {
		owned = make([]heldEntry, size)
	}
	block := owned
	for i := range dst {
		k := copy(block, src[i].held.own.live())
		dst[i].held.own = fifo[heldEntry]{items: block[: k : k+heldSpare]}
		block = block[k+heldSpare:]
	}
	return owned
}

// copyCausesBlockInto replaces each frontier with a copy of it carved from one block, with room
// spare entries after each non-empty one, capacity-capped so that an insertion through one
// writes only into its own room and past it reallocates instead of writing into the next.
// Positions change in place, within each frontier's own region. An empty frontier becomes the
// zero Causes, as Causes.Clone makes it. The block is spare (a dead engine's or state's) when it
// is large enough, else new; copyCausesBlockInto returns it (spare itself when the frontiers are
// all empty).
func copyCausesBlockInto(cs []*Causes, spare []Cause, room int) []Cause {
	n := 0
	for _, c := range cs {
		n += len(c.pairs)
	}
	if n == 0 {
		for _, c := range cs {
			*c = Causes{}
		}
		return spare
	}
	n += room * len(cs)
	owned := spare[:cap(spare)]
	if cap(spare) < n {
		owned = make([]Cause, n)
	}
	block := owned
	for _, c := range cs {
		k := len(c.pairs)
		if k == 0 {
			*c = Causes{}
			continue
		}
		c.pairs = copyPairs(block[:k:k+room], c.pairs)
		block = block[k+room:]
	}
	return owned
}

// copyPairs copies src into dst (of the same length) entry by entry and returns dst: frontiers
// are a few entries wide, and for those a loop of pointer-free 32-byte copies is cheaper than
// calling memmove (copy), which the explorer did four times per engine clone.
func copyPairs(dst, src []Cause) []Cause {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = src[i]
	}
	return dst
}

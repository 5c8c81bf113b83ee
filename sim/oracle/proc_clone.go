package oracle

import "slices"

// A process's oracle view is copied with its process by the explorer's clone: the copy shares
// the frontiers copy-on-write and, until its first change (Own), the channel states and the step's
// log.

// ProcStore is the storage a process shell copies its oracle view into (Proc.Own), reused when
// the shell is recycled.
type ProcStore struct {
	index     chanStates
	list      []*chanState
	states    []chanState
	delivered []deliveredPos // every channel's delivered positions, back to back
	pending   []Pending      // every channel's pending messages, back to back
	undo      []undoEntry
}

// chanHeadroom is the spare room each channel's delivered and pending slices get in a process's
// copy, so the step's deliveries and receipts insert in place.
const chanHeadroom = 2

// ShareWith makes c, a copy of p by value in a cloned process, share p's frontiers
// copy-on-write, with lat (a buffer of c's shell) for its step's latency samples.
func (p *Proc) ShareWith(c *Proc, lat []LatencySample) {
	pf, cf := p.frontiers(), c.frontiers()
	for i := range pf {
		pf[i].Shared, cf[i].Shared = true, true
	}
	c.stepLat = lat
}

// LatencyBuffer returns p's buffer of the step's latency samples, emptied, for a clone into p's
// shell to reuse (ShareWith).
func (p *Proc) LatencyBuffer() []LatencySample { return p.stepLat[:0] }

// Own gives p its own copy, in st (its process shell's storage), of what it shares with the
// process it was cloned from or into: its channel states and its step's log.
func (p *Proc) Own(st *ProcStore) {
	p.ownChans(st)
	p.undo = append(st.undo[:0], p.undo...)
	st.undo = p.undo
	p.staged = slices.Clone(p.staged)
	p.stepSent = slices.Clone(p.stepSent)
}

// ownChans gives p its own copy of its channel states, in st, dropping whatever an earlier life
// of the store held. Each channel's delivered and pending slices get chanHeadroom spare room, so
// the step's deliveries and receipts insert in place.
func (p *Proc) ownChans(st *ProcStore) {
	src := p.list
	nd, np := 0, 0
	for _, oc := range src {
		nd += len(oc.delivered) + chanHeadroom
		np += len(oc.pending) + chanHeadroom
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
	st.index.Rebuild(p.chans, vals)
	index := st.index
	st.index, st.states, st.list = index, states, list
	st.delivered, st.pending = delivered[:0], pending[:0]
	p.chans, p.list = index, list
}

// reuse returns s emptied, or a new empty slice when s cannot hold n elements.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// carve copies src to the end of arena, whose capacity was sized for it, and returns the copy,
// with chanHeadroom spare capacity, and the arena. The copy's capacity ends where the next one
// begins, so an insertion past it copies.
func carve[T any](arena, src []T) ([]T, []T) {
	at := len(arena)
	arena = append(arena, src...)
	arena = arena[:len(arena)+chanHeadroom]
	return arena[at : at+len(src) : at+len(src)+chanHeadroom], arena
}

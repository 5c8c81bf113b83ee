package node

// A sender usually stamps every message with the same channel list: its frontier's channels, with
// only the positions moving. The engine remembers, per received channel, the channel list of the
// last header it decoded there and, once a list repeats, where each of its channels sits among the
// received channels, in the frontier and in the delivered past (a causeIndex). A header with that
// list then merges into the frontier and the past and passes the gate by index, without comparing
// a single channel: the three walks that otherwise compare every cause's channel with the
// frontier's, the past's and the received set's.
//
// Validity: the received channels never change within an engine (Start fixes them, a clone copies
// them), so an index's recv never goes stale. The frontier's and the past's layouts change only
// when a channel is inserted or pruned, and every such change gives the engine a new layoutMark;
// an index's front and past hold while the engine's mark is the one they were computed under. A
// mark is an allocation of its own, so two engines (a clone and its source) can share one only by
// sharing the layouts it marks. Indexes are immutable once built: clones share them, and a stale
// one is replaced, never updated.
//
// Memory: per received channel, 40 bytes (the last list, a pointer to its index and whether the
// list is simple). Once the list repeated, the last list is the index's own copy of it; until
// then it is a view of the last header's decoded causes, which keeps that header's decode chunk
// (up to 2 KiB) reachable until the channel's next header. Per held message, a pointer; per
// index, 120 bytes and 8 bytes per cause in two allocations, plus, shared by the indexes of one
// list, 36 bytes per cause in two more (the list's copy and recv), at most one live per sender
// channel whose list repeats, plus those its held messages still point at; per layout change, one
// 1-byte allocation.

// layoutMark identifies one layout of the engine's frontier and delivered past: a new one is made
// whenever either gains or loses a channel. Its size is not zero, so every mark is a distinct
// allocation.
type layoutMark struct{ _ byte }

// causeIndex is where the channels of one channel list sit in the engine.
type causeIndex struct {
	list  []Cause     // the list's channels (positions meaningless), a copy of its own
	recv  []int32     // per cause: its channel's index in chans, −1 when not received
	mark  *layoutMark // front and past are valid while the engine's layout mark is mark
	front []int32     // per cause: its channel's index in the frontier (nil: not all there)
	past  []int32     // per cause: its channel's index in the delivered past (nil: not all there)
	// recvRun, frontRun and pastRun are i when recv, front or past is i, i+1, ... (the causes'
	// channels are a run of consecutive entries there, the usual case: a sender's frontier over
	// the channels its receivers share), else −1: the walk then needs no index loads at all.
	recvRun, frontRun, pastRun int32
}

// newLayout records that the frontier's or the past's channels changed: every index computed
// under the old mark is stale from here.
func (e *Engine) newLayout() { e.layout = new(layoutMark) }

// sameChannels reports whether a and b name the same channels in the same order. Out of line, as
// are mergeAt and blockedAt: inlined into their callers, their loops lose their registers.
//
//go:noinline
func sameChannels(a, b []Cause) bool {
	if len(a) != len(b) {
		return false
	}
	b = b[:len(a)]
	for k := range a {
		if a[k].Channel != b[k].Channel {
			return false
		}
	}
	return true
}

// noteList remembers causes as c's last header's list once the frontier merge is done, and returns
// their index when the list repeats (same, from extractCauses): built now, under the current layout,
// the second time a list is seen or when the layout it was built under changed. The last list is
// then the index's copy, so no decode chunk stays reachable through it.
func (e *Engine) noteList(c *chanState, causes []Cause, same bool) *causeIndex {
	if !same || len(causes) == 0 {
		c.lastList, c.lastIndex, c.lastSimple = causes, nil, simpleList(causes)
		return nil
	}
	c.lastIndex = e.buildIndex(c.lastIndex, causes)
	c.lastList = c.lastIndex.list
	return c.lastIndex
}

// buildIndex computes an index of causes under the current layout, taking list and recv from old
// when there is one (the same list: the received channels never change).
func (e *Engine) buildIndex(old *causeIndex, causes []Cause) *causeIndex {
	if e.layout == nil {
		e.newLayout()
	}
	x := &causeIndex{mark: e.layout}
	if old != nil {
		x.list, x.recv = old.list, old.recv
	} else {
		x.list = make([]Cause, len(causes))
		copy(x.list, causes)
		x.recv = make([]int32, len(causes))
		for k := range causes {
			x.recv[k] = int32(e.index(causes[k].Channel))
		}
	}
	n := len(causes)
	at := make([]int32, 2*n) // front's and past's room in one allocation
	x.front = positionsIn(at[:n:n], e.frontier.pairs, causes)
	x.past = positionsIn(at[n:], e.past.pairs, causes)
	x.recvRun, x.frontRun, x.pastRun = runOf(x.recv), runOf(x.front), runOf(x.past)
	return x
}

// runOf returns at[0] when at is at[0], at[0]+1, ... with at[0] ≥ 0, else −1 (and for nil).
func runOf(at []int32) int32 {
	if len(at) == 0 || at[0] < 0 {
		return -1
	}
	for k := range at {
		if at[k] != at[0]+int32(k) {
			return -1
		}
	}
	return at[0]
}

// mergeRun raises dst[run:] pointwise to at least src, entry for entry (the channels are the
// same).
//
//go:noinline
func mergeRun(dst []Cause, run int, src []Cause) {
	dst = dst[run : run+len(src)]
	for k := range src {
		if o := src[k].Position; o > dst[k].Position {
			dst[k].Position = o
		}
	}
}

// positionsIn fills at (of len(causes) entries) with the index in have of each cause's channel
// and returns it, or returns nil when have lacks one. Both are in channel order: one merge walk.
func positionsIn(at []int32, have, causes []Cause) []int32 {
	j := 0
	for k := range causes {
		ch := &causes[k].Channel
		for j < len(have) && compareChannelsAt(&have[j].Channel, ch) < 0 {
			j++
		}
		if j == len(have) || have[j].Channel != *ch {
			return nil
		}
		at[k] = int32(j)
	}
	return at
}

// mergeAt raises dst pointwise to at least src, where at[k] is the index in dst of src[k]'s
// channel: mergeCauses without a channel compared.
//
//go:noinline
func mergeAt(dst, src []Cause, at []int32) {
	at = at[:len(src)]
	for k := range src {
		p := &dst[at[k]]
		if o := src[k].Position; o > p.Position {
			p.Position = o
		}
	}
}

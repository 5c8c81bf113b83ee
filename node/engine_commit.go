package node

import (
	"slices"
)

// Commit returns the step's change to the ordering state since Start or the previous Commit, and
// starts a new step. The host applies it (State.Apply) to its committed copy atomically with the
// step's sends and read positions; a crash or abort simply discards the engine, and with it the
// uncommitted change. The first Commit of an execution also carries what initialisation changed
// (the version entry of a fresh process, new bindings, join clamp, start positions, discarded
// holds). A hold taken and delivered in the same step never appears. Cost: proportional to the
// channels and holds the step touched plus the frontier's width, never to buffer depth. After a
// refusal Commit returns an empty Delta: nothing of a refused step may commit. The Delta's lists
// are the caller's to keep.
func (e *Engine) Commit() (d Delta) {
	e.commitInto(&d, nil)
	return d
}

// CommitReused is Commit building the Delta's lists in storage the engine owns and reuses: they
// are valid only until the engine's next CommitReused (or until StartInto or CloneInto reuses the
// engine's storage), so the host must apply the Delta at once and keep none of its lists. The
// Delta is otherwise exactly the one Commit would return (empty lists are nil). A host that
// applies every delta straight away (the simulator's explorer commits on most transitions) saves
// the Delta's allocations, up to six a commit.
func (e *Engine) CommitReused() Delta {
	if e.deltaRoom == nil {
		e.deltaRoom = new(deltaRoom)
	}
	var d Delta
	e.commitInto(&d, e.deltaRoom)
	return d
}

// deltaRoom is the storage CommitReused builds Deltas in (each list at its largest capacity so
// far). An engine's deltaRoom is never shared with another live engine: CloneInto keeps dst's.
type deltaRoom struct {
	fed             []FedPosition
	newHolds        []HeldMessage
	removedHolds    []HoldRef
	frontierRemoved []Channel
	frontier        []Cause
	pastRemoved     []Channel
	past            []Cause
}

// commitInto is Commit into d (the zero Delta), building the lists in room's storage when room
// is not nil (CommitReused), else in new storage.
func (e *Engine) commitInto(d *Delta, room *deltaRoom) {
	if e.refusal != nil {
		return
	}
	if room == nil {
		room = &deltaRoom{}
	}
	d.SetVersion = e.versionDirty
	if e.bindingsDirty {
		d.Bindings = slices.Clone(e.bindings)
	}
	slices.Sort(e.dirty)
	fed, newHolds := room.fed[:0], room.newHolds[:0]
	if len(e.dirty) > 0 && cap(fed) < len(e.dirty) {
		fed = make([]FedPosition, 0, len(e.dirty)) // at most one row per dirty channel
	}
	for _, i := range e.dirty {
		c := &e.chans[i]
		if c.fedDirty {
			fed = append(fed, FedPosition{Channel: c.ch, FedUpTo: c.fed})
		}
		if c.holdsDirty {
			newHolds = e.flushHolds(c, newHolds)
		}
		c.fedDirty, c.holdsDirty, c.scanAll, c.listed = false, false, false, false
	}
	room.fed, room.newHolds = fed, newHolds
	d.Fed, d.NewHolds = nilIfEmpty(fed), nilIfEmpty(newHolds)
	if len(e.dirty) > 0 && d.Fed == nil {
		d.Fed = fed[:0:0] // as before: a dirty step's Fed is non-nil even when no fedUpTo moved
	}
	if len(e.removed) > 0 {
		room.removedHolds = append(room.removedHolds[:0], e.removed...)
		d.RemovedHolds = room.removedHolds
		slices.SortFunc(d.RemovedHolds, compareHoldRefs)
	}
	d.FrontierRemoved, d.Frontier = diffCausesInto(e.commitFrontier, e.frontier, room.frontierRemoved, room.frontier)
	d.PastRemoved, d.Past = diffCausesInto(e.commitPast, e.past, room.pastRemoved, room.past)
	room.frontierRemoved, room.frontier = keepRoom(room.frontierRemoved, d.FrontierRemoved), keepRoom(room.frontier, d.Frontier)
	room.pastRemoved, room.past = keepRoom(room.pastRemoved, d.PastRemoved), keepRoom(room.past, d.Past)
	e.commitFrontier.pairs = append(e.commitFrontier.pairs[:0], e.frontier.pairs...)
	e.commitPast.pairs = append(e.commitPast.pairs[:0], e.past.pairs...)
	e.dirty = e.dirty[:0]
	e.removed = e.removed[:0]
	e.versionDirty, e.bindingsDirty = false, false
}

// keepRoom returns the storage a deltaRoom keeps for a list: used when it is not nil (it was
// built in old or grew out of it), else old.
func keepRoom[T any](old, used []T) []T {
	if used == nil {
		return old
	}
	return used
}

// compareHoldRefs orders hold references by channel, then position.
func compareHoldRefs(a, b HoldRef) int {
	if r := compareChannels(a.Channel, b.Channel); r != 0 {
		return r
	}
	return cmpOffset(a.Position, b.Position)
}

// flushHolds appends c's holds taken since the last Commit to out, in position order, and marks
// them flushed (dropped under SabotageDropHeld, which leaves them out). New holds are a suffix of
// the buffer's own entries (restored holds are flushed), so this walks back from the tail; only a
// sabotage insertion mid-buffer (scanAll) needs every own entry.
func (e *Engine) flushHolds(c *chanState, out []HeldMessage) []HeldMessage {
	live := c.held.own.live()
	from := len(live)
	if c.scanAll {
		from = 0
	} else {
		for from > 0 && live[from-1].state == holdNew {
			from--
		}
	}
	for k := from; k < len(live); k++ {
		if live[k].state != holdNew {
			continue
		}
		if e.opts.Sabotage == SabotageDropHeld {
			live[k].state = holdDropped
			continue
		}
		live[k].state = holdFlushed
		out = append(out, live[k].msg)
	}
	return out
}

// Snapshot returns the engine's whole ordering state in committed form (for initialisation from
// scratch, migration and tests): what the committed State would be after applying every Delta,
// including the one the next Commit would return. Holds are copied; record bytes are shared.
// Under SabotageDropHeld it holds no holds, as the deltas carry none.
func (e *Engine) Snapshot() *State {
	s := &State{
		version:  stateVersion,
		bindings: slices.Clone(e.bindings),
		frontier: e.frontier.Clone(),
		past:     e.past.Clone(),
	}
	s.fed = make([]FedPosition, 0, len(e.chans)+len(e.retained))
	for i := range e.chans {
		if e.chans[i].fedKnown {
			s.fed = append(s.fed, FedPosition{Channel: e.chans[i].ch, FedUpTo: e.chans[i].fed})
		}
	}
	s.fed = append(s.fed, e.retained...)
	slices.SortFunc(s.fed, func(a, b FedPosition) int { return compareChannels(a.Channel, b.Channel) })
	for i := range e.chans {
		c := &e.chans[i]
		if c.held.len() == 0 {
			continue
		}
		var q fifo[HeldMessage]
		for j := range c.held.len() {
			if e.opts.Sabotage == SabotageDropHeld && c.held.state(j) != holdFlushed {
				continue
			}
			q.push(*c.held.msg(j))
		}
		if q.len() > 0 {
			s.holds = append(s.holds, channelHolds{ch: c.ch, queue: q})
		}
	}
	return s
}

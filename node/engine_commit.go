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
// refusal Commit returns an empty Delta: nothing of a refused step may commit.
func (e *Engine) Commit() Delta {
	if e.refusal != nil {
		return Delta{}
	}
	d := Delta{SetVersion: e.versionDirty}
	if e.bindingsDirty {
		d.Bindings = slices.Clone(e.bindings)
	}
	slices.Sort(e.dirty)
	if len(e.dirty) > 0 {
		d.Fed = make([]FedPosition, 0, len(e.dirty)) // at most one row per dirty channel
	}
	for _, i := range e.dirty {
		c := &e.chans[i]
		if c.fedDirty {
			d.Fed = append(d.Fed, FedPosition{Channel: c.ch, FedUpTo: c.fed})
		}
		if c.holdsDirty {
			d.NewHolds = e.flushHolds(c, d.NewHolds)
		}
		c.fedDirty, c.holdsDirty, c.scanAll, c.listed = false, false, false, false
	}
	if len(e.removed) > 0 {
		d.RemovedHolds = slices.Clone(e.removed)
		slices.SortFunc(d.RemovedHolds, func(a, b HoldRef) int {
			if r := compareChannels(a.Channel, b.Channel); r != 0 {
				return r
			}
			return cmpOffset(a.Position, b.Position)
		})
	}
	d.FrontierRemoved, d.Frontier = diffCauses(e.commitFrontier, e.frontier)
	d.PastRemoved, d.Past = diffCauses(e.commitPast, e.past)
	e.commitFrontier.pairs = append(e.commitFrontier.pairs[:0], e.frontier.pairs...)
	e.commitPast.pairs = append(e.commitPast.pairs[:0], e.past.pairs...)
	e.dirty = e.dirty[:0]
	e.removed = e.removed[:0]
	e.versionDirty, e.bindingsDirty = false, false
	return d
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

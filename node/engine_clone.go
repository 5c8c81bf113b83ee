package node

import "slices"

// Clone returns an independent engine in exactly e's state: the same received channels, holds
// (with their commit bookkeeping), fedUpTo positions, frontier, delivered past, bindings, refusal,
// counters and uncommitted change, so that every later call on either engine behaves as the same
// call on the other would. The simulator's explorer clones a world for every transition; before
// Clone it rebuilt each engine by replaying a journal of calls.
//
// Sharing: record bytes and the decoded causes of held messages are immutable once received, so
// they stay shared; so do the channel keys, retained fedUpTo positions, send topics and bindings,
// which only Start sets (shared with their capacity clipped, so even an append could not write
// into the other engine's view); everything else the engine changes in place is copied. The decode chunk is not
// carried over (its spare room would be written by both engines), so the clone's next receipt
// starts a fresh chunk. The refusal is shared: it is never changed after it is made.
func (e *Engine) Clone() *Engine {
	c := *e
	c.chans = slices.Clone(e.chans)
	for i := range c.chans {
		c.chans[i].held = e.chans[i].held.clone()
	}
	c.keys = slices.Clip(e.keys)
	c.retained = slices.Clip(e.retained)
	c.sendTopics = slices.Clip(e.sendTopics)
	c.bindings = slices.Clip(e.bindings)
	c.frontier = e.frontier.Clone()
	c.past = e.past.Clone()
	c.chunk = nil
	c.dirty = slices.Clone(e.dirty)
	c.removed = slices.Clone(e.removed)
	c.commitFrontier = e.commitFrontier.Clone()
	c.commitPast = e.commitPast.Clone()
	return &c
}

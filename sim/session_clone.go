package sim

import "slices"

// clone copies the session actors into world w, for the explorer's world clone: everything that
// changes is copied (clients with their truths and histories, projections), everything fixed after
// construction is shared (the spec, the written topics, the read models). Tokens and read rows
// are replaced, never changed in place, so they are shared too. A nil receiver (no sessions)
// clones to nil.
func (s *sessionWorld) clone(w *world) *sessionWorld {
	if s == nil {
		return nil
	}
	c := *s
	c.w = w
	c.clients = slices.Clone(s.clients)
	for i := range c.clients {
		cl := &c.clients[i]
		cl.truth = cl.truth.Clone()
		cl.writes = slices.Clip(cl.writes)
		cl.reads = slices.Clip(cl.reads)
	}
	c.projections = make([]*projection, len(s.projections))
	for i, pr := range s.projections {
		if pr == nil {
			continue
		}
		cp := *pr
		cp.recorded, cp.own, cp.truth = pr.recorded.Clone(), pr.own.Clone(), pr.truth.Clone()
		cp.staged = slices.Clone(pr.staged)
		c.projections[i] = &cp
	}
	return &c
}

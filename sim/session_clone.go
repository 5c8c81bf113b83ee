package sim

import "slices"

// clone copies the session actors into world w, for the explorer's world clone: everything that
// changes is copied (clients, projections, and the oracle's truth by its own Clone), everything
// fixed after construction is shared (the spec, the written topics, the read models). Tokens are
// replaced, never changed in place, so they are shared too. A nil receiver (no sessions) clones
// to nil.
func (s *sessionWorld) clone(w *world) *sessionWorld {
	if s == nil {
		return nil
	}
	c := *s
	c.w = w
	c.clients = slices.Clone(s.clients)
	c.truth = s.truth.Clone()
	c.projections = make([]*projection, len(s.projections))
	for i, pr := range s.projections {
		if pr == nil {
			continue
		}
		cp := *pr
		cp.recorded, cp.own = pr.recorded.Clone(), pr.own.Clone()
		cp.staged = slices.Clone(pr.staged)
		c.projections[i] = &cp
	}
	return &c
}

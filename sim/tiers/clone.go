package tiers

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/substrate"
)

// Clone copies the session actors into the clone of their world, for the explorer: h, or and
// sub are the clone's host, oracle and substrate. Everything that changes is copied (clients,
// projections, and the oracle's truth by its own Clone), everything fixed after construction is
// shared (the scenario, the written topics, the read models, the write tier's transactional
// producer, whose transactions open and close within a step). Tokens are replaced, never changed
// in place, so they are shared too. A nil receiver (no sessions) clones to nil.
func (s *Actors) Clone(h Host, or *oracle.Oracle, sub substrate.Substrate) *Actors {
	if s == nil {
		return nil
	}
	c := *s
	c.host, c.or, c.sub = h, or, sub
	c.weights = choose.Weights{} // scratch: a clone may run in another goroutine
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

// Package rapidchoose is a choose.Chooser that draws every decision from a *rapid.T, so a
// rapid.Check over runs shrinks a failing schedule automatically. It is a package of its own so
// that only tests, not the command line, link rapid and the testing package.
package rapidchoose

import "pgregory.net/rapid"

// Chooser draws every decision from a *rapid.T, using the decision's label as the draw label,
// so a rapid.Check over runs shrinks a failing schedule automatically and prints it as a labelled
// list of draws.
//
// Each decision is one draw u in [0, sum(weights)) mapped to the option whose weight interval
// holds it, so schedules follow the run's weights as the seeded chooser's do (a uniform pick among
// the enabled options would mostly feed and rarely fault). rapid shrinks u toward 0, that is
// toward the first enabled option in offer order. A decision with one enabled option draws
// nothing.
type Chooser struct {
	t    *rapid.T
	gens map[uint64]*rapid.Generator[uint64] // Uint64Range(0, total-1) by total; reused
}

// New returns a chooser drawing from t.
func New(t *rapid.T) *Chooser {
	return &Chooser{t: t, gens: make(map[uint64]*rapid.Generator[uint64])}
}

// Choose draws one of the non-zero options from rapid, in proportion to the weights.
func (c *Chooser) Choose(label string, weights []uint32) int {
	var total uint64
	on, only := 0, -1
	for i, w := range weights {
		total += uint64(w)
		if w > 0 {
			on, only = on+1, i
		}
	}
	switch on {
	case 0:
		panic("rapidchoose: Choose(" + label + "): every weight is zero")
	case 1:
		return only // no branch: do not spend a draw rapid would have to shrink
	}
	gen, ok := c.gens[total]
	if !ok {
		gen = rapid.Uint64Range(0, total-1)
		c.gens[total] = gen
	}
	u := gen.Draw(c.t, label)
	for i, w := range weights {
		if u < uint64(w) {
			return i
		}
		u -= uint64(w)
	}
	panic("rapidchoose: Choose: unreachable")
}

package sim

import "pgregory.net/rapid"

// RapidChooser draws every decision from a *rapid.T, using the decision's label as the draw label,
// so a rapid.Check over runs shrinks a failing schedule automatically and prints it as a labelled
// list of draws.
//
// Each decision is one draw u in [0, sum(weights)) mapped to the option whose weight interval
// holds it, so schedules follow the run's weights as the seeded chooser's do (a uniform pick among
// the enabled options would mostly feed and rarely fault). rapid shrinks u toward 0, that is
// toward the first enabled option in offer order. A decision with one enabled option draws
// nothing.
type RapidChooser struct {
	t    *rapid.T
	gens map[uint64]*rapid.Generator[uint64] // Uint64Range(0, total-1) by total; reused
}

// NewRapidChooser returns a chooser drawing from t.
func NewRapidChooser(t *rapid.T) *RapidChooser {
	return &RapidChooser{t: t, gens: make(map[uint64]*rapid.Generator[uint64])}
}

// Choose draws one of the non-zero options from rapid, in proportion to the weights.
func (c *RapidChooser) Choose(label string, weights []uint32) int {
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
		panic("sim: RapidChooser.Choose(" + label + "): every weight is zero")
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
	panic("sim: RapidChooser.Choose: unreachable")
}

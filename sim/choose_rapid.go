package sim

import "pgregory.net/rapid"

// RapidChooser draws every decision from a *rapid.T, using the decision's label as the draw label,
// so a rapid.Check over runs shrinks a failing schedule automatically and prints it as a labelled
// list of draws. Every non-zero option is one branch of equal standing (weights only say which
// options are on); rapid shrinks a draw toward 0, that is toward the first enabled option in offer
// order.
type RapidChooser struct {
	t    *rapid.T
	gens map[int]*rapid.Generator[int] // IntRange(0, n-1) by n; reused across draws
	on   []int                         // scratch: indices of the non-zero options
}

// NewRapidChooser returns a chooser drawing from t.
func NewRapidChooser(t *rapid.T) *RapidChooser {
	return &RapidChooser{t: t, gens: make(map[int]*rapid.Generator[int])}
}

// Choose draws one of the non-zero options from rapid.
func (c *RapidChooser) Choose(label string, weights []uint32) int {
	c.on = c.on[:0]
	for i, w := range weights {
		if w > 0 {
			c.on = append(c.on, i)
		}
	}
	if len(c.on) == 0 {
		panic("sim: RapidChooser.Choose(" + label + "): every weight is zero")
	}
	if len(c.on) == 1 {
		return c.on[0] // no branch: do not spend a draw rapid would have to shrink
	}
	gen, ok := c.gens[len(c.on)]
	if !ok {
		gen = rapid.IntRange(0, len(c.on)-1)
		c.gens[len(c.on)] = gen
	}
	return c.on[gen.Draw(c.t, label)]
}

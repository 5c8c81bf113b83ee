package explore

// StepChooser answers one step's decisions for the search's enumeration of a state's transitions:
// a forced prefix, then the first enabled option of every further decision, collecting every
// other enabled option as a prefix still to run. Running a step once per prefix, starting from
// the empty one, enumerates every complete answer sequence of the step: each run is one
// transition. A search reuses one StepChooser for every step: Reset empties it.
type StepChooser struct {
	filter  *Filter // the persistent set's restriction; nil: none
	prefix  []int
	answers []int
	// alts holds the prefixes still to run back to back; altEnds[i] is where the i-th ends.
	alts    []int
	altEnds []int
}

// Reset prepares c for a step forced through prefix and restricted by filter (nil: none).
func (c *StepChooser) Reset(prefix []int, filter *Filter) {
	c.filter, c.prefix = filter, prefix
	c.answers, c.alts, c.altEnds = c.answers[:0], c.alts[:0], c.altEnds[:0]
}

// Choose implements choose.Chooser: the prefix's answer while it lasts, then the first option
// with a non-zero weight (the filter applied), or -1 when there is none.
func (c *StepChooser) Choose(label string, weights []uint32) int {
	i := len(c.answers)
	if i < len(c.prefix) {
		c.answers = append(c.answers, c.prefix[i])
		return c.prefix[i]
	}
	if c.filter != nil {
		weights = c.filter.Apply(label, weights)
	}
	a := -1
	for j, wt := range weights {
		switch {
		case wt == 0:
		case a < 0:
			a = j
		default:
			c.alts = append(append(c.alts, c.answers...), j)
			c.altEnds = append(c.altEnds, len(c.alts))
		}
	}
	c.answers = append(c.answers, a)
	return a
}

// Answers are the answers of the step run since Reset (in c's storage, until the next Reset).
func (c *StepChooser) Answers() []int { return c.answers }

// Alternatives is the number of prefixes still to run that the step's decisions found.
func (c *StepChooser) Alternatives() int { return len(c.altEnds) }

// Alternative returns the i-th prefix still to run, in the order they were found (in c's storage,
// until the next Reset).
func (c *StepChooser) Alternative(i int) []int {
	from := 0
	if i > 0 {
		from = c.altEnds[i-1]
	}
	return c.alts[from:c.altEnds[i]]
}

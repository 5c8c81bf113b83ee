package choose

import "fmt"

// Replay answers from a recorded list of choices, such as Result.Choices of an earlier run
// or the choice list of a replay file.
//
// Errors are sticky, not panics: a run driven by a Replay always finishes, and the caller
// checks Err afterwards. When the list runs out, or a recorded answer is out of range or names a
// zero-weight option, Choose records the first such problem and from then on answers the first
// option with a non-zero weight (the "simplest" answer, as a shrinker would pick), so a shrunk or
// truncated list still drives a complete run. A replay that must reproduce a run exactly treats a
// non-nil Err as "the run diverged from the recording".
type Replay struct {
	choices []int
	next    int
	err     error
}

// NewReplay returns a chooser that answers choices in order. The slice is not copied and
// must not be modified while the chooser is in use.
func NewReplay(choices []int) *Replay {
	return &Replay{choices: choices}
}

// Choose returns the next recorded answer, or, once an error is recorded, the first non-zero
// option (see the type comment).
func (c *Replay) Choose(label string, weights []uint32) int {
	return replayChoose(c, label, dense(weights))
}

// ChooseFrom is Choose over the list o stands for.
func (c *Replay) ChooseFrom(label string, o Options) int { return replayChoose(c, label, o) }

// replayChoose is Choose and ChooseFrom, generic so that Choose's list is not boxed as an
// Options, which would allocate at every decision.
func replayChoose[O Options](c *Replay, label string, o O) int {
	decision := c.next
	if c.err == nil && decision >= len(c.choices) {
		c.err = &ReplayError{Decision: decision, Label: label, Options: o.Len(),
			Answer: -1, Reason: fmt.Sprintf("the recorded list ran out after %d choices", len(c.choices))}
	}
	if c.err != nil {
		c.next++
		return firstNonZero(label, o)
	}
	answer := c.choices[decision]
	c.next++
	switch {
	case answer < 0 || answer >= o.Len():
		c.err = &ReplayError{Decision: decision, Label: label, Options: o.Len(), Answer: answer,
			Reason: fmt.Sprintf("answer %d is out of range [0, %d)", answer, o.Len())}
	case o.Weight(answer) == 0:
		c.err = &ReplayError{Decision: decision, Label: label, Options: o.Len(), Answer: answer,
			Reason: fmt.Sprintf("answer %d names an option that is off (weight 0)", answer)}
	default:
		return answer
	}
	return firstNonZero(label, o)
}

// Err returns the first problem met (a *ReplayError), or nil if every answer so far came from
// the recording and was valid.
func (c *Replay) Err() error { return c.err }

// Consumed returns how many decisions the chooser has answered.
func (c *Replay) Consumed() int { return c.next }

// Remaining returns how many recorded answers have not been used; a run that reproduces its
// recording exactly ends with Remaining() == 0 and Err() == nil.
func (c *Replay) Remaining() int {
	if c.next >= len(c.choices) {
		return 0
	}
	return len(c.choices) - c.next
}

// ReplayError says where a replay diverged from its recording: the decision index (0-based), the
// decision's label, the number of options offered, the recorded answer (-1 when the list ran out)
// and why it could not be used.
type ReplayError struct {
	Decision int
	Label    string
	Options  int
	Answer   int
	Reason   string
}

// Error renders the divergence on one line.
func (e *ReplayError) Error() string {
	return fmt.Sprintf("replay diverged at decision %d (%q, %d options): %s",
		e.Decision, e.Label, e.Options, e.Reason)
}

// firstNonZero returns the index of the first non-zero weight, panicking if there is none (a
// caller bug: the Chooser contract promises one).
func firstNonZero[O Options](label string, o O) int {
	if o.Total() == 0 {
		panic("sim: Choose(" + label + "): every weight is zero")
	}
	return o.Find(0)
}

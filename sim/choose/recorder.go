package choose

import "fmt"

// Recorder wraps a run's Chooser and records every answer that was a decision: the list a
// replay or an explorer's branch carries.
type Recorder struct {
	inner   Chooser
	choices []int
	dense   []uint32 // ChooseFrom's list for an inner chooser that needs it whole
}

// NewRecorder returns a recorder asking inner.
func NewRecorder(inner Chooser) *Recorder { return &Recorder{inner: inner} }

// Reset makes r ask inner with no answer recorded, keeping the storage of the answers.
func (r *Recorder) Reset(inner Chooser) {
	*r = Recorder{inner: inner, choices: r.choices[:0], dense: r.dense}
}

// Choices returns the answers recorded so far, in order. The slice is r's own.
func (r *Recorder) Choices() []int { return r.choices }

// Choose asks the inner chooser and records the answer. A decision with a single enabled option
// is no decision: it is answered without consulting (or recording) the inner chooser, so neither
// replay files nor an explorer's branches carry it.
func (r *Recorder) Choose(label string, weights []uint32) int {
	only := -1
	for i, w := range weights {
		if w == 0 {
			continue
		}
		if only >= 0 { // a second option: a decision
			only = -1
			break
		}
		only = i
	}
	if only >= 0 {
		return only
	}
	i := r.inner.Choose(label, weights)
	if i < 0 || i >= len(weights) || weights[i] == 0 {
		panic(fmt.Sprintf("sim: chooser answered %d for %s over %d options", i, label, len(weights)))
	}
	r.choices = append(r.choices, i)
	return i
}

// ChooseFrom is Choose over the list o stands for: a single enabled option is answered without
// asking, and an inner chooser that cannot answer from Options gets the list written out.
func (r *Recorder) ChooseFrom(label string, o Options) int {
	if o.Count() == 1 {
		return o.Find(0)
	}
	var i int
	if oc, ok := r.inner.(optionsChooser); ok {
		i = oc.ChooseFrom(label, o)
	} else {
		r.dense = o.Dense(r.dense[:0])
		i = r.inner.Choose(label, r.dense)
	}
	if i < 0 || i >= o.Len() || o.Weight(i) == 0 {
		panic(fmt.Sprintf("sim: chooser answered %d for %s over %d options", i, label, o.Len()))
	}
	r.choices = append(r.choices, i)
	return i
}

package scenarios

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Exercised totals what the runs of a sweep did: for every counter of sim.Stats (and every
// action kind and refusal reason) the sum over the runs and the number of runs where it was
// non-zero. It reads the counters by reflection over sim.Stats, so a counter the world adds shows
// up in sweeps and in the vacuity guard without a change here. Virtual-time figures (latency
// summaries, rates) are not totals and are left out.
type Exercised struct {
	names  []string // in the order first met: action kinds, then the Stats fields in declaration order
	counts map[string]*ExercisedCount
}

// ExercisedCount is one counter's total over a sweep and the number of runs where it was
// non-zero.
type ExercisedCount struct {
	Total int64 `json:"total"`
	Runs  int   `json:"runs"`
}

// ActionCounter is the Exercised name of an action kind's count, such as "action.feed".
func ActionCounter(k spec.ActionKind) string { return "action." + k.String() }

// RefusalCounter is the Exercised name of a refusal reason's count, such as
// "refusals.UNDECODABLE_METADATA".
func RefusalCounter(reason string) string { return "refusals." + reason }

func newExercised() Exercised {
	e := Exercised{counts: map[string]*ExercisedCount{}}
	for _, k := range spec.ActionKinds() {
		e.counter(ActionCounter(k))
	}
	return e
}

// counter returns the named counter, adding it in order when first met.
func (e *Exercised) counter(name string) *ExercisedCount {
	c, ok := e.counts[name]
	if !ok {
		c = &ExercisedCount{}
		e.counts[name] = c
		e.names = append(e.names, name)
	}
	return c
}

func (e *Exercised) addCount(name string, n int64) {
	c := e.counter(name)
	c.Total += n
	if n != 0 {
		c.Runs++
	}
}

// add folds one run's stats in: action kinds by name, then every integer field of sim.Stats by
// its JSON name and every map of integers as "name.KEY" in sorted key order.
func (e *Exercised) add(s sim.Stats) {
	for _, k := range spec.ActionKinds() {
		e.addCount(ActionCounter(k), int64(s.Actions[k]))
	}
	v := reflect.ValueOf(s)
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		switch {
		case fv.CanInt():
			e.addCount(name, fv.Int())
		case fv.Kind() == reflect.Map && fv.Type().Key().Kind() == reflect.String && fv.Type().Elem().Kind() == reflect.Int:
			keys := fv.MapKeys()
			strs := make([]string, len(keys))
			for j, k := range keys {
				strs[j] = k.String()
			}
			slices.Sort(strs)
			for _, k := range strs {
				e.addCount(name+"."+k, fv.MapIndex(reflect.ValueOf(k)).Int())
			}
		}
	}
}

// Names returns the counters in a stable order: action kinds, then the Stats fields in
// declaration order, map entries as first met.
func (e Exercised) Names() []string { return e.names }

// Count returns a counter's total and runs (zero when never met).
func (e Exercised) Count(name string) ExercisedCount {
	if c, ok := e.counts[name]; ok {
		return *c
	}
	return ExercisedCount{}
}

// MarshalJSON writes the counters as one object keyed by name (sorted, as encoding/json does).
func (e Exercised) MarshalJSON() ([]byte, error) {
	m := make(map[string]ExercisedCount, len(e.counts))
	for name, c := range e.counts {
		m[name] = *c
	}
	return json.Marshal(m)
}

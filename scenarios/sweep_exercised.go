package scenarios

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Exercised totals what the runs of a sweep did: for every counter of spec.Stats (and every
// action kind and refusal reason) the sum over the runs and the number of runs where it was
// non-zero. It reads the counters by reflection over spec.Stats, so a counter the world adds shows
// up in sweeps and in the vacuity guard without a change here. Virtual-time figures (latency
// summaries, rates) are not totals and are left out.
type Exercised struct {
	names  []string // Names' order; nil when a counter was added since it was last sorted
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

// refusalCounter is the Exercised name of a refusal reason's count, such as
// "refusals.UNDECODABLE_METADATA".
func refusalCounter(reason string) string { return "refusals." + reason }

func newExercised() Exercised {
	e := Exercised{counts: map[string]*ExercisedCount{}}
	for _, k := range spec.ActionKinds() {
		e.counter(ActionCounter(k))
	}
	return e
}

// counter returns the named counter, adding it when first met.
func (e *Exercised) counter(name string) *ExercisedCount {
	c, ok := e.counts[name]
	if !ok {
		c = &ExercisedCount{}
		e.counts[name] = c
		e.names = nil
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

// add folds one run's stats in: action kinds by name, then every integer field of spec.Stats by
// its JSON name and every map of integers as "name.KEY" in sorted key order.
func (e *Exercised) add(s spec.Stats) {
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

// Names returns the counters in a canonical order, whatever order the runs were added in: action
// kinds in their order, then the Stats fields in declaration order, a map's entries sorted by
// key. Two sweeps of the same runs (a whole range, or its shards merged) list them alike.
func (e *Exercised) Names() []string {
	if e.names == nil {
		e.names = make([]string, 0, len(e.counts))
		for name := range e.counts {
			e.names = append(e.names, name)
		}
		slices.SortFunc(e.names, func(a, b string) int {
			ra, ka := exercisedRank(a)
			rb, kb := exercisedRank(b)
			if ra != rb {
				return ra - rb
			}
			return strings.Compare(ka, kb)
		})
	}
	return e.names
}

// exercisedRank places a counter name in Names' order: its group (an action kind, then a Stats
// field) and its key within the group (a map entry's key).
func exercisedRank(name string) (int, string) {
	if rest, ok := strings.CutPrefix(name, "action."); ok {
		for i, k := range spec.ActionKinds() {
			if k.String() == rest {
				return i, ""
			}
		}
	}
	group, key, _ := strings.Cut(name, ".")
	t := reflect.TypeFor[spec.Stats]()
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == group || n == "" && t.Field(i).Name == group {
			return int(spec.NumActionKinds) + i, key
		}
	}
	return int(spec.NumActionKinds) + t.NumField(), name
}

// merge folds another sweep's totals in (MergeSweeps): totals and runs add up.
func (e *Exercised) merge(o *Exercised) {
	for name, c := range o.counts {
		mine := e.counter(name)
		mine.Total += c.Total
		mine.Runs += c.Runs
	}
}

// Count returns a counter's total and runs (zero when never met).
func (e Exercised) Count(name string) ExercisedCount {
	if c, ok := e.counts[name]; ok {
		return *c
	}
	return ExercisedCount{}
}

// UnmarshalJSON reads what MarshalJSON writes (a shard's report, for MergeSweeps).
func (e *Exercised) UnmarshalJSON(b []byte) error {
	var m map[string]ExercisedCount
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*e = Exercised{counts: make(map[string]*ExercisedCount, len(m))}
	for name, c := range m {
		if c.Total < 0 || c.Runs < 0 {
			return fmt.Errorf("exercised counter %q: negative count", name)
		}
		e.counts[name] = &c
	}
	return nil
}

// MarshalJSON writes the counters as one object keyed by name (sorted, as encoding/json does).
func (e Exercised) MarshalJSON() ([]byte, error) {
	m := make(map[string]ExercisedCount, len(e.counts))
	for name, c := range e.counts {
		m[name] = *c
	}
	return json.Marshal(m)
}

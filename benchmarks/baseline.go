package benchmarks

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
)

// BaselineCommand regenerates results/sim-metrics.json.
const BaselineCommand = "go run ./cmd/simrun bench --update"

// Baseline is the content of results/sim-metrics.json: every exact metric, by group
// ("scenario/<case>", "engine_work/<workload>", "allocs_per_op"), then by name. Only Metrics is
// compared; the rest says where the figures come from.
type Baseline struct {
	Command   string                      `json:"command"`
	Commit    string                      `json:"commit,omitempty"`
	GoVersion string                      `json:"go_version"`
	Machine   string                      `json:"machine"`
	Cases     []CaseInfo                  `json:"cases"`
	Metrics   map[string]map[string]int64 `json:"metrics"`
}

// CaseInfo records what a scenario group ran: scenario name, seed and size override.
type CaseInfo struct {
	Name      string `json:"name"`
	Scenario  string `json:"scenario"`
	Seed      uint64 `json:"seed"`
	Processes int    `json:"processes,omitempty"`
}

// Collect measures everything the baseline holds: the scenario cases, the engine workloads and
// the allocations.
func Collect(commit string) (*Baseline, error) {
	b := &Baseline{Command: BaselineCommand, Commit: commit, GoVersion: runtime.Version(),
		Machine: "any: virtual-time metrics and work counters are exact; allocations depend on the Go version",
		Metrics: map[string]map[string]int64{}}
	results, err := MeasureAll(Cases)
	if err != nil {
		return nil, err
	}
	for i, r := range results {
		spec := Cases[i].Spec.Normalize()
		b.Cases = append(b.Cases, CaseInfo{Name: r.Name, Scenario: spec.Scenario, Seed: spec.Seed, Processes: spec.Processes})
		b.Metrics["scenario/"+r.Name] = r.Metrics
	}
	work, err := EngineWork()
	if err != nil {
		return nil, err
	}
	for name, m := range work {
		b.Metrics["engine_work/"+name] = m
	}
	if b.Metrics["allocs_per_op"], err = Allocs(); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadBaseline reads a baseline file; errors name the file.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: not a metrics baseline: %w", path, err)
	}
	if b.Metrics == nil {
		return nil, fmt.Errorf("%s: no \"metrics\" object", path)
	}
	return &b, nil
}

// Marshal renders the baseline as indented JSON (map keys sorted, so the file is stable).
func (b *Baseline) Marshal() []byte {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		panic("benchmarks: marshal baseline: " + err.Error())
	}
	return append(data, '\n')
}

// Change is one metric that differs between a baseline and a new measurement.
type Change struct {
	Group, Metric string
	Old, New      int64
	OldOK, NewOK  bool // false: the metric is absent on that side
}

// String says which metric moved and by how much, e.g.
// "scenario/random/seed=4 hold_p99_us: 76324 -> 77000 (+676, +0.89%)".
func (c Change) String() string {
	name := c.Group + " " + c.Metric
	switch {
	case !c.NewOK:
		return fmt.Sprintf("%s: gone (was %d)", name, c.Old)
	case !c.OldOK:
		return fmt.Sprintf("%s: new metric (%d), not in the baseline", name, c.New)
	}
	delta := c.New - c.Old
	rel := "from zero"
	if c.Old != 0 {
		rel = fmt.Sprintf("%+.2f%%", 100*float64(delta)/float64(c.Old))
	}
	return fmt.Sprintf("%s: %d -> %d (%+d, %s)", name, c.Old, c.New, delta, rel)
}

// Compare lists every metric that differs between old and new, in group then metric order.
func Compare(old, new *Baseline) []Change {
	var out []Change
	for _, g := range unionKeys(old.Metrics, new.Metrics) {
		om, nm := old.Metrics[g], new.Metrics[g]
		for _, k := range unionKeys(om, nm) {
			ov, ook := om[k]
			nv, nok := nm[k]
			if ook != nok || ov != nv {
				out = append(out, Change{Group: g, Metric: k, Old: ov, New: nv, OldOK: ook, NewOK: nok})
			}
		}
	}
	return out
}

// FormatChanges renders changes one a line, for the --check failure message.
func FormatChanges(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(c.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// MetricCount is how many metrics the baseline holds.
func (b *Baseline) MetricCount() int {
	n := 0
	for _, m := range b.Metrics {
		n += len(m)
	}
	return n
}

// writeFile writes data to path (0644).
func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }

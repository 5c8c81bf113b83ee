package benchmarks

import (
	"fmt"
	"math"
	"slices"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Case is one fixed run of the virtual-time metrics: a scenario at a fixed seed. A run is a
// function of its Spec, so every metric it yields is exact.
type Case struct {
	Name string         // metric group name, e.g. "random/seed=3"
	Spec scenarios.Spec // what to run
}

// Cases is the fixed set `simrun bench` measures: the targeted scripted scenarios that exercise
// holds, restarts and never-yielding causes, and random swarm runs (every fault the seed turns
// on, every check on) at fixed seeds, one of them on a larger generated topology.
var Cases = []Case{
	{"diamond_hold", scenarios.Spec{Scenario: "diamond_hold", Seed: 1}},
	{"held_across_restart", scenarios.Spec{Scenario: "held_across_restart", Seed: 1}},
	{"never_yielding_cause_held_then_released", scenarios.Spec{Scenario: "never_yielding_cause_held_then_released", Seed: 1}},
	{"restart_invisibility", scenarios.Spec{Scenario: "restart_invisibility", Seed: 1}},
	{"random/seed=1", scenarios.Spec{Seed: 1}},
	{"random/seed=4", scenarios.Spec{Seed: 4}},
	{"random/seed=8", scenarios.Spec{Seed: 8}},
	{"random/seed=9", scenarios.Spec{Seed: 9}},
	{"random/seed=11", scenarios.Spec{Seed: 11}},
	{"random/seed=16", scenarios.Spec{Seed: 16}},
	{"random/processes=30/seed=7", scenarios.Spec{Seed: 7, Processes: 30}},
}

// ScenarioResult is one case's exact metrics (names carry units) and the raw latency samples
// behind them, sorted (for the plots; not stored in the baseline).
type ScenarioResult struct {
	Name           string
	Metrics        map[string]int64
	HoldMicros     []int64
	EndToEndMicros []int64
}

// Measure runs c with every check on and returns its metrics. It fails when the scenario does
// not build, or when the latencies rebuilt from the trace disagree with the simulator's own
// summaries (spec.Stats), naming the figure.
func Measure(c Case) (*ScenarioResult, error) {
	prep, err := c.Spec.Prepare()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	sink := newLatencySink()
	opts := prep.Options
	opts.Sinks = []trace.Sink{sink}
	res := sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(prep.Spec.Seed), opts)
	if sink.err != nil {
		return nil, fmt.Errorf("%s: reading the trace: %w", c.Name, sink.err)
	}
	slices.Sort(sink.hold)
	slices.Sort(sink.endToEnd)
	if err := crossCheckBelow(sink.hold, res.Stats.HoldLatency); err != nil {
		return nil, fmt.Errorf("%s: hold latency: %w", c.Name, err)
	}
	if err := crossCheck(sink.endToEnd, res.Stats.EndToEndLatency); err != nil {
		return nil, fmt.Errorf("%s: end-to-end latency: %w", c.Name, err)
	}
	out := &ScenarioResult{Name: c.Name, Metrics: statsMetrics(res), HoldMicros: sink.hold, EndToEndMicros: sink.endToEnd}
	addLatency(out.Metrics, "hold", sink.hold)
	addLatency(out.Metrics, "end_to_end", sink.endToEnd)
	out.Metrics["hold_back_depth_max"] = int64(sink.depthMax)
	return out, nil
}

// MeasureAll measures every case in order.
func MeasureAll(cases []Case) ([]*ScenarioResult, error) {
	out := make([]*ScenarioResult, 0, len(cases))
	for _, c := range cases {
		r, err := Measure(c)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// statsMetrics lifts the run's counts from spec.Stats. Deliveries per virtual second is kept as
// an integer (deliveries × 10⁶ / end time in µs, rounded down), so it compares exactly.
func statsMetrics(res *spec.Result) map[string]int64 {
	st := &res.Stats
	m := map[string]int64{
		"steps":              int64(res.Steps),
		"violations":         int64(len(res.Violations)),
		"end_us":             st.EndMicros,
		"deliveries":         int64(st.Deliveries),
		"holds":              int64(st.Holds),
		"held_then_released": int64(st.HeldReleased),
		"duplicates_dropped": int64(st.Duplicates),
		"sent":               int64(st.Sent),
		"commits":            int64(st.Commits),
		"crashes":            int64(st.Crashes),
		"rollbacks":          int64(st.Rollbacks),
	}
	refusals := 0
	for _, r := range st.RefusalReasons() {
		refusals += st.Refusals[r]
	}
	m["refusals"] = int64(refusals)
	if st.EndMicros > 0 {
		m["deliveries_per_virtual_s"] = int64(st.Deliveries) * 1_000_000 / st.EndMicros
	}
	return m
}

// addLatency adds prefix_count and the p50, p99 and max of sorted samples, in µs.
func addLatency(m map[string]int64, prefix string, sorted []int64) {
	m[prefix+"_count"] = int64(len(sorted))
	q := quantilesMicros(sorted)
	m[prefix+"_p50_us"], m[prefix+"_p99_us"], m[prefix+"_max_us"] = q[0], q[1], q[2]
}

// quantilesMicros returns the p50, p99 and maximum of sorted samples: the empirical quantile
// (the smallest sample with at least that fraction of the samples at or below it,
// empiricalQuantile), stored as integers. All zero for no samples.
func quantilesMicros(sorted []int64) [3]int64 {
	if len(sorted) == 0 {
		return [3]int64{}
	}
	xs := make([]float64, len(sorted))
	for i, v := range sorted {
		xs[i] = float64(v)
	}
	q := func(p float64) int64 { return int64(math.Round(empiricalQuantile(p, xs))) }
	return [3]int64{q(0.5), q(0.99), sorted[len(sorted)-1]}
}

// summary summarises sorted samples as sim does (integer mean; empirical quantiles).
func summary(sorted []int64) spec.LatencyStats {
	q := quantilesMicros(sorted)
	var mean int64
	if len(sorted) > 0 {
		var sum int64
		for _, v := range sorted {
			sum += v
		}
		mean = sum / int64(len(sorted))
	}
	return spec.LatencyStats{Count: len(sorted), MeanMicros: mean, P50Micros: q[0], P99Micros: q[1], MaxMicros: q[2]}
}

// crossCheck requires samples rebuilt from the trace to have exactly the simulator's summary.
func crossCheck(sorted []int64, want spec.LatencyStats) error {
	if got := summary(sorted); got != want {
		return fmt.Errorf("rebuilt from the trace %+v, simulator says %+v", got, want)
	}
	return nil
}

// crossCheckBelow is crossCheck for hold latency. The simulator starts a hold when the record
// is fed, before the engine's receive work is charged to the clock; the trace's "held" event
// comes after that charge. So each rebuilt sample is at most the simulator's, the counts are
// equal, and every order statistic and the mean are at most the simulator's.
func crossCheckBelow(sorted []int64, want spec.LatencyStats) error {
	got := summary(sorted)
	if got.Count != want.Count || got.MeanMicros > want.MeanMicros || got.P50Micros > want.P50Micros ||
		got.P99Micros > want.P99Micros || got.MaxMicros > want.MaxMicros {
		return fmt.Errorf("rebuilt from the trace %+v, not a lower bound of the simulator's %+v", got, want)
	}
	return nil
}

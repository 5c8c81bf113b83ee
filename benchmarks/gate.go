package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// The wall-clock gate. Shared machines are noisy, so a benchmark fails the gate only when its
// median time per op is more than SlowdownFactor times the baseline's AND a Mann-Whitney U test
// (benchmath.AssumeNothing: no assumption on the distribution) says the two samples differ with
// p < GateAlpha. With 6 runs on each side the smallest attainable p is 2/924 ≈ 0.002, so a
// consistent slowdown is caught and a single noisy run is not.

// SlowdownFactor is how many times slower the median must be to fail the gate.
const SlowdownFactor = 2.0

// GateAlpha is the significance level of the U test.
const GateAlpha = 0.05

// BenchSamples are the samples of one unit in a benchmark file, by "pkg BenchmarkName" key
// (the GOMAXPROCS suffix dropped, so files from machines of different sizes compare).
type BenchSamples map[string][]float64

// procsSuffix is the "-N" GOMAXPROCS suffix of a benchmark name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// ParseBench reads Go benchmark output (the format benchstat reads) and returns every result's
// value in unit (benchfmt's tidied unit, e.g. "sec/op", "B/op", "actions/s"), by "pkg name" key;
// lines that are not results (comments, PASS, ok) are skipped.
func ParseBench(data []byte, fileName, unit string) BenchSamples {
	out := BenchSamples{}
	for key, units := range ParseBenchUnits(data, fileName, false) {
		if v, ok := units[unit]; ok {
			out[key] = v
		}
	}
	return out
}

// ParseBenchUnits reads Go benchmark output into samples by key, then by unit: benchfmt's tidied
// units, or with orig the units as written ("ns/op", "MB/s").
func ParseBenchUnits(data []byte, fileName string, orig bool) map[string]map[string][]float64 {
	out := map[string]map[string][]float64{}
	r := benchfmt.NewReader(bytes.NewReader(data), fileName)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		key := res.GetConfig("pkg") + " Benchmark" + procsSuffix.ReplaceAllString(string(res.Name.Full()), "")
		if out[key] == nil {
			out[key] = map[string][]float64{}
		}
		for _, v := range res.Values {
			unit, value := v.Unit, v.Value
			if orig && v.OrigUnit != "" {
				unit, value = v.OrigUnit, v.OrigValue
			}
			out[key][unit] = append(out[key][unit], value)
		}
	}
	return out
}

// ReadBench reads a benchmark file's time per op.
func ReadBench(path string) (BenchSamples, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := ParseBench(data, path, "sec/op")
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	return s, nil
}

// GateResult is one benchmark's comparison.
type GateResult struct {
	Key                  string
	OldMedian, NewMedian float64 // seconds per op
	P                    float64 // U test p-value (1 when there is no baseline)
	NoBaseline           bool
}

// Slower reports whether the result fails the gate.
func (g GateResult) Slower() bool {
	return !g.NoBaseline && g.NewMedian > SlowdownFactor*g.OldMedian && g.P < GateAlpha
}

// String renders the comparison, e.g.
// "pkg BenchmarkX: median 120ns -> 260ns (2.17x, p=0.002) SLOWER".
func (g GateResult) String() string {
	if g.NoBaseline {
		return fmt.Sprintf("%s: median %s, not in the baseline", g.Key, formatSeconds(g.NewMedian))
	}
	s := fmt.Sprintf("%s: median %s -> %s (%.2fx, p=%.3f)", g.Key, formatSeconds(g.OldMedian),
		formatSeconds(g.NewMedian), g.NewMedian/g.OldMedian, g.P)
	if g.Slower() {
		s += " SLOWER"
	}
	return s
}

// Gate compares every benchmark of cur with the baseline, in key order.
func Gate(base, cur BenchSamples) []GateResult {
	keys := make([]string, 0, len(cur))
	for k := range cur {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = GateAlpha
	out := make([]GateResult, 0, len(keys))
	for _, k := range keys {
		ns := benchmath.NewSample(cur[k], &thresholds)
		g := GateResult{Key: k, NewMedian: median(ns), P: 1}
		if old, ok := base[k]; ok && len(old) > 0 {
			os := benchmath.NewSample(old, &thresholds)
			g.OldMedian = median(os)
			g.P = benchmath.AssumeNothing.Compare(os, ns).P
		} else {
			g.NoBaseline = true
		}
		out = append(out, g)
	}
	return out
}

// median returns a sample's median.
func median(s *benchmath.Sample) float64 {
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}

// formatSeconds renders seconds per op in ns, µs or ms.
func formatSeconds(s float64) string {
	switch {
	case s < 1e-6:
		return fmt.Sprintf("%.1fns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.2fµs", s*1e6)
	}
	return fmt.Sprintf("%.2fms", s*1e3)
}

// FormatGate renders the results one a line and returns how many failed.
func FormatGate(results []GateResult) (string, int) {
	var b strings.Builder
	failed := 0
	for _, g := range results {
		if g.Slower() {
			failed++
		}
		b.WriteString(g.String())
		b.WriteByte('\n')
	}
	return b.String(), failed
}

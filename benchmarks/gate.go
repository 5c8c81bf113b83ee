package benchmarks

import (
	"bytes"
	"fmt"
	"regexp"

	"golang.org/x/perf/benchfmt"
)

// Reading Go benchmark output, and the time half of the side-by-side gate (sidebyside.go). Shared
// machines are noisy, so a benchmark fails on time only when its time per op in the median round
// is more than SlowdownFactor times the baseline build's AND a Mann-Whitney U test
// (benchmath.AssumeNothing: no assumption on the distribution) says the two builds' samples
// differ with p < GateAlpha. With 6 rounds the smallest attainable p is 2/924 ≈ 0.002, so a
// consistent slowdown is caught and a single noisy round is not.

// SlowdownFactor is how many times slower the median round must be to fail the gate on time.
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

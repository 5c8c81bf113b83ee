package benchmarks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReportCommand regenerates results/README.md and its plots.
const ReportCommand = "go run ./cmd/simrun bench --report results/"

// goalActionsPerSecond is the simulator's speed goal with every check on.
const goalActionsPerSecond = 300_000

// ReportFiles names every file WriteReport may write into its directory (the command line checks
// them against its other inputs and outputs before writing).
func ReportFiles() []string {
	return []string{"README.md", "hold-latency.svg", "codec-width.svg", "drain-depth.svg", "simulator-speed.svg"}
}

// WriteReport writes dir/README.md and the SVG plots from the measured baseline b (with its
// scenario results) and the wall-clock baseline dir/bench.txt (tables and plots of it are left
// out when it is missing). It returns the files written.
func WriteReport(dir string, b *Baseline, results []*ScenarioResult) ([]string, error) {
	wall, header, err := readWall(filepath.Join(dir, "bench.txt"))
	if err != nil {
		return nil, err
	}
	files, err := writePlots(dir, wall, results)
	if err != nil {
		return nil, err
	}
	var md bytes.Buffer
	writeIntro(&md, b, header)
	writeGoals(&md, wall, b)
	writeScenarioTable(&md, b)
	writeWorkTable(&md, b)
	writeAllocsTable(&md, b)
	writeWallTable(&md, wall)
	writePlotsSection(&md, files)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), md.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return append([]string{"README.md"}, files...), nil
}

// readWall reads a wall-clock benchmark file into medians by key and unit (as written), with
// its comment header lines. A missing file gives no medians and no error.
func readWall(path string) (wallMedians, []string, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return wallMedians{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var header []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "# ") {
			header = append(header, strings.TrimPrefix(line, "# "))
		}
	}
	out := wallMedians{}
	for key, units := range ParseBenchUnits(data, path, true) {
		out[key] = map[string]float64{}
		for unit, vals := range units {
			sorted := slices.Clone(vals)
			slices.Sort(sorted)
			out[key][unit] = empiricalQuantile(0.5, sorted)
		}
	}
	return out, header, nil
}

func writeIntro(md *bytes.Buffer, b *Baseline, header []string) {
	fmt.Fprintf(md, "# Results\n\nEverything here is generated; do not edit by hand. Regenerate, from the repository root:\n\n")
	fmt.Fprintf(md, "```\ngo run ./benchmarks/benchgate -update     # results/bench.txt: every wall-clock benchmark, -benchtime=100ms -count=6 (a few minutes)\n")
	fmt.Fprintf(md, "%s          # results/sim-metrics.json: exact virtual-time metrics, work counters, allocations\n", BaselineCommand)
	fmt.Fprintf(md, "%s   # this README and the SVG plots (reads results/bench.txt)\n```\n\n", ReportCommand)
	fmt.Fprintf(md, "CI (`.ci/bench-gate`) runs `go run ./cmd/simrun bench --check` (any change in an exact metric fails, naming the metric and the amount) and `go run ./benchmarks/benchgate` (the gate subset of the wall-clock benchmarks, failing only when a median slows by more than %gx with Mann-Whitney U p < %g against results/bench.txt, and again when the slow families are measured a second time).\n\n", SlowdownFactor, GateAlpha)
	fmt.Fprintf(md, "Exact metrics: commit %s, %s. Wall clock (results/bench.txt):\n\n", orDash(b.Commit), b.GoVersion)
	if len(header) == 0 {
		fmt.Fprintf(md, "- no results/bench.txt yet\n")
	}
	for _, h := range header {
		fmt.Fprintf(md, "- `%s`\n", h)
	}
	md.WriteString("\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

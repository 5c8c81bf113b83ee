package benchmarks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReportCommand regenerates results/README.md and its plots from the committed figures. The
// commands that regenerate the figures (BaselineCommand, benchgate -update) regenerate the report
// too, through WriteReport.
const ReportCommand = "go run ./cmd/simrun bench --report results/"

// goalActionsPerSecond is the simulator's speed goal with every check on.
const goalActionsPerSecond = 300_000

// ReportFiles names every file WriteReport may write into its directory (the command line checks
// them against its other inputs and outputs before writing).
func ReportFiles() []string { return append([]string{"README.md"}, plotNames(true)...) }

// The files of a results directory the report reads.
const (
	metricsFile = "sim-metrics.json" // the exact metrics (BaselineCommand)
	wallFile    = "bench.txt"        // the wall-clock baseline (benchgate -update)
	speedFile   = "speed.md"         // the speed goals side by side with a baseline commit
	exploreFile = "explore.md"       // the explorer's counts and speed
)

// WriteReport writes dir/README.md (renderCommittedReport) and the SVG plots: the wall-clock plots from
// dir/bench.txt, the latency plot from the fixed scenario cases, measured afresh (their samples
// are exact, the same as the ones dir/sim-metrics.json summarises). A directory without
// sim-metrics.json gets a report of the metrics measured, when given (else it is an error). It
// returns the files written.
func WriteReport(dir string, measured *Baseline) ([]string, error) {
	b, err := ReadBaseline(filepath.Join(dir, metricsFile))
	if errors.Is(err, fs.ErrNotExist) && measured != nil {
		b, err = measured, nil
	}
	if err != nil {
		return nil, err
	}
	md, err := renderReport(dir, b)
	if err != nil {
		return nil, err
	}
	wall, _, err := readWall(filepath.Join(dir, wallFile))
	if err != nil {
		return nil, err
	}
	results, err := MeasureAll(Cases)
	if err != nil {
		return nil, err
	}
	files, err := writePlots(dir, wall, results)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), md, 0o644); err != nil {
		return nil, err
	}
	return append([]string{"README.md"}, files...), nil
}

// renderCommittedReport renders dir/README.md from the committed figures only: the exact metrics of
// dir/sim-metrics.json and the wall clock of dir/bench.txt (its tables are left out when it is
// missing), with links to the side-by-side speed report and the explorer's results where they
// exist. The same files always give the same bytes, which TestResultsReportIsCurrent holds the
// committed README to.
func renderCommittedReport(dir string) ([]byte, error) {
	b, err := ReadBaseline(filepath.Join(dir, metricsFile))
	if err != nil {
		return nil, err
	}
	return renderReport(dir, b)
}

// renderReport is renderCommittedReport with the exact metrics b.
func renderReport(dir string, b *Baseline) ([]byte, error) {
	wall, header, err := readWall(filepath.Join(dir, wallFile))
	if err != nil {
		return nil, err
	}
	links := map[string]bool{}
	for _, f := range []string{speedFile, exploreFile, "live.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			links[f] = true
		}
	}
	var md bytes.Buffer
	writeIntro(&md, b, header, links)
	writeGoals(&md, wall, b, links)
	writeScenarioTable(&md, b)
	writeWorkTable(&md, b)
	writeAllocsTable(&md, b)
	writeWallTable(&md, wall)
	writePlotsSection(&md, plotNames(len(wall) > 0))
	return md.Bytes(), nil
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

func writeIntro(md *bytes.Buffer, b *Baseline, header []string, links map[string]bool) {
	fmt.Fprintf(md, "# Results\n\nEverything here is generated; do not edit by hand. Regenerate, from the repository root:\n\n")
	fmt.Fprintf(md, "```\n%s          # results/sim-metrics.json: exact virtual-time metrics, work counters, allocations; then this README\n", BaselineCommand)
	fmt.Fprintf(md, "go run ./benchmarks/benchgate -update     # results/bench.txt: every wall-clock benchmark, -benchtime=100ms -count=6 (a few minutes); then this README\n")
	fmt.Fprintf(md, "%s   # this README and the SVG plots, from the committed files\n", ReportCommand)
	if links[speedFile] {
		fmt.Fprintf(md, "go run ./benchmarks/benchgate -baseline REV -bench speed -rounds 9 -out results/%s   # the speed goals side by side with commit REV\n", speedFile)
	}
	if links["live.md"] {
		fmt.Fprintf(md, "go run ./cmd/simrun sweep --live-report --seeds 1-200 -j 2 --out results   # results/live.md and live.json: every scenario file, random and session on kfake, compared with the model (about 10 minutes)\n")
	}
	fmt.Fprintf(md, "```\n\n")
	fmt.Fprintf(md, "`go test ./benchmarks` fails when this README is not what the committed `sim-metrics.json` and `bench.txt` produce.\n\n")
	fmt.Fprintf(md, "CI (`.ci/bench-gate`) runs `go run ./cmd/simrun bench --check` (any change in an exact metric fails, naming the metric and the amount) and `go run ./benchmarks/benchgate`: the gate subset of the wall-clock benchmarks, built and run side by side with the commit `bench.txt` was measured at (interleaved rounds, so the machine's load falls on both builds alike). It fails when a benchmark executes more than %gx the baseline's instructions per op (cachegrind, where valgrind is installed), or when its time per op in the median round is more than %gx the baseline's with Mann-Whitney U p < %g, in the pass and again when those benchmarks are measured a second time. Absolute times are reported, never gated.\n\n", InstructionFactor, SlowdownFactor, GateAlpha)
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

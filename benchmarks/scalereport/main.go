// Command scalereport measures the scale benchmark (benchmarks.ScaleSizes: one run of
// simrun --processes N --seed 3 per size, every check on) and writes results/scale.json, and
// results/scale.md and its plot results/scale.svg rendered from it.
//
//	go run ./benchmarks/scalereport                      measure every size, write the report
//	go run ./benchmarks/scalereport -sizes 1000,4000     measure only these sizes
//	go run ./benchmarks/scalereport -rerender            render md and svg again from the JSON
//
// Wall-clock figures: run it on a quiet machine. Run from the repository root.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/benchmarks"
)

func main() {
	out := flag.String("out", "results", "directory of the report")
	sizesFlag := flag.String("sizes", "", "comma-separated process counts (default: every size of the benchmark)")
	rerender := flag.Bool("rerender", false, "render the Markdown and SVG from the committed JSON, measuring nothing")
	flag.Parse()
	if err := run(*out, *sizesFlag, *rerender); err != nil {
		fmt.Fprintln(os.Stderr, "scalereport:", err)
		os.Exit(2)
	}
}

func run(dir, sizesFlag string, rerender bool) error {
	if rerender {
		r, err := benchmarks.ReadScaleReport(dir)
		if err != nil {
			return err
		}
		return benchmarks.WriteScaleReport(dir, r)
	}
	sizes := benchmarks.ScaleSizes
	if sizesFlag != "" {
		sizes = nil
		for _, f := range strings.Split(sizesFlag, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 2 {
				return fmt.Errorf("-sizes: want process counts of at least 2, got %q", f)
			}
			sizes = append(sizes, n)
		}
	}
	r := &benchmarks.ScaleReport{Commit: commit(), Machine: machine(), Command: "go run ./benchmarks/scalereport"}
	for _, n := range sizes {
		p, err := benchmarks.MeasureScale(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%d processes: %d steps, %.2f s, %.1f us/step, %.0f B/process\n", n, p.Steps, p.Seconds, p.UsPerStep, p.BytesPerProcess)
		r.Points = append(r.Points, p)
	}
	return benchmarks.WriteScaleReport(dir, r)
}

// commit is the repository's HEAD, short, or "unknown".
func commit() string {
	b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// machine describes where the figures were measured.
func machine() string {
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s/%s, %d CPUs, %s, load average %s at the start", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), load)
}

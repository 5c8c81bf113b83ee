package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/benchmarks"
	"github.com/parsleysim/parsleysim/scenarios"
)

// benchUsage is the help text of `simrun bench`.
const benchUsage = `usage: simrun bench [--check | --update] [--json] [--baseline FILE] [--report DIR]

Measures the exact virtual-time metrics of fixed scenarios at fixed seeds, the engine's work
counters on fixed workloads and the allocations per operation of the hot paths.

Exit status: 0 measured (and matching the baseline with --check), 1 a metric moved, 2 bad usage or
an unreadable baseline.`

// benchMain is `simrun bench [--check | --update] [--json] [--baseline FILE] [--report DIR]`:
// the exact virtual-time metrics of a fixed set of scenarios at fixed seeds, the engine's work
// counters on fixed workloads and the allocations per operation of the hot paths.
//
//	simrun bench                   print the metrics, one scenario per line
//	simrun bench --check           compare with the baseline; exit 1 naming every metric that moved
//	simrun bench --update          rewrite the baseline (an intended change); a baseline named
//	                               sim-metrics.json is a results directory's, whose report
//	                               (README.md and its SVG plots) is rewritten too
//	simrun bench --report results/ write results/README.md and its SVG plots from the committed
//	                               results/sim-metrics.json and results/bench.txt
func benchMain(args []string, stdout, stderr io.Writer) int {
	const name = "simrun bench"
	fs := newFlagSet(name, benchUsage)
	check := fs.Bool("check", false, "compare with the baseline; exit 1 if any metric moved")
	update := fs.Bool("update", false, "rewrite the baseline with the new figures")
	jsonOut := fs.Bool("json", false, "print the metrics as JSON (the baseline's format)")
	baseline := fs.String("baseline", defaultBaseline, "the baseline `FILE`")
	report := fs.String("report", "", "write README.md and the SVG plots into `DIR`, created if missing, from DIR/sim-metrics.json and DIR/bench.txt")
	rest, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return usageError(stderr, name, "unexpected argument %q", rest[0])
	}
	if *check && *update {
		return usageError(stderr, name, "--check and --update exclude each other")
	}
	reportDir := *report
	if *update && reportDir == "" && filepath.Base(*baseline) == "sim-metrics.json" {
		reportDir = filepath.Dir(*baseline) // the report quotes the metrics: regenerate it with them
	}
	var inputs, outputs []fileArg
	if *check {
		inputs = append(inputs, fileArg{"--baseline", *baseline})
	}
	if *update {
		outputs = append(outputs, fileArg{"--baseline", *baseline})
	}
	if reportDir != "" {
		inputs = append(inputs, fileArg{"the wall-clock input", filepath.Join(reportDir, "bench.txt")})
		if metrics := filepath.Join(reportDir, "sim-metrics.json"); !*update || filepath.Clean(metrics) != filepath.Clean(*baseline) {
			inputs = append(inputs, fileArg{"the metrics input", metrics})
		}
		what := "--report's"
		if *report == "" {
			what = "the report's"
		}
		for _, f := range benchmarks.ReportFiles() {
			outputs = append(outputs, fileArg{what, filepath.Join(reportDir, f)})
		}
	}
	if err := checkOutputs(inputs, outputs); err != nil {
		return usageError(stderr, name, "%v", err)
	}
	if reportDir != "" {
		if err := os.MkdirAll(reportDir, 0o755); err != nil {
			return usageError(stderr, name, "--report: %v", err)
		}
	}
	b, err := benchmarks.Collect(gitCommit())
	if err != nil {
		fmt.Fprintf(stderr, "simrun bench: %v\n", err)
		return exitViolation
	}
	switch {
	case *jsonOut:
		stdout.Write(b.Marshal())
	case !*check && !*update && *report == "":
		printBench(stdout, b)
	}
	code = exitPass
	if *check {
		code = benchCheck(b, *baseline, stdout, stderr)
	}
	if *update {
		if err := os.WriteFile(*baseline, b.Marshal(), 0o644); err != nil {
			fmt.Fprintf(stderr, "simrun bench: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "simrun bench: wrote %d metrics to %s\n", b.MetricCount(), *baseline)
	}
	if reportDir != "" {
		files, err := benchmarks.WriteReport(reportDir, b)
		if err != nil {
			fmt.Fprintf(stderr, "simrun bench: report: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "simrun bench: wrote %s\n", strings.Join(files, ", "))
	}
	return code
}

// defaultBaseline is the committed baseline --baseline names by default.
const defaultBaseline = "results/sim-metrics.json"

// updateCommand is the command that rewrites the baseline at path.
func updateCommand(path string) string {
	if path == defaultBaseline {
		return benchmarks.BaselineCommand
	}
	return benchmarks.BaselineCommand + " --baseline " + scenarios.ShellQuote(path)
}

// benchCheck compares b with the baseline file and reports every metric that moved.
func benchCheck(b *benchmarks.Baseline, path string, stdout, stderr io.Writer) int {
	old, err := benchmarks.ReadBaseline(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "simrun bench: %v (create it with: %s)\n", err, updateCommand(path))
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun bench: %v: expected the metrics baseline '%s' writes\n", err, updateCommand(path))
		return exitUsage
	}
	changes := benchmarks.Compare(old, b)
	if len(changes) > 0 {
		fmt.Fprintf(stderr, "simrun bench: %d of %d exact metrics differ from %s:\n%s", len(changes), b.MetricCount(), path,
			benchmarks.FormatChanges(changes))
		fmt.Fprintf(stderr, "if the change is intended, rewrite the baseline: %s\n", updateCommand(path))
		return exitViolation
	}
	fmt.Fprintf(stdout, "simrun bench: %d exact metrics match %s\n", b.MetricCount(), path)
	return exitPass
}

// printBench prints one line per group: its metrics as name=value, sorted by name.
func printBench(w io.Writer, b *benchmarks.Baseline) {
	groups := make([]string, 0, len(b.Metrics))
	for g := range b.Metrics {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		m := b.Metrics[g]
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		fields := make([]string, len(names))
		for i, k := range names {
			fields[i] = fmt.Sprintf("%s=%d", k, m[k])
		}
		fmt.Fprintf(w, "%s  %s\n", g, strings.Join(fields, " "))
	}
}

// gitCommit returns the short hash of HEAD, or "" outside a git checkout.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

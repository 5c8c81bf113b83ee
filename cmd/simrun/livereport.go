package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// liveReportFiles are the targeted scenario files the live report runs, from the repository root.
const liveReportFiles = "scenarios/testdata/*.txt"

// liveReportCommand is `simrun sweep --live-report`: every targeted scenario file, then the seed
// range of random and of session, on kfake compared with the model; it prints a line for each and
// writes DIR/live.md and DIR/live.json (results/live.md).
func liveReportCommand(ctx context.Context, a *sweepArgs, stdout, stderr io.Writer, progress bool) int {
	files, err := filepath.Glob(liveReportFiles)
	if err != nil || len(files) == 0 {
		return usageError(stderr, "simrun sweep", "--live-report runs the scenario files %s from the repository root: none found", liveReportFiles)
	}
	start := time.Now()
	rep := &scenarios.LiveReport{Commit: commitOf(), Machine: machine(), LoadStart: loadAverage(),
		Command: fmt.Sprintf("go run ./cmd/simrun sweep --live-report --seeds %d-%d -j %d --out %s", a.first, a.last, a.workers, scenarios.ShellQuote(a.outDir))}
	live := scenarios.Live{Substrate: "kfake", Compare: true, Wrap: wrapLive}
	for _, path := range files {
		if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		row, err := liveFileRow(path, live)
		if err != nil {
			return liveExit(stderr, "simrun sweep", fmt.Errorf("%s: %w", path, err))
		}
		rep.Files = append(rep.Files, row)
		fmt.Fprintf(stdout, "%-60s %s\n", path, liveFileLine(row))
	}
	rep.FilesSeconds = time.Since(start).Seconds()
	for _, name := range []string{scenarios.RandomName, scenarios.SessionName} {
		if ctx.Err() != nil || rep.Interrupted {
			rep.Interrupted = true
			break
		}
		var bar *progressBar
		cfg := scenarios.SweepConfig{Spec: scenarios.Spec{Scenario: name}, First: a.first, Last: a.last, Workers: a.workers, Live: live}
		if progress {
			bar = newProgressBar(stderr, a.last-a.first+1, fmt.Sprintf("%-8s ", name))
			cfg.Progress = bar.update
		}
		began := time.Now()
		sw, err := scenarios.Sweep(ctx, cfg)
		bar.clear()
		if err != nil {
			return liveExit(stderr, "simrun sweep", err)
		}
		row := scenarios.LiveSweepRowOf(sw, a.workers, time.Since(began).Seconds())
		rep.Sweeps = append(rep.Sweeps, row)
		rep.Interrupted = rep.Interrupted || sw.Interrupted
		fmt.Fprintf(stdout, "%-8s seeds %d-%d: %d of %d compared seeds agreed, %d failed, %.1f s (%.2f seeds/s)\n", name, a.first, a.last,
			row.Agreed, row.Compared, len(row.FailedSeeds), row.Seconds, float64(row.Runs)/max(row.Seconds, 1e-9))
	}
	rep.Seconds, rep.LoadEnd = time.Since(start).Seconds(), loadAverage()
	if err := os.MkdirAll(a.outDir, 0o755); err != nil {
		return usageError(stderr, "simrun sweep", "--out: %v", err)
	}
	md, js := filepath.Join(a.outDir, "live.md"), filepath.Join(a.outDir, "live.json")
	for _, f := range []struct {
		path string
		data []byte
	}{{md, rep.Markdown()}, {js, rep.JSON()}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return usageError(stderr, "simrun sweep", "--out: %v", err)
		}
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%.0f s)\n", md, js, rep.Seconds)
	if rep.Interrupted {
		return exitInterrupted
	}
	for _, f := range rep.Files {
		if !f.Agreed || !f.Met {
			return exitViolation
		}
	}
	for _, s := range rep.Sweeps {
		if len(s.FailedSeeds) > 0 {
			return exitViolation
		}
	}
	return exitPass
}

// liveFileRow runs a scenario file on live, compared, as `simrun run FILE --substrate kfake
// --compare` does.
func liveFileRow(path string, live scenarios.Live) (scenarios.LiveFileRow, error) {
	row := scenarios.LiveFileRow{File: path}
	f, err := scenariofile.LoadFile(path)
	if err != nil {
		return row, err
	}
	lr, err := live.StartLive(f.Settings.Seed)
	if err != nil {
		return row, err
	}
	var opts sim.RunOptions
	lr.Use(&opts)
	run, err, liveErr := runFileLive(lr, f, scenariofile.FileRunOptions{Substrate: opts.Substrate, Sinks: opts.Sinks})
	if cerr := lr.Cleanup(); liveErr == nil {
		liveErr = cerr
	}
	switch {
	case err != nil:
		return row, err
	case liveErr != nil:
		return row, liveErr
	}
	row.Agreed = !slices.ContainsFunc(run.Result.Violations, func(v spec.Violation) bool { return v.Criterion == scenarios.CritModelDivergence })
	row.Met = run.OK()
	switch {
	case len(run.Failures) > 0:
		row.Detail = run.Failures[0]
	case run.StoryDiff != "":
		row.Detail = run.StoryDiff
	}
	return row, nil
}

// liveFileLine says a file's row in a few words.
func liveFileLine(r scenarios.LiveFileRow) string {
	switch {
	case r.Agreed && r.Met:
		return "agreed, expectations met"
	case r.Agreed:
		return "agreed, NOT as expected: " + r.Detail
	}
	return "DIVERGED: " + r.Detail
}

// loadAverage is the first three fields of /proc/loadavg ("unknown" where there is none).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

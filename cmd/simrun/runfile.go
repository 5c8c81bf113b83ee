package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
)

// simrun run FILE: run a scenario file (scenarios/scenariofile/FORMAT.md), print its story and verdict, and
// check its expectations and recorded story. Exit 0 when the run passed (or violated as the file
// expects) and met every expectation, 1 on a mismatch or a violation, 2 on bad usage or a bad
// file (the message names the line).

// runFileArgs are the flags of simrun run.
type runFileArgs struct {
	path      string
	jsonOut   bool
	verbose   bool
	tracePath string
	sabotage  string
	rewrite   bool
}

// runFileMain is the entry point of "simrun run".
func runFileMain(args []string, stdout, stderr io.Writer) int {
	a, err := parseRunFileArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "simrun run: %v\n", err)
		}
		return exitUsage
	}
	f, err := scenariofile.LoadFile(a.path)
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	opts := scenariofile.FileRunOptions{Sabotage: a.sabotage}
	var flushers []func() error
	if a.tracePath != "" {
		tf, err := os.Create(a.tracePath)
		if err != nil {
			fmt.Fprintf(stderr, "simrun run: --trace: %v\n", err)
			return exitUsage
		}
		defer tf.Close()
		js := sim.NewJSONLinesSink(tf)
		opts.Sinks = append(opts.Sinks, js)
		flushers = append(flushers, js.Flush)
	}
	if a.verbose {
		tl := sim.NewTimelineSink(stdout)
		opts.Sinks = append(opts.Sinks, tl)
		flushers = append(flushers, tl.Flush)
	}
	run, err := scenariofile.RunFile(f, opts)
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	for _, flush := range flushers {
		if err := flush(); err != nil {
			fmt.Fprintf(stderr, "simrun run: writing the trace: %v\n", err)
		}
	}
	return finishRunFile(a, run, stdout, stderr)
}

// parseRunFileArgs parses "run FILE [flags]" (flags may come before or after the file).
func parseRunFileArgs(args []string, stderr io.Writer) (*runFileArgs, error) {
	a := &runFileArgs{}
	fs := flag.NewFlagSet("simrun run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simrun run FILE [--json] [-v] [--trace FILE] [--sabotage MODE] [--rewrite]")
		fs.PrintDefaults()
	}
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object instead of the story")
	fs.BoolVar(&a.verbose, "v", false, "print the readable timeline of every event before the story")
	fs.StringVar(&a.tracePath, "trace", "", "write every event as JSON lines to `FILE`")
	fs.StringVar(&a.sabotage, "sabotage", "", "sabotage mode: an engine mode or RESET_PAST_LOG_START (see simrun list)")
	fs.BoolVar(&a.rewrite, "rewrite", false, "write the run's story into the file's ---- section")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(files) != 1:
		return nil, fmt.Errorf("expected exactly one scenario FILE, got %d (%s)", len(files), strings.Join(files, " "))
	case a.verbose && a.jsonOut:
		return nil, errors.New("-v and --json cannot be used together (both write to standard output)")
	case a.rewrite && a.sabotage != "":
		return nil, errors.New("--rewrite and --sabotage cannot be used together (a sabotaged story is not the file's story)")
	}
	if _, _, err := scenarios.ParseSabotage(a.sabotage); err != nil {
		return nil, fmt.Errorf("--sabotage: %v", err)
	}
	a.path = files[0]
	return a, nil
}

// finishRunFile rewrites the story if asked, prints the report and returns the exit code.
func finishRunFile(a *runFileArgs, run *scenariofile.FileRun, stdout, stderr io.Writer) int {
	if a.rewrite {
		if err := os.WriteFile(a.path, run.Rewrite(), 0o644); err != nil {
			fmt.Fprintf(stderr, "simrun run: --rewrite: %v\n", err)
			return exitUsage
		}
		run.StoryDiff = ""
	}
	if a.jsonOut {
		writeRunFileJSON(stdout, a, run)
	} else {
		printRunFile(stdout, a, run)
	}
	if !run.OK() {
		return exitViolation
	}
	return exitPass
}

// printRunFile prints the story, the unmet expectations, the story difference and the verdict.
func printRunFile(w io.Writer, a *runFileArgs, run *scenariofile.FileRun) {
	set := run.File.Settings
	fmt.Fprintf(w, "simrun run %s: scenario %s, seed %d, sabotage %s\n", a.path, run.File.Scenario.Name, set.Seed, noneIfEmpty(a.sabotage))
	for _, l := range run.Story {
		fmt.Fprintln(w, l)
	}
	if n := len(run.Failures); n > 0 {
		fmt.Fprintf(w, "expectations not met (%d):\n", n)
		for _, f := range run.Failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	if run.StoryDiff != "" {
		fmt.Fprintf(w, "%s\n  (simrun run %s --rewrite records the new story: read the diff before committing it)\n", run.StoryDiff, a.path)
	}
	verdict := "PASS"
	if run.Result.Verdict != "pass" {
		verdict = "VIOLATION (" + strings.Join(criteria(run.Result.Violations), ", ") + ")"
	}
	status := "as expected"
	if !run.OK() {
		status = "NOT as expected"
	}
	fmt.Fprintf(w, "verdict: %s, %s\n", verdict, status)
	fmt.Fprintf(w, "hash: %s\n", run.Hash)
}

// runFileReport is the --json output of simrun run.
type runFileReport struct {
	File       string          `json:"file"`
	Scenario   string          `json:"scenario"`
	Seed       uint64          `json:"seed"`
	Sabotage   string          `json:"sabotage"`
	Verdict    string          `json:"verdict"`
	OK         bool            `json:"ok"`
	Violations []sim.Violation `json:"violations"`
	Failures   []string        `json:"failures"`
	StoryDiff  string          `json:"story_diff,omitempty"`
	Story      []string        `json:"story"`
	Stats      sim.Stats       `json:"stats"`
	Hash       string          `json:"hash"`
}

func writeRunFileJSON(w io.Writer, a *runFileArgs, run *scenariofile.FileRun) {
	rep := runFileReport{File: a.path, Scenario: run.File.Scenario.Name, Seed: run.File.Settings.Seed,
		Sabotage: noneIfEmpty(a.sabotage), Verdict: run.Result.Verdict, OK: run.OK(),
		Violations: run.Result.Violations, Failures: run.Failures, StoryDiff: run.StoryDiff,
		Story: run.Story, Stats: run.Result.Stats, Hash: run.Hash}
	if rep.Violations == nil {
		rep.Violations = []sim.Violation{}
	}
	if rep.Failures == nil {
		rep.Failures = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// runFileUsage is the help text of `simrun run`.
const runFileUsage = `usage: simrun run FILE [-v | --json] [--trace FILE] [--svg FILE] [--html FILE] [--sabotage MODE] [--rewrite]
                    [--substrate model|kfake|kafka [--brokers host:port,...]] [--compare]

Runs a scenario file (scenarios/scenariofile/FORMAT.md), prints its story and verdict, and checks
its expectations and recorded story. --svg and --html draw the run as a space-time diagram;
--rewrite records the run's story in FILE after its ---- line.

Exit status: 0 the run passed (or violated as the file expects) and met every expectation, 1 a
mismatch or a violation, 2 bad usage or a bad file (the message names the line), 3 the live
substrate failed (no verdict), 130 interrupted.`

// runFileArgs are the flags of simrun run.
type runFileArgs struct {
	path      string
	jsonOut   bool
	verbose   bool
	tracePath string
	diagram   diagramFlags
	sabotage  string
	rewrite   bool
	liveFlags liveFlags
	live      scenarios.Live
}

// runFileMain is the entry point of "simrun run".
func runFileMain(args []string, stdout, stderr io.Writer) int {
	const name = "simrun run"
	a, code, ok := parseRunFileArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	f, err := scenariofile.LoadFile(a.path)
	if err != nil {
		return usageError(stderr, name, "%v", err)
	}
	opts := scenariofile.FileRunOptions{Sabotage: a.sabotage}
	var flushers []func() error
	if a.tracePath != "" {
		tf, err := os.Create(a.tracePath)
		if err != nil {
			return usageError(stderr, name, "--trace: %v", err)
		}
		defer tf.Close()
		js := trace.NewJSONLinesSink(tf)
		opts.Sinks = append(opts.Sinks, js)
		flushers = append(flushers, js.Flush)
	}
	title := fmt.Sprintf("scenario file %s, seed %d, sabotage %s", a.path, f.Settings.Seed, noneIfEmpty(a.sabotage))
	pic, err := a.diagram.start(f.Scenario, title)
	if err != nil {
		return usageError(stderr, name, "%v", err)
	}
	if pic != nil {
		opts.Sinks = append(opts.Sinks, pic.sink)
	}
	if a.verbose {
		tl := trace.NewTimelineSink(stdout, f.Scenario)
		opts.Sinks = append(opts.Sinks, tl)
		flushers = append(flushers, tl.Flush)
	}
	lr, err := a.live.StartLive(f.Settings.Seed)
	if err != nil {
		pic.close()
		return liveExit(stderr, name, err)
	}
	if lr != nil && !a.jsonOut {
		fmt.Fprintln(stdout, a.live.Describe(lr.Prefix()))
	}
	var live sim.RunOptions
	lr.Use(&live)
	opts.Substrate, opts.Sinks = live.Substrate, append(opts.Sinks, live.Sinks...)
	stop := cleanupOnSignal(lr, stderr)
	run, err, liveErr := runFileLive(lr, f, opts)
	if cerr := lr.Cleanup(); cerr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, cerr)
	}
	stop() // after Judge's second live run and the cleanup, which a Ctrl-C must not cut short
	if err != nil {
		pic.close()
		return usageError(stderr, name, "%v", err)
	}
	if liveErr != nil {
		pic.close()
		return liveExit(stderr, name, liveErr)
	}
	for _, flush := range flushers {
		if err := flush(); err != nil {
			return usageError(stderr, name, "writing the trace: %v", err)
		}
	}
	if err := pic.finish(run.Result); err != nil {
		return usageError(stderr, name, "%v", err)
	}
	return finishRunFile(a, run, stdout, stderr)
}

// runFileLive runs f on lr (nil: the model) and judges a compared run, which adds a divergence to
// the run's failures even where the file expects a violation. err is the file's (a line that
// cannot run); liveErr says the live substrate failed or the run was interrupted under it.
func runFileLive(lr *scenarios.LiveRun, f *scenariofile.File, opts scenariofile.FileRunOptions) (run *scenariofile.FileRun, err, liveErr error) {
	defer interruptedPanic(lr, &liveErr)
	if run, err = scenariofile.RunFile(f, opts); err != nil {
		return nil, err, nil
	}
	found, liveErr := lr.Judge(f.Scenario, f.Settings.Sim(), run.Options, run.Result)
	if found {
		run.Failures = append(run.Failures, run.Result.Violations[len(run.Result.Violations)-1].String())
	}
	return run, nil, liveErr
}

// parseRunFileArgs parses "run FILE [flags]" (flags may come before or after the file). When ok
// is false the command is over with exit code code.
func parseRunFileArgs(args []string, stdout, stderr io.Writer) (a *runFileArgs, code int, ok bool) {
	const name = "simrun run"
	a = &runFileArgs{}
	fs := newFlagSet(name, runFileUsage)
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object instead of the story")
	fs.BoolVar(&a.verbose, "v", false, "print the readable timeline of every event before the story")
	fs.StringVar(&a.tracePath, "trace", "", "write every event as JSON lines to `FILE`")
	a.diagram.register(fs.FlagSet)
	fs.StringVar(&a.sabotage, "sabotage", "", "sabotage mode: an engine, host or session-tier mode (see simrun list)")
	fs.BoolVar(&a.rewrite, "rewrite", false, "write the run's story into the file's ---- section")
	a.liveFlags.register(fs.FlagSet)
	files, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return nil, code, false
	}
	switch {
	case len(files) != 1:
		return nil, usageError(stderr, name, "expected exactly one scenario FILE, got %d (%s)", len(files), strings.Join(files, " ")), false
	case a.verbose && a.jsonOut:
		return nil, usageError(stderr, name, "-v and --json cannot be used together (both write to standard output)"), false
	case a.rewrite && a.sabotage != "":
		return nil, usageError(stderr, name, "--rewrite and --sabotage cannot be used together (a sabotaged story is not the file's story)"), false
	}
	if _, _, err := spec.ParseSabotage(a.sabotage); err != nil {
		return nil, usageError(stderr, name, "--sabotage: %v", err), false
	}
	var err error
	if a.live, err = a.liveFlags.live(); err != nil {
		return nil, usageError(stderr, name, "%v", err), false
	}
	if a.rewrite && !a.live.IsModel() {
		return nil, usageError(stderr, name, "--rewrite records the model's story: --substrate cannot be used with it"), false
	}
	a.path = files[0]
	if err := checkOutputs([]fileArg{{"the scenario file", a.path}}, []fileArg{{"--trace", a.tracePath},
		{"--svg", a.diagram.svgPath}, {"--html", a.diagram.htmlPath}}); err != nil {
		return nil, usageError(stderr, name, "%v", err), false
	}
	return a, exitPass, true
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
		fmt.Fprintf(w, "%s\n  (simrun run %s --rewrite records the new story: read the diff before committing it)\n", run.StoryDiff, scenarios.ShellQuote(a.path))
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
	if !run.OK() && !a.live.IsModel() {
		// The file is the run, but not the substrate it ran on: a finding on kfake or brokers
		// (a divergence above all) is repeated there, compared as it was.
		fmt.Fprintf(w, "   re-run: %s run %s", userCommand, scenarios.ShellQuote(a.path))
		if a.sabotage != "" {
			fmt.Fprintf(w, " --sabotage %s", a.sabotage)
		}
		fmt.Fprintf(w, "%s\n", a.live.Flags())
	}
}

// runFileReport is the --json output of simrun run.
type runFileReport struct {
	File       string           `json:"file"`
	Scenario   string           `json:"scenario"`
	Seed       uint64           `json:"seed"`
	Sabotage   string           `json:"sabotage"`
	Verdict    string           `json:"verdict"`
	OK         bool             `json:"ok"`
	Violations []spec.Violation `json:"violations"`
	Failures   []string         `json:"failures"`
	StoryDiff  string           `json:"story_diff,omitempty"`
	Story      []string         `json:"story"`
	Stats      spec.Stats       `json:"stats"`
	Hash       string           `json:"hash"`
}

func writeRunFileJSON(w io.Writer, a *runFileArgs, run *scenariofile.FileRun) {
	rep := runFileReport{File: a.path, Scenario: run.File.Scenario.Name, Seed: run.File.Settings.Seed,
		Sabotage: noneIfEmpty(a.sabotage), Verdict: run.Result.Verdict, OK: run.OK(),
		Violations: run.Result.Violations, Failures: run.Failures, StoryDiff: run.StoryDiff,
		Story: run.Story, Stats: run.Result.Stats, Hash: run.Hash}
	if rep.Violations == nil {
		rep.Violations = []spec.Violation{}
	}
	if rep.Failures == nil {
		rep.Failures = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}

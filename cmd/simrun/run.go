package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// repoCommand starts the reproduction commands written into documents (JSON reports, replay
// files, scenario files): run from the repository root, they work for anyone with the source.
const repoCommand = "go run ./cmd/simrun"

// userCommand starts the reproduction commands printed for the person at the terminal: the
// command they ran.
var userCommand = commandFor(os.Args[0])

// commandFor returns the command that runs simrun as arg0 (os.Args[0]) did: arg0 itself for a
// built binary, repoCommand for a binary that `go run` (or `go test`) built in a go-build
// directory it deletes on exit.
func commandFor(arg0 string) string {
	if arg0 == "" || slices.ContainsFunc(strings.Split(filepath.ToSlash(arg0), "/"), func(elem string) bool {
		return strings.HasPrefix(elem, "go-build")
	}) {
		return repoCommand
	}
	return scenarios.ShellQuote(arg0)
}

// forUser rewrites a document's reproduction command (starting with repoCommand) to start with
// the command the user ran.
func forUser(command string) string {
	if rest, ok := strings.CutPrefix(command, repoCommand); ok {
		return userCommand + rest
	}
	return command
}

// cli is where a command writes and where it saves automatic replay files; tests give their own.
type cli struct {
	stdout, stderr io.Writer
	dir            string // directory for automatic replay files ("" = current directory)
}

// runArgs are the default run's flags (simrun --seed N ...), with defaults.
type runArgs struct {
	spec             scenarios.Spec
	seedGiven        bool
	tracePath        string
	savePath         string
	verbose          bool
	jsonOut          bool
	checkDeterminism bool
	diagram          diagramFlags // --svg, --html (diagram.go)
	liveFlags        liveFlags    // --substrate, --compare and the brokers' (live.go)
	live             scenarios.Live
}

// runMain is the default command: one reproducible run of a scenario (simrun --seed N ...).
func runMain(args []string, stdout, stderr io.Writer) int {
	return cli{stdout: stdout, stderr: stderr}.run(args)
}

func (c cli) run(args []string) int {
	a, code, ok := parseRunArgs(args, c.stdout, c.stderr)
	if !ok {
		return code
	}
	prep, err := a.spec.Prepare()
	if err != nil {
		return usageError(c.stderr, "simrun", "%v", err)
	}
	var save *os.File
	if a.savePath != "" {
		// Created before the run, so a path that cannot be written fails before any work.
		if save, err = os.Create(a.savePath); err != nil {
			return usageError(c.stderr, "simrun", "--save: %v", err)
		}
		defer save.Close()
	}
	out := c.execute(prep, choose.NewRandom(a.spec.Seed), a.outputs())
	if out.liveErr != nil {
		return liveExit(c.stderr, "simrun", out.liveErr)
	}
	if out.err != nil {
		return usageError(c.stderr, "simrun", "%v", out.err)
	}
	if a.checkDeterminism {
		rep := checkDeterminism(prep)
		out.determinism = &rep
	}
	return c.finish(prep, out, a, save)
}

// runUsage is the help text of the default run.
const runUsage = `usage: simrun [--seed N] [--scenario NAME] [--sabotage MODE] [--steps N] [--processes N]
              [-v | --json] [--trace FILE] [--svg FILE] [--html FILE] [--save FILE] [--check-determinism]
              [--substrate model|kfake|kafka [--brokers host:port,...]] [--compare]

Runs one reproducible simulation: its settings, what it exercised, each violation, the verdict and
the trace hash. On a violation it saves the run's replay file and shrinks it to a minimal
reproduction. 'simrun help' lists the subcommands.

Exit status: 0 pass, 1 a violation (or a run that is not deterministic), 2 bad usage or input, 3
the live substrate failed (no verdict), 130 interrupted.`

// seedFlag declares --seed, an unsigned 64-bit integer stored in *seed, with *given set when the
// flag is given; a bad value's error says what a seed is.
func seedFlag(fs *flag.FlagSet, usage string, seed *uint64, given *bool) {
	fs.Func("seed", usage, func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want an unsigned 64-bit integer, got %q", v)
		}
		*seed, *given = n, true
		return nil
	})
}

// runFlags declares the default run's flags.
func runFlags() (*flagSet, *runArgs) {
	a := &runArgs{}
	fs := newFlagSet("simrun", runUsage)
	seedFlag(fs.FlagSet, "run seed `N`, an unsigned 64-bit integer (random and printed if omitted)", &a.spec.Seed, &a.seedGiven)
	fs.StringVar(&a.spec.Scenario, "scenario", scenarios.RandomName, "scenario name (see simrun list)")
	fs.StringVar(&a.spec.Sabotage, "sabotage", "", "sabotage mode: an engine, host or session-tier mode (see simrun list)")
	fs.IntVar(&a.spec.Steps, "steps", 0, fmt.Sprintf("safety-phase action budget, 1-%d (default: 250-500, from the seed)", spec.MaxSteps))
	fs.IntVar(&a.spec.Processes, "processes", 0, fmt.Sprintf("generate a topology of N processes, 2-%d (random scenario)", spec.MaxProcesses))
	fs.StringVar(&a.tracePath, "trace", "", "write every event as JSON lines to `FILE`")
	fs.StringVar(&a.savePath, "save", "", "write the replay file to `FILE` (automatic on a violation)")
	fs.BoolVar(&a.verbose, "v", false, "print the readable timeline of every event")
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object instead of the human report")
	fs.BoolVar(&a.checkDeterminism, "check-determinism", false, "run twice and name the first differing step")
	a.diagram.register(fs.FlagSet)
	a.liveFlags.register(fs.FlagSet)
	return fs, a
}

// parseRunArgs parses and checks the default run's flags; every error names the flag. When ok is
// false the command is over with exit code code.
func parseRunArgs(args []string, stdout, stderr io.Writer) (a *runArgs, code int, ok bool) {
	fs, a := runFlags()
	rest, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return nil, code, false
	}
	if err := a.check(fs, rest); err != nil {
		return nil, usageError(stderr, "simrun", "%v", err), false
	}
	if !a.seedGiven {
		a.spec.Seed = rand.Uint64() // the one place a seed is not given: printed with the result
	}
	return a, exitPass, true
}

// check checks the parsed flags.
func (a *runArgs) check(fs *flagSet, rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (the default run takes flags only; subcommands: %s)", rest[0], strings.Join(commandNames(), ", "))
	}
	if a.verbose && a.jsonOut {
		return errors.New("-v and --json cannot be used together (both write to standard output)")
	}
	if err := checkSize(fs, &a.spec); err != nil {
		return err
	}
	if _, _, err := spec.ParseSabotage(a.spec.Sabotage); err != nil {
		return fmt.Errorf("--sabotage: %v", err)
	}
	if _, ok := scenarios.Lookup(a.spec.Scenario); !ok {
		return fmt.Errorf("--scenario: unknown scenario %q (known: %s)", a.spec.Scenario, strings.Join(scenarios.Names(), ", "))
	}
	var err error
	if a.live, err = a.liveFlags.live(); err != nil {
		return err
	}
	if a.checkDeterminism && !a.live.IsModel() {
		return errors.New("--check-determinism is for the model: a live substrate assigns other topic IDs on every run")
	}
	return checkOutputs(nil, a.explicitOutputs())
}

// checkSize checks --steps and --processes against their limits (given: the flags given), the
// same for every command that takes them.
func checkSize(fs *flagSet, runSpec *scenarios.Spec) error {
	given := fs.given()
	if given["steps"] && (runSpec.Steps < 1 || runSpec.Steps > spec.MaxSteps) {
		return fmt.Errorf("--steps must be 1-%d, got %d", spec.MaxSteps, runSpec.Steps)
	}
	if given["processes"] && (runSpec.Processes < 2 || runSpec.Processes > spec.MaxProcesses) {
		return fmt.Errorf("--processes must be 2-%d (the documented maximum), got %d", spec.MaxProcesses, runSpec.Processes)
	}
	return nil
}

// outputs turns the run's output flags into the sinks' configuration.
func (a *runArgs) outputs() outputs {
	return outputs{tracePath: a.tracePath, verbose: a.verbose, jsonOut: a.jsonOut, diagram: a.diagram, live: a.live}
}

// outputs say where a run's events go besides the hash, and which Kafka the run goes to.
type outputs struct {
	tracePath string
	verbose   bool
	jsonOut   bool
	diagram   diagramFlags
	live      scenarios.Live
}

// outcome is a finished run and everything the report needs.
type outcome struct {
	res         *spec.Result
	hash        string
	events      int
	determinism *trace.DeterminismReport
	replayErr   error // a replay that diverged from its recording
	err         error // an output problem (the trace file could not be written)
	liveErr     error // the live substrate failed, or the run was interrupted: no verdict
	live        scenarios.Live
}

// execute runs the prepared scenario with ch, sending events to the hash and to the sinks the
// outputs ask for. The human header (settings) is printed first so a person sees what this seed
// does before the first step.
func (c cli) execute(prep *scenarios.Prepared, ch choose.Chooser, o outputs) outcome {
	hash := trace.NewHashSink()
	opts := prep.Options
	opts.Sinks = []trace.Sink{hash}
	var flushers []func() error
	if o.tracePath != "" {
		f, err := os.Create(o.tracePath)
		if err != nil {
			return outcome{err: fmt.Errorf("--trace: %w", err)}
		}
		defer f.Close()
		js := trace.NewJSONLinesSink(f)
		opts.Sinks = append(opts.Sinks, js)
		flushers = append(flushers, js.Flush)
	}
	title := fmt.Sprintf("scenario %s, seed %d, sabotage %s", prep.Scenario.Name, prep.Spec.Seed, noneIfEmpty(prep.Spec.Sabotage))
	pic, err := o.diagram.start(prep.Scenario, title) // --svg, --html (diagram.go)
	if err != nil {
		return outcome{err: err}
	}
	if pic != nil {
		opts.Sinks = append(opts.Sinks, pic.sink)
	}
	lr, err := o.live.StartLive(prep.Spec.Seed)
	if err != nil {
		pic.close()
		return outcome{liveErr: err}
	}
	restricted := o.live.Restrict(&prep.Settings)
	if !o.jsonOut {
		printHeader(c.stdout, prep)
		if lr != nil {
			fmt.Fprintln(c.stdout, o.live.Describe(lr.Prefix()))
		}
		if restricted != "" {
			fmt.Fprintln(c.stdout, restricted)
		}
	}
	if o.verbose {
		tl := trace.NewTimelineSink(c.stdout, prep.Scenario)
		opts.Sinks = append(opts.Sinks, tl)
		flushers = append(flushers, tl.Flush)
	}
	lr.Use(&opts)
	stop := cleanupOnSignal(lr, c.stderr)
	res, liveErr := runLive(lr, prep, ch, opts)
	if err := lr.Cleanup(); err != nil {
		fmt.Fprintf(c.stderr, "simrun: %v\n", err)
	}
	stop()
	if liveErr != nil {
		pic.close()
		return outcome{liveErr: liveErr}
	}
	out := outcome{res: res, hash: hash.Sum(), events: hash.Events(), live: o.live}
	for _, flush := range flushers {
		if err := flush(); err != nil && out.err == nil {
			out.err = fmt.Errorf("writing the trace: %w", err)
		}
	}
	if err := pic.finish(res); err != nil && out.err == nil {
		out.err = err
	}
	return out
}

// runLive runs the prepared scenario on lr (nil: the model) and judges a compared run (its second
// live run still under the Ctrl-C handler). A run interrupted under it (its clients closed by the
// handler, which may make the world panic) ends with scenarios.ErrInterrupted, not a verdict.
func runLive(lr *scenarios.LiveRun, prep *scenarios.Prepared, ch choose.Chooser, opts sim.RunOptions) (res *spec.Result, err error) {
	defer interruptedPanic(lr, &err)
	res = sim.Run(prep.Scenario, prep.Settings, ch, opts)
	_, err = lr.Judge(prep.Scenario, prep.Settings, opts, res)
	return res, err
}

// checkDeterminism runs the prepared scenario twice more with fresh choosers and compares.
func checkDeterminism(prep *scenarios.Prepared) trace.DeterminismReport {
	return trace.CheckDeterminism(func(sink trace.Sink) {
		opts := prep.Options
		opts.Sinks = []trace.Sink{sink}
		sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(prep.Spec.Seed), opts)
	})
}

// finish saves the replay file when asked (into save, created before the run) or on a
// violation, prints the report and returns the exit code. On a violation (with the human report
// and a saved replay) it then shrinks the run to a minimal reproduction beside the replay file.
// A replay file asked for that cannot be written is a usage error (exit 2); an automatic one
// that cannot be written is reported and leaves the verdict's exit code.
func (c cli) finish(prep *scenarios.Prepared, out outcome, a *runArgs, save *os.File) int {
	savePath := a.savePath
	var saveErr error
	switch {
	case save != nil:
		saveErr = writeReplay(save, replayFile(prep.Spec, out))
	case out.res.Verdict != "pass":
		savePath = filepath.Join(c.dir, autoReplayName(prep.Spec))
		saveErr = checkOutputs(nil, append(a.explicitOutputs(), fileArg{"the automatic replay file", savePath},
			fileArg{"the shrunk replay file", shrunkPaths(savePath).replay}, fileArg{"the shrunk scenario file", shrunkPaths(savePath).scenario}))
		if saveErr == nil {
			saveErr = replay.Save(savePath, replayFile(prep.Spec, out))
		}
	}
	if saveErr != nil {
		savePath = ""
	}
	if a.jsonOut {
		writeJSON(c.stdout, prep, out, savePath)
	} else {
		printReport(c.stdout, prep, out, savePath)
	}
	if saveErr != nil {
		fmt.Fprintf(c.stderr, "simrun: %v\n", saveErr)
		if save != nil {
			return exitUsage
		}
	}
	if out.res.Verdict != "pass" && !a.jsonOut && savePath != "" && out.live.IsModel() {
		c.shrinkAfterViolation(prep.Spec, savePath)
	}
	if out.determinism != nil && !(out.determinism.Identical && out.determinism.HashesSame) {
		return exitViolation
	}
	if out.res.Verdict != "pass" {
		return exitViolation
	}
	return exitPass
}

// explicitOutputs are the files the flags name.
func (a *runArgs) explicitOutputs() []fileArg {
	return []fileArg{{"--trace", a.tracePath}, {"--svg", a.diagram.svgPath}, {"--html", a.diagram.htmlPath}, {"--save", a.savePath}}
}

// writeReplay writes r into f and closes it.
func writeReplay(f *os.File, r *replay.File) error {
	err := r.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}

// autoReplayName is the file a violating run saves its replay to: scenario, seed and sabotage.
func autoReplayName(s scenarios.Spec) string {
	name := fmt.Sprintf("simrun-%s-%d", s.Scenario, s.Seed)
	if s.Sabotage != "" && s.Sabotage != "NONE" {
		name += "-" + s.Sabotage
	}
	return name + ".replay"
}

// replayFile records the run with its violations as comments for a person reading the file.
func replayFile(s scenarios.Spec, out outcome) *replay.File {
	r := s.ReplayOf(out.res, out.hash)
	for _, v := range out.res.Violations {
		r.Notes = append(r.Notes, "violation: "+v.String())
	}
	r.Notes = append(r.Notes, reproduceNotes(s, out.live)...)
	return r
}

// reproduceNotes end a replay file: the command that repeats the run, with the flags that sent
// it to its substrate (so a finding on kfake or brokers is reproduced there, compared as it was),
// and for a live run what replaying it checks.
func reproduceNotes(s scenarios.Spec, live scenarios.Live) []string {
	notes := []string{"reproduce: " + scenarios.RerunCommand(s) + live.Flags()}
	if !live.IsModel() {
		notes = append(notes, "ran on "+live.Describe("")+": replay it with the same flags (the topic IDs, and so the hash, are the live substrate's)")
	}
	return notes
}

// jsonReport is the --json output: one object per run.
type jsonReport struct {
	Seed          uint64           `json:"seed"`
	Scenario      string           `json:"scenario"`
	Sabotage      string           `json:"sabotage"`
	Verdict       string           `json:"verdict"`
	Violations    []spec.Violation `json:"violations"`
	Stats         any              `json:"stats"`
	Steps         int              `json:"steps"`
	Events        int              `json:"events"`
	Hash          string           `json:"hash"`
	ReplayFile    string           `json:"replay_file,omitempty"`
	ReplayCommand string           `json:"replay_command,omitempty"`
	Deterministic *bool            `json:"deterministic,omitempty"`
	Determinism   string           `json:"determinism,omitempty"`
	ReplayError   string           `json:"replay_error,omitempty"`
	Substrate     string           `json:"substrate,omitempty"` // the live substrate, when not the model
	Compared      bool             `json:"compared,omitempty"`  // compared with the model (a divergence is a MODEL_DIVERGENCE violation)
}

func writeJSON(w io.Writer, prep *scenarios.Prepared, out outcome, savePath string) {
	rep := jsonReport{Seed: prep.Spec.Seed, Scenario: prep.Scenario.Name, Sabotage: noneIfEmpty(prep.Spec.Sabotage),
		Verdict: out.res.Verdict, Violations: out.res.Violations, Stats: out.res.Stats, Steps: out.res.Steps,
		Events: out.events, Hash: out.hash, ReplayFile: savePath}
	if rep.Violations == nil {
		rep.Violations = []spec.Violation{}
	}
	if savePath != "" {
		rep.ReplayCommand = repoCommand + " replay " + scenarios.ShellQuote(savePath) + out.live.Flags()
	}
	if !out.live.IsModel() {
		rep.Substrate = out.live.Substrate
		rep.Compared = out.live.Compare
	}
	if d := out.determinism; d != nil {
		ok := d.Identical && d.HashesSame
		rep.Deterministic, rep.Determinism = &ok, d.String()
	}
	if out.replayErr != nil {
		rep.ReplayError = out.replayErr.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}

func noneIfEmpty(s string) string {
	if s == "" {
		return "NONE"
	}
	return s
}

// printHeader prints what the run is before its first step: scenario, seed, sabotage, the
// topology's size (and, for the random scenario, its features) and every setting, seed first.
func printHeader(w io.Writer, prep *scenarios.Prepared) {
	s := prep.Spec
	fmt.Fprintf(w, "simrun: scenario %s, seed %d, sabotage %s\n", prep.Scenario.Name, s.Seed, noneIfEmpty(s.Sabotage))
	channels := 0
	for _, t := range prep.Scenario.Topics {
		channels += t.Partitions
	}
	fmt.Fprintf(w, "topology: %d processes, %d topics, %d channels", len(prep.Scenario.Processes), len(prep.Scenario.Topics), channels)
	if prep.Scenario.Name == scenarios.RandomName {
		if topo, err := scenarios.RandomTopology(s.Seed, scenarios.RandomOptions{Processes: s.Processes}); err == nil {
			fmt.Fprintf(w, "; features %s", scenarios.FeatureNames(topo.Features()))
		}
	}
	fmt.Fprintln(w)
	if n := len(prep.Scenario.Script); n > 0 {
		fmt.Fprintf(w, "script: the safety phase is the scenario's %d scripted actions, so safety_steps and the action weights\n", n)
		fmt.Fprintf(w, "  below do not apply to it; the seed gives the topic IDs, the actions' durations and what follows the script")
		if slices.Contains(scenarios.TargetedNames(), prep.Scenario.Name) {
			fmt.Fprintf(w, ";\n  'simrun run scenarios/testdata/%s.txt' also checks the file's expectations", prep.Scenario.Name)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "settings:\n%s", indent(prep.Settings.Describe(prep.Scenario.Processes), "  "))
}

// printReport prints what the run exercised, each violation, the verdict, the hash and, on a
// violation, where the replay was saved and the commands that reproduce it.
func printReport(w io.Writer, prep *scenarios.Prepared, out outcome, savePath string) {
	fmt.Fprintf(w, "exercised:\n%s", indent(strings.Join(wrapFields(statsFields("", out.res.Stats), 96), "\n")+"\n", "  "))
	if n := len(out.res.Violations); n > 0 {
		fmt.Fprintf(w, "violations (%d):\n", n)
		for _, v := range out.res.Violations {
			fmt.Fprintf(w, "  %s\n", v)
		}
	}
	fmt.Fprint(w, checkedLines(prep, out))
	verdict := "PASS"
	if out.res.Verdict != "pass" {
		verdict = "VIOLATION (" + strings.Join(criteria(out.res.Violations), ", ") + ")"
	}
	fmt.Fprintf(w, "verdict: %s\n", verdict)
	fmt.Fprintf(w, "steps: %d, events: %d\n", out.res.Steps, out.events)
	fmt.Fprintf(w, "hash: %s\n", out.hash)
	if out.determinism != nil {
		fmt.Fprintf(w, "determinism: %s\n", out.determinism)
	}
	if savePath != "" {
		fmt.Fprintf(w, "replay saved to %s\n", savePath)
	}
	if out.res.Verdict != "pass" {
		if savePath != "" {
			fmt.Fprintf(w, "reproduce: %s replay %s%s\n", userCommand, scenarios.ShellQuote(savePath), out.live.Flags())
		}
		fmt.Fprintf(w, "   re-run: %s%s\n", forUser(scenarios.RerunCommand(prep.Spec)), out.live.Flags())
	}
}

// checkedLines says which criteria judged the run and when: the oracle's step criteria at every
// step, the session criteria when the scenario has session clients, LIVENESS after the final
// healed phase when it ran, RESTART_INVISIBILITY when the seed drew a restart check, and
// MODEL_DIVERGENCE when a live substrate was compared with the model.
func checkedLines(prep *scenarios.Prepared, out outcome) string {
	var step, session []string
	for _, c := range scenariofile.Criteria() {
		switch {
		case strings.HasPrefix(string(c), "SESSION_"):
			session = append(session, string(c))
		case c != spec.CritLiveness && c != spec.CritRestartInvisibility && c != scenarios.CritModelDivergence && c != scenarios.CritPanic:
			step = append(step, string(c))
		}
	}
	parts := []string{strings.Join(step, " ") + " at every step"}
	if prep.Scenario.Session != nil {
		parts = append(parts, strings.Join(session, " ")+" at every session operation")
	} else {
		parts = append(parts, "no session criteria (this seed has no session clients)")
	}
	if prep.Settings.LivenessStepsMax > 0 {
		parts = append(parts, "LIVENESS after the final healed phase")
	}
	if n := out.res.Stats.RestartChecks; n > 0 {
		parts = append(parts, fmt.Sprintf("RESTART_INVISIBILITY by %d rerun(s) with a clean restart", n))
	} else {
		parts = append(parts, "no RESTART_INVISIBILITY rerun (restart_check in the settings; it follows only a run that passed)")
	}
	if out.live.Compare {
		parts = append(parts, "MODEL_DIVERGENCE against the model, call for call")
	}
	return "checked (docs/PROTOCOL.md §6 says what each criterion means):\n  " + strings.Join(parts, ";\n  ") + "\n"
}

// criteria returns the distinct criteria of the violations, in first-seen order.
func criteria(vs []spec.Violation) []string {
	var out []string
	for _, v := range vs {
		c := string(v.Criterion)
		if !contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func indent(text, prefix string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

// wrapFields joins "name=value" fields into lines of at most width characters.
func wrapFields(fields []string, width int) []string {
	var lines []string
	line := ""
	for _, f := range fields {
		if line != "" && len(line)+1+len(f) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += "  "
		}
		line += f
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// statsFields renders a stats value as "name=value" fields in declaration order: numbers and
// strings as they are (a fraction to one decimal), nested structs with a dotted prefix, maps with
// sorted keys as name[key]=value, slices by their length. Field names are the JSON names, so the human report
// and --json agree. It reads whatever spec.Stats holds, so new counters show up without a change
// here.
func statsFields(prefix string, v any) []string {
	return appendFields(nil, prefix, reflect.ValueOf(v))
}

func appendFields(out []string, prefix string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Invalid:
		return out
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return out
		}
		return appendFields(out, prefix, v.Elem())
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := jsonName(f)
			if name == "-" {
				continue
			}
			if prefix != "" {
				name = prefix + "." + name
			}
			out = appendFields(out, name, v.Field(i))
		}
		return out
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			out = appendFields(out, fmt.Sprintf("%s[%v]", prefix, k), v.MapIndex(k))
		}
		return out
	case reflect.Slice, reflect.Array:
		return append(out, fmt.Sprintf("%s.len=%d", prefix, v.Len()))
	case reflect.Float32, reflect.Float64:
		return append(out, fmt.Sprintf("%s=%.1f", prefix, v.Float())) // --json keeps every digit
	default:
		return append(out, fmt.Sprintf("%s=%v", prefix, v))
	}
}

// jsonName is a struct field's JSON name (its tag's name, or the field name).
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}

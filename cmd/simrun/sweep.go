package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// sweepUsage is the help text of `simrun sweep`.
const sweepUsage = `usage: simrun sweep --seeds A-B [-j N] [--scenario NAME] [--sabotage MODE] [--steps N] [--processes N] [--trace-digest] [--json]
                    [--shard i/n] [--result FILE] [--save-failures DIR] [--without CRITERIA]
                    [--substrate model|kfake|kafka [--brokers host:port,...]] [--compare]
       simrun sweep --catch-rates --seeds A-B [-j N] [--out DIR]
       simrun sweep --live-report --seeds A-B [-j N] [--out DIR]

Runs every seed of the inclusive range A-B (or the single seed N) on N worker goroutines (default:
all cores; --workers N is the same as -j N). Each seed is the run 'simrun --seed SEED' makes, so
its result does not depend on -j; results are reported in seed order. A progress bar is drawn on a
terminal only. The summary gives the runs, the violations by criterion, what the runs exercised
(totals of the run stats) and every failing seed with the command that replays it, shortest
first. Ctrl-C (or SIGTERM) stops cleanly and prints the partial summary marked "interrupted".

--shard i/n runs only shard i of n (counting from 1): the seeds s of the range with s mod n = i-1,
so shards are balanced and a seed's shard depends only on the seed and n. Without the flag the
shard is read from a batch runner's variables: JOB_COMPLETION_INDEX with SIMRUN_SHARD_TOTAL
(a Kubernetes Indexed Job), CI_NODE_INDEX/CI_NODE_TOTAL (GitLab), BUILDKITE_PARALLEL_JOB/
BUILDKITE_PARALLEL_JOB_COUNT, CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL, TEST_SHARD_INDEX/
TEST_TOTAL_SHARDS (Bazel); the resolved shard is printed on stderr. --result FILE writes the
shard's report as a result document that 'simrun merge' combines with the other shards' into the
report of the whole range (a retried shard overwrites its file). --save-failures DIR writes a
replay file of every failing seed into DIR (created if missing), for a CI job to attach.

--trace-digest hashes every run's trace (the hash 'simrun --seed N' prints) and reports one
digest of all of them in seed order ("trace_digest" in JSON): two builds that give it alike ran
every seed of the range alike, event for event. It does not depend on -j or on sharding. Tracing
makes the sweep slower. It is refused on a live substrate, whose topic IDs (and so trace hashes)
differ from run to run.

--without C1,C2,... runs every seed without judging those criteria, to measure what their checks
cost: without REFERENCE no reference node runs beside the engines, without RESTART_INVISIBILITY no
run is repeated with a restart (the two checks the simulator's first version did not have), and
any other criterion is only not reported. The summary names them ("without" in JSON): such a
sweep vouches for none of them, so it writes no --result; a failing seed's command replays it
with every criterion judged.

With --sabotage the summary also counts the eligible seeds (whose settings switch on a fault class
the mode needs) and how many of them were caught. A caught seed is a failing seed, so under
--sabotage exit status 1 is the expected outcome: it means the checkers caught the fault.

--substrate kfake runs every seed on an embedded kfake cluster of its own; --substrate kafka on
the brokers --brokers names, under a fresh topic prefix per seed (with --topic-prefix P: P
followed by the seed and a dash), deleting its topics after each.
--compare runs the model beside it call for call, then the same choices on the live substrate
alone, process by process: a seed on which the two disagree fails with MODEL_DIVERGENCE, and the
summary says how many seeds agreed. A result file (--result) says the substrate and whether it
was compared, and 'simrun merge' refuses to merge shards that differ in either.

--catch-rates sweeps the range once per sabotage mode (engine and host modes over the random
scenario, the session tiers' modes over the session scenario) and writes the catch-rate table to
DIR/catch-rates.md and DIR/catch-rates.json (see results/catch-rates.md). It is not sharded.

--live-report runs every targeted scenario file (scenarios/testdata/*.txt, from the repository
root) and the range of random and of session on kfake with --compare, and writes DIR/live.md and
DIR/live.json (see results/live.md). It is not sharded.

Exit status: 0 every seed passed, 1 some seed failed (a violation or a simulator panic), 2 bad
usage, 3 the live substrate failed (the sweep stops: not a seed's verdict; it prints the summary of
the seeds that ran, and exits 1 instead when one of them failed), 130 interrupted before any seed
failed (not a pass: not every seed ran).`

// sweepArgs are the flags of `simrun sweep`.
type sweepArgs struct {
	spec         scenarios.Spec
	seeds        string
	first, last  uint64
	workers      int
	jsonOut      bool
	traceDigest  bool
	catchRates   bool
	liveReport   bool
	outDir       string
	shardFlag    shardFlag
	shard        scenarios.Shard
	result       string
	saveFailures string
	liveFlags    liveFlags
	live         scenarios.Live
	withoutFlag  string           // --without, as given
	without      []spec.Criterion // --without, parsed
}

// sweepMain is `simrun sweep`: see sweepUsage.
func sweepMain(args []string, stdout, stderr io.Writer) int {
	// SIGTERM too: a sweep on real brokers stops handing out seeds, and the runs under way finish
	// and delete their topics, as on Ctrl-C.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A sweep's garbage is each run's worlds, dropped when the run ends; the live heap is one run
	// per worker and the report, so collecting less often costs little memory.
	collectLessOften()
	return sweepCommand(ctx, args, stdout, stderr, isTerminal(os.Stderr))
}

// sweepCommand runs a sweep under ctx; progress says whether to draw the progress bar on stderr.
func sweepCommand(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	a, code, ok := parseSweepArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	if a.workers == 0 {
		a.workers = runtime.GOMAXPROCS(0)
	}
	if a.catchRates {
		if v := shardEnvSet(os.Getenv); v != "" {
			fmt.Fprintf(stderr, "simrun sweep: --catch-rates is not sharded: ignoring %s\n", v)
		}
		return catchRatesCommand(ctx, a, stdout, stderr, progress)
	}
	if a.liveReport {
		if v := shardEnvSet(os.Getenv); v != "" {
			fmt.Fprintf(stderr, "simrun sweep: --live-report is not sharded: ignoring %s\n", v)
		}
		return liveReportCommand(ctx, a, stdout, stderr, progress)
	}
	var err error
	if a.shard, err = shardFromEnvironment(a.shardFlag, "simrun sweep", stderr); err != nil {
		return usageError(stderr, "simrun sweep", "%v", err)
	}
	if a.saveFailures != "" {
		if err := os.MkdirAll(a.saveFailures, 0o755); err != nil {
			return usageError(stderr, "simrun sweep", "--save-failures: %v", err)
		}
	}
	cfg := scenarios.SweepConfig{Spec: a.spec, First: a.first, Last: a.last, Workers: a.workers, TraceDigest: a.traceDigest,
		Shard: a.shard, Replays: a.saveFailures != "", Live: a.live, Without: a.without}
	var saveErr error
	saved := 0
	if a.saveFailures != "" {
		cfg.Visit = func(o scenarios.SeedOutcome) {
			err := saveFailure(a.saveFailures, o, a.live)
			if err != nil && saveErr == nil {
				saveErr = err
			}
			if err == nil && o.Replay != nil {
				saved++
			}
		}
	}
	var bar *progressBar
	if progress {
		bar = newProgressBar(stderr, a.shard.SeedCount(a.first, a.last), "")
		cfg.Progress = bar.update
	}
	start := time.Now()
	rep, err := scenarios.Sweep(ctx, cfg)
	bar.clear()
	if rep == nil {
		return liveExit(stderr, "simrun sweep", err)
	}
	if a.jsonOut {
		writeSweepJSON(stdout, rep)
	} else {
		printSweep(stdout, rep, fmt.Sprintf("on %d workers", a.workers), time.Since(start))
		if saved > 0 {
			fmt.Fprintf(stdout, "replay files of the %d failing seeds in %s (simrun replay FILE reproduces one)\n", saved, a.saveFailures)
		}
	}
	if a.result != "" {
		if err := writeResult(a.result, a.resultHeader(), rep, rep.TraceHashes()); err != nil {
			return usageError(stderr, "simrun sweep", "--result: %v", err)
		}
	}
	if err != nil {
		// A seed stopped the sweep (its live substrate failed, say): the seeds that ran are
		// reported above, and a finding among them outranks the failure.
		code := liveExit(stderr, "simrun sweep", err)
		if rep.Failed() > 0 {
			code = exitViolation
		}
		return code
	}
	if saveErr != nil {
		return usageError(stderr, "simrun sweep", "--save-failures: %v", saveErr)
	}
	return sweepExitCode(rep)
}

// sweepExitCode is a sweep's exit status: 1 when a seed failed, 130 when interrupted, else 0.
func sweepExitCode(rep *scenarios.SweepReport) int {
	switch {
	case rep.Failed() > 0:
		return exitViolation
	case rep.Interrupted:
		return exitInterrupted
	}
	return exitPass
}

// writeSweepJSON prints the report as --json does.
func writeSweepJSON(w io.Writer, rep *scenarios.SweepReport) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}

// resultHeader is the header of the sweep's --result document.
func (a *sweepArgs) resultHeader() resultHeader {
	runSpec := a.spec.Normalize()
	settings := map[string]string{"steps": "from the seed", "processes": "the scenario's", "trace_digest": fmt.Sprint(a.traceDigest)}
	if runSpec.Steps > 0 {
		settings["steps"] = fmt.Sprint(runSpec.Steps)
	}
	if runSpec.Processes > 0 {
		settings["processes"] = fmt.Sprint(runSpec.Processes)
	}
	if !a.live.IsModel() { // a model sweep's header stays as it was, so its shards merge with older ones
		settings["substrate"], settings["compare"] = a.live.Substrate, fmt.Sprint(a.live.Compare)
	}
	return newResultHeader(resultHeader{Kind: "sweep", Scenario: runSpec.Scenario, Sabotage: orNone(runSpec.Sabotage),
		Settings: settings, Seeds: fmt.Sprintf("%d-%d", a.first, a.last)}, a.shard)
}

// saveFailure writes a failing seed's replay file into dir, named as a failing run names it; its
// reproduce line carries live's flags, as a failing run's does.
func saveFailure(dir string, o scenarios.SeedOutcome, live scenarios.Live) error {
	if o.Replay == nil {
		return nil
	}
	r := *o.Replay
	for _, v := range o.Violations {
		r.Notes = append(r.Notes, "violation: "+v.String())
	}
	runSpec, err := scenarios.SpecOfReplay(&r)
	if err != nil {
		return err
	}
	r.Notes = append(r.Notes, reproduceNotes(runSpec, live)...)
	return replay.Save(filepath.Join(dir, autoReplayName(runSpec)), &r)
}

// parseSweepArgs parses and checks the sweep's flags; every error names the flag and the bad
// text. When ok is false the command is over with exit code code.
func parseSweepArgs(args []string, stdout, stderr io.Writer) (a *sweepArgs, code int, ok bool) {
	a = &sweepArgs{}
	fs := newFlagSet("simrun sweep", sweepUsage)
	fs.StringVar(&a.seeds, "seeds", "", "inclusive seed range `A-B`, or a single seed N (required)")
	fs.IntVar(&a.workers, "j", 0, "worker goroutines (default: all cores)")
	fs.IntVar(&a.workers, "workers", 0, "the same as -j")
	fs.Var(&a.shardFlag, "shard", "run shard `i/n` of the range (default: from a batch runner's variables, or none)")
	fs.StringVar(&a.result, "result", "", "write the report as a result document to `FILE`, for simrun merge")
	fs.StringVar(&a.saveFailures, "save-failures", "", "write a replay file of every failing seed into `DIR`")
	fs.StringVar(&a.spec.Scenario, "scenario", scenarios.RandomName, "scenario name (see simrun list)")
	fs.StringVar(&a.spec.Sabotage, "sabotage", "", "sabotage mode: an engine, host or session-tier mode (see simrun list)")
	fs.IntVar(&a.spec.Steps, "steps", 0, fmt.Sprintf("safety-phase action budget of every run, 1-%d (default: 250-500, from the seed)", spec.MaxSteps))
	fs.IntVar(&a.spec.Processes, "processes", 0, fmt.Sprintf("generate topologies of N processes, 2-%d (random scenario)", spec.MaxProcesses))
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object instead of the human summary")
	fs.BoolVar(&a.traceDigest, "trace-digest", false, "hash every run's trace and report a digest of them all in seed order")
	fs.StringVar(&a.withoutFlag, "without", "", "do not judge these comma-separated `CRITERIA` (to measure what their checks cost)")
	fs.BoolVar(&a.catchRates, "catch-rates", false, "sweep every sabotage mode and write the catch-rate table")
	fs.BoolVar(&a.liveReport, "live-report", false, "run the scenario files, random and session on kfake compared with the model, and write the live report")
	fs.StringVar(&a.outDir, "out", "results", "with --catch-rates or --live-report: the `DIR` for their .md and .json")
	a.liveFlags.register(fs.FlagSet)
	rest, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return nil, code, false
	}
	if err := a.check(fs, rest); err != nil {
		return nil, usageError(stderr, "simrun sweep", "%v", err), false
	}
	return a, exitPass, true
}

// maxWorkers bounds -j: each worker runs one world at a time.
const maxWorkers = 1024

// check checks the parsed flags.
func (a *sweepArgs) check(fs *flagSet, rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (flags: simrun sweep -h)", rest[0])
	}
	if a.seeds == "" {
		return errors.New("--seeds is required (an inclusive range A-B or a single seed N)")
	}
	var err error
	if a.first, a.last, err = parseSeedRange(a.seeds); err != nil {
		return fmt.Errorf("--seeds: %v", err)
	}
	set := fs.given()
	if err := checkWorkers(set, a.workers); err != nil {
		return err
	}
	if err := checkSize(fs, &a.spec); err != nil {
		return err
	}
	if a.catchRates && a.liveReport {
		return errors.New("--catch-rates and --live-report cannot be used together (each is a run of its own)")
	}
	if a.catchRates || a.liveReport {
		mode, why := "--catch-rates", "catch rates sweep every mode over its own scenario"
		others := []string{"sabotage", "json", "scenario", "steps", "processes", "trace-digest", "shard", "result", "save-failures", "without"}
		if a.liveReport {
			mode, why = "--live-report", "the live report runs its own scenarios on kfake, compared"
			others = append(others, "substrate", "brokers", "compare", "tls-ca", "tls-cert", "tls-key", "sasl-mechanism", "topic-prefix")
		}
		for _, name := range others {
			if set[name] {
				return fmt.Errorf("%s and --%s cannot be used together (%s)", mode, name, why)
			}
		}
		if fi, err := os.Stat(a.outDir); err == nil && !fi.IsDir() {
			return fmt.Errorf("--out %s is not a directory", a.outDir)
		}
	} else if set["out"] {
		return errors.New("--out needs --catch-rates or --live-report (a plain sweep writes no files)")
	}
	if _, _, err := spec.ParseSabotage(a.spec.Sabotage); err != nil {
		return fmt.Errorf("--sabotage: %v", err)
	}
	if _, ok := scenarios.Lookup(a.spec.Scenario); !ok {
		return fmt.Errorf("--scenario: unknown scenario %q (known: %s)", a.spec.Scenario, strings.Join(scenarios.Names(), ", "))
	}
	if fi, err := os.Stat(a.saveFailures); a.saveFailures != "" && err == nil && !fi.IsDir() {
		return fmt.Errorf("--save-failures %s is not a directory", a.saveFailures)
	}
	if a.live, err = a.liveFlags.live(); err != nil {
		return err
	}
	if a.catchRates && !a.live.IsModel() {
		return errors.New("--catch-rates runs on the model: --substrate cannot be used with it")
	}
	if a.without, err = parseWithout(a.withoutFlag); err != nil {
		return fmt.Errorf("--without: %v", err)
	}
	if len(a.without) > 0 && a.result != "" {
		return errors.New("--without and --result cannot be used together (a result document vouches for every criterion)")
	}
	if a.traceDigest && !a.live.IsModel() {
		return fmt.Errorf("--trace-digest is for the model: on --substrate %s every run's topic IDs, and so its trace hash, are the cluster's and differ from run to run, so a digest of them compares nothing", a.live.Substrate)
	}
	return checkResultPath(a.result)
}

// parseWithout parses --without: criteria the oracle judges, comma-separated, each once.
func parseWithout(text string) ([]spec.Criterion, error) {
	if text == "" {
		return nil, nil
	}
	var known []string
	for _, c := range scenariofile.Criteria() {
		if c != scenarios.CritModelDivergence && c != scenarios.CritPanic {
			known = append(known, string(c))
		}
	}
	var out []spec.Criterion
	for _, name := range strings.Split(text, ",") {
		switch c := spec.Criterion(name); {
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("unknown criterion %q (the oracle's: %s)", name, strings.Join(known, ", "))
		case slices.Contains(out, c):
			return nil, fmt.Errorf("criterion %s given twice", name)
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// checkWorkers checks -j and --workers (one variable; given names the flags given).
func checkWorkers(given map[string]bool, workers int) error {
	if given["j"] && given["workers"] {
		return errors.New("-j and --workers are the same flag: give one")
	}
	name := "-j"
	if given["workers"] {
		name = "--workers"
	}
	if workers < 0 || workers > maxWorkers || (given["j"] || given["workers"]) && workers == 0 {
		return fmt.Errorf("%s must be 1-%d, got %d", name, maxWorkers, workers)
	}
	return nil
}

// parseSeedRange parses "A-B" (inclusive, A <= B) or a single seed "N".
func parseSeedRange(text string) (first, last uint64, err error) {
	lo, hi, isRange := strings.Cut(text, "-")
	if first, err = strconv.ParseUint(lo, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("want A-B or N with unsigned integer seeds, got %q", text)
	}
	if !isRange {
		return first, first, nil
	}
	if last, err = strconv.ParseUint(hi, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("want A-B or N with unsigned integer seeds, got %q", text)
	}
	if first > last {
		return 0, 0, fmt.Errorf("range %q is empty: the first seed is above the last", text)
	}
	if last-first == math.MaxUint64 {
		return 0, 0, fmt.Errorf("range %q holds 2^64 seeds: at most 2^64-1 (a count of seeds is a 64-bit number)", text)
	}
	return first, last, nil
}

// printSweep prints the human summary: what ran (how: "on 4 workers", "merged from 4 shards"),
// the verdict counts, the violations by criterion, the eligibility under sabotage, what the runs
// exercised and every failing seed with its replay command. elapsed 0 prints no timing.
func printSweep(w io.Writer, rep *scenarios.SweepReport, how string, elapsed time.Duration) {
	shard := ""
	if rep.Shard != "" {
		shard = fmt.Sprintf(", shard %s (%d seeds)", rep.Shard, rep.SeedCount())
	}
	fmt.Fprintf(w, "sweep: scenario %s, sabotage %s, seeds %d-%d%s %s\n", rep.Scenario, rep.Sabotage,
		rep.FirstSeed, rep.LastSeed, shard, how)
	status := ""
	if rep.Interrupted {
		status = fmt.Sprintf("  INTERRUPTED after %d of %d seeds", rep.Runs, rep.SeedCount())
	}
	fmt.Fprintf(w, "runs %d  passed %d  failed %d%s\n", rep.Runs, rep.Passed, rep.Failed(), status)
	if len(rep.Without) > 0 {
		names := make([]string, len(rep.Without))
		for i, c := range rep.Without {
			names[i] = string(c)
		}
		fmt.Fprintf(w, "without %s: not judged, so this sweep vouches for none of them\n", strings.Join(names, ", "))
	}
	if rep.Substrate != "" {
		fmt.Fprintf(w, "substrate %s", rep.Substrate)
		if rep.ComparedSeeds != nil {
			fmt.Fprintf(w, ", compared with the model: %d of %d seeds agreed", *rep.AgreedSeeds, *rep.ComparedSeeds)
		}
		fmt.Fprintln(w)
	}
	if rep.EligibleSeeds != nil {
		fmt.Fprintf(w, "eligible seeds %d, caught %d (%s); fault fired on %d, caught %d (%s); caught over all runs %s\n",
			*rep.EligibleSeeds, *rep.CaughtEligible, percent(*rep.CaughtEligible, *rep.EligibleSeeds), *rep.FiredSeeds,
			*rep.CaughtFired, percent(*rep.CaughtFired, *rep.FiredSeeds), percent(rep.Failed(), rep.Runs))
	}
	if crits := rep.Criteria(); len(crits) > 0 {
		fmt.Fprintf(w, "violations by criterion:\n")
		for _, c := range crits {
			fmt.Fprintf(w, "  %-22s %6d seeds %8d violations\n", c, rep.SeedsByCriterion[c], rep.ViolationsByCriterion[c])
		}
	}
	fmt.Fprintf(w, "exercised (total over the runs, and in how many runs):\n")
	var fields []string
	for _, name := range rep.Exercised.Names() {
		c := rep.Exercised.Count(name)
		fields = append(fields, fmt.Sprintf("%s=%d/%d", name, c.Total, c.Runs))
	}
	fmt.Fprint(w, indent(strings.Join(wrapFields(fields, 96), "\n")+"\n", "  "))
	if len(rep.Failures) > 0 {
		fmt.Fprintf(w, "failing seeds (%d, shortest first):\n", len(rep.Failures))
		for _, f := range rep.Failures {
			fmt.Fprintf(w, "  seed %d: %s\n    %s\n", f.Seed, f.Detail, forUser(f.Replay))
		}
	}
	if rep.TraceDigest != "" {
		fmt.Fprintf(w, "trace digest %s (every seed's trace hash, in seed order)\n", rep.TraceDigest)
	}
	if secs := elapsed.Seconds(); elapsed > 0 && secs > 0 {
		fmt.Fprintf(w, "took %.1fs: %.1f seeds/s, %.0f steps/s\n", secs, float64(rep.Runs)/secs, float64(rep.Steps)/secs)
	}
	switch {
	case rep.Interrupted:
		fmt.Fprintf(w, "verdict: interrupted (%d failed of %d run)\n", rep.Failed(), rep.Runs)
	case rep.Failed() > 0 && rep.Sabotage != "NONE":
		fmt.Fprintf(w, "verdict: %d seeds caught %s (exit 1 is the expected outcome under --sabotage)\n", rep.Failed(), rep.Sabotage)
	case rep.Failed() > 0:
		fmt.Fprintf(w, "verdict: %d of %d seeds FAILED\n", rep.Failed(), rep.Runs)
	default:
		fmt.Fprintf(w, "verdict: all %d seeds passed\n", rep.Runs)
	}
}

// percent renders n/of as a percentage ("-" when of is 0).
func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// isTerminal reports whether f is a terminal (a character device): the progress bar is drawn
// only there, never into a pipe or a file.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws "[####    ] done/total seeds, failed, seeds/s" on one terminal line,
// redrawn at most every 100 ms. A nil bar draws nothing.
type progressBar struct {
	w     io.Writer
	total uint64
	label string
	start time.Time
	drawn time.Time
}

// progressBarWidth is the bar's width in characters.
const progressBarWidth = 30

func newProgressBar(w io.Writer, total uint64, label string) *progressBar {
	return &progressBar{w: w, total: total, label: label, start: time.Now()}
}

// update redraws the bar (a sweep's Progress callback).
func (b *progressBar) update(done, failed int) {
	now := time.Now()
	if uint64(done) != b.total && now.Sub(b.drawn) < 100*time.Millisecond {
		return
	}
	b.drawn = now
	filled := int(uint64(done) * progressBarWidth / max(b.total, 1))
	rate := float64(done) / max(now.Sub(b.start).Seconds(), 1e-9)
	fmt.Fprintf(b.w, "\r%s[%s%s] %d/%d seeds, %d failed, %.0f seeds/s\033[K", b.label,
		strings.Repeat("#", filled), strings.Repeat(" ", progressBarWidth-filled), done, b.total, failed, rate)
}

// clear erases the bar's line.
func (b *progressBar) clear() {
	if b != nil {
		fmt.Fprint(b.w, "\r\033[K")
	}
}

// catchRatesCommand is `simrun sweep --catch-rates`: it sweeps the range once per sabotage mode,
// prints the table and writes it to DIR/catch-rates.md and DIR/catch-rates.json.
func catchRatesCommand(ctx context.Context, a *sweepArgs, stdout, stderr io.Writer, progress bool) int {
	start := time.Now()
	table := &scenarios.CatchRateTable{Scenario: scenarios.RandomName, FirstSeed: a.first, LastSeed: a.last,
		Command: fmt.Sprintf("go run ./cmd/simrun sweep --catch-rates --seeds %d-%d -j %d --out %s", a.first, a.last, a.workers, scenarios.ShellQuote(a.outDir)),
		Commit:  commitOf(), Machine: machine()}
	for _, mode := range scenarios.CatchRateModes() {
		var bar *progressBar
		var prog func(int, int)
		if progress {
			bar = newProgressBar(stderr, a.last-a.first+1, fmt.Sprintf("%-28s ", mode))
			prog = bar.update
		}
		row, interrupted, err := scenarios.MeasureCatchRate(ctx, mode, a.first, a.last, a.workers, prog)
		bar.clear()
		if err != nil {
			fmt.Fprintf(stderr, "simrun sweep: %s: %v\n", mode, err)
			return exitUsage
		}
		table.Modes = append(table.Modes, row)
		fmt.Fprintf(stdout, "%-28s caught %4d/%-5d eligible %4d/%-5d fired %4d/%-5d %s\n", mode, row.Caught, row.Runs,
			row.CaughtEligible, row.Eligible, row.CaughtFired, row.Fired, caughtByLine(row))
		if interrupted {
			table.Interrupted = true
			break
		}
	}
	table.Seconds = time.Since(start).Seconds()
	md, js := filepath.Join(a.outDir, "catch-rates.md"), filepath.Join(a.outDir, "catch-rates.json")
	if err := os.MkdirAll(a.outDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "simrun sweep: --out: %v\n", err)
		return exitUsage
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{md, table.Markdown()}, {js, table.JSON()}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			fmt.Fprintf(stderr, "simrun sweep: --out: %v\n", err)
			return exitUsage
		}
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%.0f s)\n", md, js, table.Seconds)
	if table.Interrupted {
		fmt.Fprintf(stdout, "interrupted: the table counts the seeds that ran\n")
		return exitInterrupted
	}
	return exitPass
}

// caughtByLine renders the criteria that caught a mode on one line.
func caughtByLine(r scenarios.CatchRate) string {
	var parts []string
	for _, c := range r.Criteria() {
		parts = append(parts, fmt.Sprintf("%s %d", c, r.CaughtBy[c]))
	}
	if r.Exempt != "" {
		parts = append(parts, "(exempt)")
	}
	return strings.Join(parts, ", ")
}

// commitOf returns the repository's HEAD commit, with "+modified" when tracked files differ from
// it, or "unknown" outside a git checkout.
func commitOf() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		commit += " +modified tracked files"
	}
	return commit
}

// machine describes where a calibration ran: OS, architecture, CPU model and core count.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				model = strings.TrimSpace(value)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %s, %d cores (GOMAXPROCS %d), %s", runtime.GOOS, runtime.GOARCH, model,
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
}

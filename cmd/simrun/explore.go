package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/scenarios/scopes"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// exploreUsage is the help text of `simrun explore`.
const exploreUsage = `usage: simrun explore --scenario NAME [--sabotage MODE] [--max-depth N] [--max-states N] [--budget KEY=N,...] [--seed N] [--no-reduce] [--first] [--out FILE] [--json]
                      [--workers N] [--shard i/n] [--split-depth N] [--result FILE]
       simrun explore --catalogue | --family NAME [--reference] [--sabotage MODE] [--max-states N] [-j N] [--first] [--out DIR] [--json]
       simrun explore --list [--family NAME]

Explores every schedule and fault choice of a small scope (scenarios/scopes; 'simrun explore
--list' names them): depth-first over every Chooser answer, each state expanded once (canonical
hash of the world's state), partial-order reduction (persistent and sleep sets; --no-reduce
switches it off), and at every terminal state the checks a random run ends with (liveness at
quiescence included). --budget replaces the scope's budget: how many times each kind of action
may run along one path (keys: msgs, stamped, corrupt, crash, stop, rewind, truncate, retention,
delete, recreate, redeclare, abort, open, migrate, zombie, swrite, sread, damage, commitcrash;
feeds, drains, commits, starts and closing transactions are free). On a violation the shortest
path to it is written as a scenario file (FILE, by default explore-SCOPE-MODE.txt; with
--catalogue only when --out DIR is given) that 'simrun run FILE --sabotage MODE' reproduces.

--catalogue explores every scope of the catalogue: the shaped family (one scope per sabotage
mode, scenarios/scopes; --reference adds the slow reference scope) and the general family
(every small wiring under every fault kind, named general.FAULT.WIRING:
scenarios/scopes/general.go). --family shaped or --family general explores one family. Scopes run -j at
once, each on one worker, and are reported in catalogue order, then a summary per family
(and per fault kind of the general family). Counterexample files go into --out DIR, created if
missing. --first stops at the first violation: within a scope, and with --catalogue or --family
at the first scope (in catalogue order) that has one. --max-states N stops each scope
after N states, and --max-depth N cuts every path at N steps: when either left something
unexplored the report says INCOMPLETE ("complete": false in JSON), and a pass means only that no
violation was found in the part explored.

--workers N (or -j N: one flag, the number of cores to use; default every core) explores one
scope with N workers sharing one visited set and handing each other work, and a catalogue or
family N scopes at once. A complete exploration reaches the same states, terminal states,
verdict, violations (listed in a canonical order) and shortest counterexamples whatever N and
the timing; the transitions and the maximum depth may differ. A depth-bounded (--max-depth) or
sharded exploration runs on one worker. Ctrl-C stops an exploration cleanly: the partial report
says INCOMPLETE (interrupted).

--shard i/n (counting from 1; without it, a batch runner's variables as for 'simrun sweep -h')
explores shard i of n of one scope: every shard explores the top of the tree, the states fewer
than --split-depth steps from the root (default: the smallest depth with 8 subtrees per shard),
and then the subtrees below it whose first path hashes to shard i. The shards share no visited
set, so their states add up to more than the unsharded count (results/explore.md), but together
they reach every state: 'simrun merge' of all n result files gives the unsharded verdict and
violations (with their shortest counterexamples), and reports the scope complete only when every
shard is present and complete. --result FILE writes the scope's report as a result document
for 'simrun merge'. Each shard runs on one worker.

Exit status: 0 no violation, 1 a violation, 2 bad usage, 130 interrupted before a violation was
found.`

// exploreArgs are the flags of `simrun explore`.
type exploreArgs struct {
	scope     string
	catalogue bool
	family    string // with catalogue: only this family ("" for all)
	jobs      int
	first     bool
	reference bool
	list      bool
	sabotage  string
	maxDepth  int
	maxStates int
	budget    string
	seed      uint64
	noReduce  bool
	out       string
	jsonOut   bool
	shardFlag shardFlag
	shard     scenarios.Shard
	split     int
	result    string
	given     map[string]bool
	interrupt <-chan struct{} // closed by Ctrl-C
}

// exploreMain is `simrun explore`: see exploreUsage.
func exploreMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return exploreCommand(ctx, args, stdout, stderr, isTerminal(os.Stderr))
}

// exploreCommand runs the command until ctx is done; progress says whether to draw progress on
// stderr.
func exploreCommand(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	a, code, ok := parseExploreArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	a.interrupt = ctx.Done()
	if a.list {
		for _, sc := range a.scopes() {
			fmt.Fprintf(stdout, "%-28s %-28s %s\n", sc.Name, sc.Budget, sc.Summary)
		}
		return exitPass
	}
	if a.catalogue && a.out != "" {
		if err := os.MkdirAll(a.out, 0o755); err != nil {
			return usageError(stderr, "simrun explore", "--out: %v", err)
		}
	}
	// The explorer's garbage is short-lived clones; its live heap is a few megabytes (the visited
	// set lives outside the Go heap, sim/explore/visited/mem_linux.go), so collecting less often
	// costs little memory (results/explore.md).
	collectLessOften()
	start := time.Now()
	reports, err := exploreScopes(a.scopes(), a, stdout, stderr, progress)
	if err != nil {
		return usageError(stderr, "simrun explore", "%v", err)
	}
	wall := time.Since(start).Seconds()
	if a.catalogue && !a.jsonOut {
		printCatalogueSummary(stdout, reports, a.jobs, wall)
	}
	if a.jsonOut {
		writeExploreJSON(stdout, a, reports, wall)
	}
	if a.result != "" && len(reports) == 1 {
		if err := writeResult(a.result, a.resultHeader(reports[0]), reports[0], nil); err != nil {
			return usageError(stderr, "simrun explore", "--result: %v", err)
		}
	}
	code = exitPass
	for _, r := range reports {
		switch {
		case r.Verdict != "pass":
			return exitViolation
		case r.Interrupted:
			code = exitInterrupted
		}
	}
	if ctx.Err() != nil {
		code = exitInterrupted
	}
	return code
}

// parseExploreArgs parses and checks the flags. When ok is false the command is over with exit
// code code.
func parseExploreArgs(args []string, stdout, stderr io.Writer) (a exploreArgs, code int, ok bool) {
	fs := newFlagSet("simrun explore", exploreUsage)
	fs.StringVar(&a.scope, "scenario", "", "the scope to explore (a name from --list)")
	fs.BoolVar(&a.catalogue, "catalogue", false, "explore every scope of the catalogue")
	fs.StringVar(&a.family, "family", "", "explore (or with --list, list) one family of the catalogue: shaped or general")
	fs.IntVar(&a.jobs, "j", 0, "cores to use: workers exploring one scope, or scopes explored at once (default: every core)")
	fs.IntVar(&a.jobs, "workers", 0, "the same as -j")
	fs.BoolVar(&a.first, "first", false, "stop at the first violation (with --catalogue or --family: at the first scope that has one)")
	fs.BoolVar(&a.reference, "reference", false, "with --catalogue: include the reference scope (slow)")
	fs.BoolVar(&a.list, "list", false, "list the scopes and exit")
	fs.StringVar(&a.sabotage, "sabotage", "", "engine or host sabotage mode (see 'simrun list')")
	fs.IntVar(&a.maxDepth, "max-depth", 0, "cut every path at this many steps, reported INCOMPLETE if it cut one (0: the budget bounds the scope)")
	fs.IntVar(&a.maxStates, "max-states", 0, "stop each scope after this many states, reported INCOMPLETE (0: no cap)")
	fs.StringVar(&a.budget, "budget", "", "replace the scope's budget: KEY=N,... (each key once, N in 0..255)")
	a.seed = 1
	seedFlag(fs.FlagSet, "seed `N` of the topic IDs, so of the engines' channel order (an unsigned 64-bit integer; default 1)", &a.seed, new(bool))
	fs.BoolVar(&a.noReduce, "no-reduce", false, "switch the partial-order reduction (persistent and sleep sets) off")
	fs.StringVar(&a.out, "out", "", "counterexample `FILE` (--scenario) or directory (--catalogue)")
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object")
	fs.Var(&a.shardFlag, "shard", "with --scenario: explore shard `i/n` of the scope (default: from a batch runner's variables, or none)")
	fs.IntVar(&a.split, "split-depth", 0, "with a shard: the depth of the subtrees dealt to shards (0: chosen)")
	fs.StringVar(&a.result, "result", "", "with --scenario: write the report as a result document to `FILE`, for simrun merge")
	sub := modelOnlyFlag(fs.FlagSet)
	rest, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return a, code, false
	}
	if err := modelOnly("explore", *sub, "it clones and hashes the substrate's state at every step"); err != nil {
		return a, usageError(stderr, "simrun explore", "%v", err), false
	}
	a.given = fs.given()
	if err := a.check(rest); err != nil {
		return a, usageError(stderr, "simrun explore", "%v", err), false
	}
	if !a.list && !a.catalogue {
		var err error
		if a.shard, err = shardFromEnvironment(a.shardFlag, "simrun explore", stderr); err != nil {
			return a, usageError(stderr, "simrun explore", "%v", err), false
		}
	} else if v := shardEnvSet(os.Getenv); v != "" && !a.list {
		fmt.Fprintf(stderr, "simrun explore: a catalogue is not sharded: ignoring %s\n", v)
	}
	return a, exitPass, true
}

// check checks the parsed flags.
func (a *exploreArgs) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected argument %q", rest[0])
	case a.family != "" && !slices.Contains(scopes.Families(), a.family):
		return fmt.Errorf("--family %q: want one of %s", a.family, strings.Join(scopes.Families(), ", "))
	case a.list:
		return nil
	case a.scope != "" && (a.catalogue || a.family != ""):
		return errors.New("--scenario and --catalogue or --family are mutually exclusive")
	case a.scope == "" && !a.catalogue && a.family == "":
		return errors.New("give --scenario NAME, --catalogue or --family NAME (--list names the scopes)")
	case (a.catalogue || a.family != "") && a.budget != "":
		return errors.New("--budget needs --scenario: each scope of the catalogue has its own")
	case a.maxDepth < 0:
		return fmt.Errorf("--max-depth %d: must be 0 or more", a.maxDepth)
	case a.maxStates < 0:
		return fmt.Errorf("--max-states %d: must be 0 or more", a.maxStates)
	case a.scope == "" && (a.shardFlag.set || a.result != ""):
		return errors.New("--shard and --result need --scenario: a catalogue is explored whole")
	case a.split < 0 || a.split > sim.MaxSplitDepth:
		return fmt.Errorf("--split-depth %d: must be 0-%d", a.split, sim.MaxSplitDepth)
	}
	if err := checkWorkers(a.given, a.jobs); err != nil {
		return err
	}
	if err := checkResultPath(a.result); err != nil {
		return err
	}
	if err := checkOutputs(nil, []fileArg{{"--out", a.out}, {"--result", a.result}}); err != nil {
		return err
	}
	if a.scope != "" {
		if _, err := scopes.LookupScope(a.scope); err != nil {
			return err
		}
	}
	if _, _, err := spec.ParseSabotage(a.sabotage); err != nil {
		return fmt.Errorf("--sabotage: %w", err)
	}
	if _, err := budget.Parse(a.budget); err != nil {
		return fmt.Errorf("--budget: %w", err)
	}
	if a.family != "" {
		a.catalogue = true
	}
	if a.jobs == 0 {
		a.jobs = runtime.GOMAXPROCS(0)
	}
	if a.catalogue && a.out != "" {
		if fi, err := os.Stat(a.out); err == nil && !fi.IsDir() {
			return fmt.Errorf("--out %s: with --catalogue, --out names a directory", a.out)
		}
	}
	if !a.catalogue {
		return checkOutputPath("--out", a.out)
	}
	return nil
}

// resultHeader is the header of the --result document of scope report r.
func (a exploreArgs) resultHeader(r scopeReport) resultHeader {
	split := "chosen"
	if a.split > 0 {
		split = fmt.Sprint(a.split)
	}
	settings := map[string]string{"seed": fmt.Sprint(a.seed), "max_depth": fmt.Sprint(a.maxDepth), "max_states": fmt.Sprint(a.maxStates),
		"reduce": fmt.Sprint(!a.noReduce), "first": fmt.Sprint(a.first), "split_depth": split}
	return newResultHeader(resultHeader{Kind: "explore", Scenario: r.Scope, Sabotage: r.Sabotage, Budget: r.Budget, Settings: settings}, a.shard)
}

// scopes returns the scopes the arguments name.
func (a exploreArgs) scopes() []scopes.Scope {
	if a.scope != "" {
		sc, _ := scopes.LookupScope(a.scope)
		return []scopes.Scope{sc}
	}
	all := scopes.Scopes()
	if a.family != "" {
		all, _ = scopes.FamilyScopes(a.family)
	}
	var out []scopes.Scope
	for _, sc := range all {
		if !sc.Reference || a.reference || a.list {
			out = append(out, sc)
		}
	}
	return out
}

// scopeReport is one scope's exploration, as printed and as JSON.
type scopeReport struct {
	Scope    string `json:"scope"`
	Family   string `json:"family"`
	Fault    string `json:"fault,omitempty"`
	Budget   string `json:"budget"`
	Sabotage string `json:"sabotage"`
	sim.ExploreResult
	// Shard is the shard explored ("i/n"); a merge says which shards it holds ("1-4/4").
	Shard        string           `json:"shard,omitempty"`
	Seconds      float64          `json:"seconds"`
	StatesPerSec float64          `json:"states_per_s"`
	Found        []exploreFinding `json:"violations"` // shadows ExploreResult.Violations in JSON
}

// exploreFinding is one violation with its shortest path and reproduction.
type exploreFinding struct {
	Criterion string `json:"criterion"`
	Process   int    `json:"process"`
	Detail    string `json:"detail"`
	Steps     int    `json:"shortest_steps"`
	Terminal  bool   `json:"at_terminal_state"`
	// Path is the shortest path's Chooser answers, step by step.
	Path      [][]int `json:"path"`
	File      string  `json:"file,omitempty"`
	Reproduce string  `json:"reproduce,omitempty"`
}

// exploreScope explores one scope and finds the shortest path to each violation.
func exploreScope(sc scopes.Scope, a exploreArgs, stderr io.Writer, progress bool) (scopeReport, error) {
	opts, err := sc.Options()
	if err != nil {
		return scopeReport{}, err
	}
	if a.budget != "" {
		opts.Budget, _ = budget.Parse(a.budget)
	}
	opts.MaxDepth, opts.Seed, opts.Reduce = a.maxDepth, a.seed, !a.noReduce
	opts.MaxStates, opts.StopAtFirst = a.maxStates, a.first
	opts.Sabotage, opts.HostSabotage, _ = spec.ParseSabotage(a.sabotage)
	opts.Shard, opts.Shards, opts.SplitDepth = a.shard.Index, a.shard.Total, a.split
	opts.Interrupt = a.interrupt
	if !a.catalogue {
		opts.Workers = a.jobs
	}
	start := time.Now()
	if progress {
		opts.ProgressEvery = 1 << 14
		opts.Progress = func(r sim.ExploreResult) {
			el := time.Since(start).Seconds()
			if r.Workers > 1 { // the workers count transitions and depths on their own until the end
				fmt.Fprintf(stderr, "\r%s: %d states on %d workers, %.0f states/s   ", sc.Name, r.States, r.Workers, float64(r.States)/max(el, 1e-9))
				return
			}
			fmt.Fprintf(stderr, "\r%s: %d states, %d transitions, depth %d, %.0f states/s   ", sc.Name, r.States, r.Transitions, r.MaxDepth, float64(r.States)/max(el, 1e-9))
		}
	}
	res := sim.Explore(sc.Build(), opts)
	el := time.Since(start).Seconds()
	if progress {
		fmt.Fprint(stderr, "\r\033[K")
	}
	r := scopeReport{Scope: sc.Name, Family: sc.Family, Fault: sc.Fault, Budget: opts.Budget.String(), Sabotage: orNone(a.sabotage), ExploreResult: res,
		Shard: a.shard.String(), Seconds: el, StatesPerSec: float64(res.States) / max(el, 1e-9), Found: []exploreFinding{}}
	for _, v := range res.Violations {
		r.Found = append(r.Found, finding(sc, opts, a, v))
	}
	slices.SortFunc(r.Found, compareFindings)
	return r, nil
}

// compareFindings orders findings shortest first: by the shortest path's steps, then criterion,
// process and the path itself.
func compareFindings(a, b exploreFinding) int {
	if c := cmp.Compare(a.Steps, b.Steps); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Criterion, b.Criterion); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Process, b.Process); c != 0 {
		return c
	}
	return slices.CompareFunc(a.Path, b.Path, slices.Compare)
}

// finding shortens violation v and writes its counterexample file when asked to.
func finding(sc scopes.Scope, opts sim.ExploreOptions, a exploreArgs, v sim.ExploreViolation) exploreFinding {
	s := sim.ShortestViolation(sc.Build(), opts, v)
	f := exploreFinding{Criterion: string(s.Criterion), Process: s.Process, Detail: s.Detail, Steps: s.Depth, Terminal: s.Terminal, Path: s.Path}
	path := a.out
	switch {
	case a.catalogue && a.out == "":
		return f
	case a.catalogue:
		path = filepath.Join(a.out, exploreDefaultFile(sc.Name, a.sabotage))
	case path == "":
		path = exploreDefaultFile(sc.Name, a.sabotage)
	}
	data, err := scenariofile.Counterexample(sc.Name, sc.Budget, sc.Build(), opts, a.sabotage, s)
	if err != nil {
		f.Reproduce = "not reproduced by a scenario file: " + err.Error()
		return f
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		f.Reproduce = "could not write the scenario file: " + err.Error()
		return f
	}
	f.File = path
	f.Reproduce = fmt.Sprintf("%s run %s --sabotage %s", repoCommand, scenarios.ShellQuote(path), orNone(a.sabotage))
	return f
}

// exploreDefaultFile is the name of a scope's counterexample file under a sabotage mode.
func exploreDefaultFile(scope, sabotage string) string {
	return fmt.Sprintf("explore-%s-%s.txt", scope, strings.ToLower(orNone(sabotage)))
}

func orNone(mode string) string {
	if mode == "" {
		return "NONE"
	}
	return mode
}

// print writes the human report of one scope.
func (r scopeReport) print(w io.Writer) {
	fmt.Fprintf(w, "scope %s (budget %s, sabotage %s): %s\n", r.Scope, r.Budget, r.Sabotage, strings.ToUpper(r.Verdict))
	complete := "complete"
	switch {
	case r.Complete:
	case r.Interrupted:
		complete = "INCOMPLETE (interrupted)"
	case r.DepthCut > 0:
		complete = fmt.Sprintf("INCOMPLETE (--max-depth cut %d states)", r.DepthCut)
	default:
		complete = "INCOMPLETE (state cap)"
	}
	fmt.Fprintf(w, "  states %d, transitions %d, distinct terminal states %d, max depth %d, %s\n",
		r.States, r.Transitions, r.TerminalStates, r.MaxDepth, complete)
	if r.SplitDepth > 0 {
		fmt.Fprintf(w, "  shard %s: %d of %d subtrees at depth %d (the shards' counts add up to more than the scope's: they share no visited set)\n",
			r.Shard, r.OwnSubtrees, r.Subtrees, r.SplitDepth)
	}
	on := ""
	if r.Workers > 1 {
		on = fmt.Sprintf(" on %d workers", r.Workers)
	}
	fmt.Fprintf(w, "  time %.2fs, %.0f states/s%s\n", r.Seconds, r.StatesPerSec, on)
	for _, f := range r.Found {
		where := "on a transition"
		switch {
		case f.Criterion == string(spec.CritRestartInvisibility):
			where = "by a clean restart at the path's end"
		case f.Terminal:
			where = "at a terminal state"
		}
		fmt.Fprintf(w, "  %s (process %d, %s, shortest path %d steps): %s\n", f.Criterion, f.Process, where, f.Steps, f.Detail)
		if f.File != "" {
			fmt.Fprintf(w, "    wrote %s; reproduce: %s\n", f.File, forUser(f.Reproduce))
		} else if f.Reproduce != "" {
			fmt.Fprintf(w, "    %s\n", f.Reproduce)
		}
	}
}

// writeExploreJSON prints one object: the single scope's report, or for --catalogue the totals
// with a "scopes" list.
func writeExploreJSON(w io.Writer, a exploreArgs, reports []scopeReport, wall float64) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if !a.catalogue {
		_ = enc.Encode(reports[0])
		return
	}
	total := struct {
		Sabotage       string           `json:"sabotage"`
		States         int              `json:"states"`
		Transitions    int              `json:"transitions"`
		TerminalStates int              `json:"terminal_states"`
		Seconds        float64          `json:"seconds"`
		WallSeconds    float64          `json:"wall_seconds"`
		Jobs           int              `json:"jobs"`
		Verdict        string           `json:"verdict"`
		Violations     []exploreFinding `json:"violations"`
		Scopes         []scopeReport    `json:"scopes"`
	}{Sabotage: orNone(a.sabotage), WallSeconds: wall, Jobs: a.jobs, Verdict: "pass", Violations: []exploreFinding{}, Scopes: reports}
	for _, r := range reports {
		total.States += r.States
		total.Transitions += r.Transitions
		total.TerminalStates += r.TerminalStates
		total.Seconds += r.Seconds
		total.Violations = append(total.Violations, r.Found...)
		if r.Verdict != "pass" {
			total.Verdict = "violation"
		}
	}
	_ = enc.Encode(total)
}

// Command benchgate runs the wall-clock benchmarks listed in benchmarks.WallBenches: side by side
// with a baseline commit built from the repository's history (the CI gate and speed reports), or
// alone into the committed figures of results/bench.txt.
//
//	go run ./benchmarks/benchgate                 the CI gate: the gate subset, side by side with
//	                                              the commit results/bench.txt was measured at
//	go run ./benchmarks/benchgate -baseline REV -bench speed -out results/speed.md
//	                                              the speed goals side by side with REV (the
//	                                              engine's benchmarks and the simulator's sweep,
//	                                              sweep.go), the report also written to a file
//	go run ./benchmarks/benchgate -update         every listed benchmark, -benchtime=100ms
//	                                              -count=6, into results/bench.txt; then
//	                                              results/README.md and its plots
//
// Side by side, both builds' test binaries are built (the baseline from `git archive REV` in a
// temporary directory) and run interleaved, baseline and new in turn, round after round, so that
// the machine's load falls on both alike. The report gives, per benchmark, each build's median
// time per op, the speedup (baseline time over new time) in the median round with the least and
// greatest round (the spread), the Mann-Whitney U p-value of the two builds' times, and, where
// valgrind is installed, each build's instructions per op (cachegrind, GOMAXPROCS=1, GOGC=off,
// the difference of two runs of N and 2N ops, so that setup cancels out).
//
// The gate fails (exit 1) when a benchmark executes more than benchmarks.InstructionFactor times
// the baseline's instructions per op, or when its time per op is more than
// benchmarks.SlowdownFactor times the baseline's in the median round with p < 0.05, in the pass
// and again when the slow benchmarks are measured a second time. Absolute times are reported,
// never gated: they move with the machine and its load. Exit 2: bad usage, or a build that
// cannot be made (the baseline needs the history: a clone, not a shallow one).
//
// Run from the repository root.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parsleysim/parsleysim/benchmarks"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line's settings.
type options struct {
	update       bool
	baseline     string
	bench        string
	rounds       int
	benchtime    string
	count        int
	instructions string
	out          string
	results      string
	sweepSeeds   int
	args         []string
}

// run parses the flags and runs the chosen mode; it returns the exit code (0 pass, 1 a
// benchmark slower beyond the gate, 2 bad usage or a failed build).
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{args: args}
	fs.BoolVar(&o.update, "update", false, "run every listed benchmark into DIR/bench.txt, then regenerate DIR/README.md")
	fs.StringVar(&o.baseline, "baseline", "", "the git `REV` to compare with (default: the commit DIR/bench.txt was measured at)")
	fs.StringVar(&o.bench, "bench", "gate", "what to run side by side: gate, speed, all, or `PKG:PATTERN[,PKG:PATTERN...]`")
	fs.IntVar(&o.rounds, "rounds", 6, "side-by-side rounds (the U test needs 6 a side for p < 0.05)")
	fs.StringVar(&o.benchtime, "benchtime", "100ms", "-test.benchtime of each run")
	fs.IntVar(&o.count, "count", 6, "-test.count of -update")
	fs.StringVar(&o.instructions, "instructions", "auto", "count instructions per op with valgrind: auto (when installed), on, off")
	fs.StringVar(&o.out, "out", "", "also write the side-by-side report to `FILE`")
	fs.StringVar(&o.results, "results", "results", "the results `DIR`")
	fs.IntVar(&o.sweepSeeds, "sweep-seeds", 1000, "with -bench speed, also the simulator's `simrun sweep --seeds 1-N -j 1` side by side (0: not)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "benchgate: unexpected argument %q\n", fs.Arg(0))
		}
		return 2
	}
	if o.sweepSeeds < 0 {
		fmt.Fprintf(stderr, "benchgate: -sweep-seeds %d: want a number of seeds, or 0 for no sweep\n", o.sweepSeeds)
		return 2
	}
	if o.rounds < 1 || (o.instructions != "auto" && o.instructions != "on" && o.instructions != "off") {
		fmt.Fprintf(stderr, "benchgate: -rounds must be at least 1 and -instructions auto, on or off\n")
		return 2
	}
	if o.update {
		return runUpdate(o, stdout, stderr)
	}
	return runSideBySide(o, stdout, stderr)
}

// runUpdate measures every listed benchmark alone, writes DIR/bench.txt and regenerates the
// report from the committed data.
func runUpdate(o options, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "benchgate")
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	loadBefore := loadAverage()
	var raw bytes.Buffer
	bins := map[string]string{}
	for _, wb := range benchmarks.WallBenches {
		bin, ok := bins[wb.Pkg]
		if !ok {
			if bin, err = buildTest(".", wb.Pkg, filepath.Join(tmp, binName("new", wb.Pkg)), stderr); err != nil {
				fmt.Fprintf(stderr, "benchgate: %v\n", err)
				return 2
			}
			bins[wb.Pkg] = bin
		}
		fmt.Fprintf(stderr, "benchgate: %s %s\n", wb.Pkg, wb.Bench)
		cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", wb.Bench, "-test.benchmem",
			"-test.benchtime", o.benchtime, "-test.count", fmt.Sprint(o.count))
		cmd.Dir = wb.Pkg
		cmd.Stdout, cmd.Stderr = &raw, stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(stderr, "benchgate: benchmarks %s of %s: %v\n", wb.Bench, wb.Pkg, err)
			return 2
		}
	}
	commit, _ := exec.Command("git", "log", "-1", "--format=%h %cI").Output()
	header := fmt.Sprintf("# go run ./benchmarks/benchgate -update   (each listed benchmark: -benchtime=%s -count=%d -benchmem)\n"+
		"# commit %s   %s %s/%s, %d CPUs (shared machine); load average %s at start, %s at end\n",
		o.benchtime, o.count, strings.TrimSpace(string(commit)), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), loadBefore, loadAverage())
	path := filepath.Join(o.results, "bench.txt")
	if err := os.WriteFile(path, append([]byte(header), raw.Bytes()...), 0o644); err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "benchgate: wrote %s\n", path)
	files, err := benchmarks.WriteReport(o.results, nil)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: report: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "benchgate: wrote %s\n", strings.Join(files, ", "))
	return 0
}

// entry is one -bench pattern of one package.
type entry struct{ pkg, pattern string }

// entries returns what -bench names.
func entries(set string) ([]entry, error) {
	var out []entry
	switch set {
	case "gate", "all":
		for _, wb := range benchmarks.WallBenches {
			p := wb.Gate
			if set == "all" {
				p = wb.Bench
			}
			if p != "" {
				out = append(out, entry{wb.Pkg, p})
			}
		}
	case "speed":
		for _, wb := range benchmarks.SpeedBenches {
			out = append(out, entry{wb.Pkg, wb.Bench})
		}
	default:
		for _, item := range strings.Split(set, ",") {
			pkg, pattern, ok := strings.Cut(item, ":")
			if !ok || pkg == "" || pattern == "" {
				return nil, fmt.Errorf("-bench %q: want gate, speed, all or PKG:PATTERN[,...]", set)
			}
			out = append(out, entry{pkg, pattern})
		}
	}
	return out, nil
}

// build is one side of the comparison: its name, revision and test binaries by package ("" for a
// package the revision lacks).
type build struct {
	name, rev, dir string
	bins           map[string]string
}

// runSideBySide builds the baseline and the working tree, runs the benchmarks interleaved, counts
// instructions where it can, prints the report and gates it.
func runSideBySide(o options, stdout, stderr io.Writer) int {
	list, err := entries(o.bench)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	rev := o.baseline
	if rev == "" {
		if rev, err = benchCommit(filepath.Join(o.results, "bench.txt")); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v (or name one with -baseline REV)\n", err)
			return 2
		}
	}
	baseRev, err := gitOutput("rev-parse", "--verify", "--short", rev+"^{commit}")
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: baseline revision %q not found (%v): the side-by-side gate builds it from the history, so it needs a full clone\n", rev, err)
		return 2
	}
	headRev, _ := gitOutput("rev-parse", "--short", "HEAD")
	if dirty, _ := gitOutput("status", "--porcelain", "--untracked-files=no"); dirty != "" {
		headRev += " + uncommitted changes"
	}
	valgrind := o.instructions == "on" || o.instructions == "auto" && hasValgrind()
	if o.instructions == "on" && !hasValgrind() {
		fmt.Fprintf(stderr, "benchgate: -instructions on, but valgrind is not installed\n")
		return 2
	}
	tmp, err := os.MkdirTemp("", "benchgate")
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	start, loadBefore := time.Now().UTC(), loadAverage()
	base := &build{name: "baseline", rev: baseRev, dir: filepath.Join(tmp, "base"), bins: map[string]string{}}
	cur := &build{name: "new", rev: headRev, dir: ".", bins: map[string]string{}}
	if err := extract(baseRev, base.dir); err != nil {
		fmt.Fprintf(stderr, "benchgate: extracting %s: %v\n", baseRev, err)
		return 2
	}
	for _, b := range []*build{base, cur} {
		for _, e := range list {
			if _, ok := b.bins[e.pkg]; ok {
				continue
			}
			if _, err := os.Stat(filepath.Join(b.dir, e.pkg)); err != nil {
				b.bins[e.pkg] = "" // the package is younger than the baseline
				continue
			}
			bin, err := buildTest(b.dir, e.pkg, filepath.Join(tmp, binName(b.name, e.pkg)), stderr)
			if err != nil {
				fmt.Fprintf(stderr, "benchgate: %s (%s): %v\n", b.name, b.rev, err)
				return 2
			}
			b.bins[e.pkg] = bin
		}
	}
	fmt.Fprintf(stderr, "benchgate: built both in %s\n", time.Since(start).Round(time.Second))
	pairs := map[string]*benchmarks.Pair{}
	if err := measure(pairs, list, base, cur, o, stderr); err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	withSweep := o.bench == "speed" && o.sweepSeeds > 0
	simruns := map[*build]string{}
	var rows *sweepRows // the sweep's rows, with withSweep
	if withSweep {
		for _, b := range []*build{base, cur} {
			simruns[b] = filepath.Join(tmp, b.name+"_simrun")
			if err := buildSimrun(b.dir, simruns[b], stderr); err != nil {
				fmt.Fprintf(stderr, "benchgate: %s (%s): %v\n", b.name, b.rev, err)
				return 2
			}
		}
		rows = newSweepRows(o.sweepSeeds, base, cur)
		if err := rows.measure(simruns, o, stderr); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		pairs[rows.sweep.Key], pairs[rows.first.Key] = rows.sweep, rows.first
	}
	fmt.Fprintf(stderr, "benchgate: measured times by %s\n", time.Since(start).Round(time.Second))
	if valgrind {
		if err := countInstructions(pairs, list, base, cur, stderr); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		if withSweep {
			if err := rows.countInstructions(simruns); err != nil {
				fmt.Fprintf(stderr, "benchgate: %v\n", err)
				return 2
			}
		}
		fmt.Fprintf(stderr, "benchgate: counted instructions by %s\n", time.Since(start).Round(time.Second))
	}
	table, failed := benchmarks.FormatSideBySide(values(pairs), true)
	var again string
	if slow := timeSlowEntries(pairs, list); len(slow) > 0 {
		// A burst of load can slow one build's rounds more than the other's: measure the
		// benchmarks slower in time once more, and fail on time only when the slowdown repeats.
		fmt.Fprintf(stderr, "benchgate: slower in time; measuring %d benchmark families again (load average %s)\n", len(slow), loadAverage())
		second := map[string]*benchmarks.Pair{}
		if err := measure(second, slow, base, cur, o, stderr); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		var confirmed []benchmarks.Pair
		for k, p := range second {
			if p.TimeSlower() && pairs[k].TimeSlower() {
				p.BaseInstr, p.NewInstr = pairs[k].BaseInstr, pairs[k].NewInstr
				confirmed = append(confirmed, *p)
			}
		}
		again, _ = benchmarks.FormatSideBySide(values(second), true)
		again = "\nSecond pass of the benchmarks slower in time:\n\n" + again
		failed = countFailures(pairs, confirmed)
	}
	instrNote := "instructions per op not counted (valgrind is not installed)"
	if valgrind {
		instrNote = "instructions per op: valgrind --tool=cachegrind, GOMAXPROCS=1, GOGC=off, runs of N and 2N ops differenced"
	}
	if withSweep {
		instrNote += fmt.Sprintf("\n# the sweep's rows: an op is a step (the JSON's \"steps\"); its times are the whole process's CPU time (user + system) over its steps, "+
			"so the speedup is the ratio of steps per CPU-second; its instructions per step are of `simrun sweep --seeds 1-%d -j 1 --json` under cachegrind with GOMAXPROCS=1 and the sweep's own GOGC; "+
			"the first-wave row runs the new build's sweep --without %s (the checks the baseline's sweep did not have) against the same baseline runs", sweepInstrSeeds, firstWaveWithout)
	}
	report := fmt.Sprintf("# go run ./benchmarks/benchgate %s\n"+
		"# baseline %s, new %s; %s %s/%s, %d CPUs; %s, load average %s at start, %s at end\n"+
		"# %d rounds interleaved (baseline and new in turn, alternating which goes first), -benchtime=%s a run; %s\n\n%s%s",
		strings.Join(o.args, " "), baseRev, headRev, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		start.Format(time.RFC3339), loadBefore, loadAverage(), o.rounds, o.benchtime, instrNote, table, again)
	fmt.Fprint(stdout, report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		fmt.Fprintf(stderr, "benchgate: wrote %s\n", o.out)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "benchgate: %d benchmarks slower than %s beyond the gate (instructions more than %gx, or time more than %gx with p < %g in two passes)\n",
			failed, baseRev, benchmarks.InstructionFactor, benchmarks.SlowdownFactor, benchmarks.GateAlpha)
		return 1
	}
	fmt.Fprintf(stdout, "\nbenchgate: nothing slower than %s beyond the gate\n", baseRev)
	return 0
}

// countFailures counts the benchmarks that fail the gate: more instructions (deterministic, one
// pass) or a time slowdown confirmed by the second pass.
func countFailures(first map[string]*benchmarks.Pair, confirmed []benchmarks.Pair) int {
	n := len(confirmed)
	for _, p := range first {
		if p.InstrSlower() && !slices.ContainsFunc(confirmed, func(c benchmarks.Pair) bool { return c.Key == p.Key }) {
			n++
		}
	}
	return n
}

// measure runs every entry's benchmarks o.rounds times in both builds, interleaved (the baseline
// first in even rounds, the new build first in odd ones), adding each round's time per op to
// pairs.
func measure(pairs map[string]*benchmarks.Pair, list []entry, base, cur *build, o options, stderr io.Writer) error {
	for r := range o.rounds {
		fmt.Fprintf(stderr, "benchgate: round %d of %d (load average %s)\n", r+1, o.rounds, loadAverage())
		for _, e := range list {
			order := []*build{base, cur}
			if r%2 == 1 {
				order = []*build{cur, base}
			}
			for _, b := range order {
				bin := b.bins[e.pkg]
				if bin == "" {
					continue
				}
				out, err := runBench(bin, filepath.Join(b.dir, e.pkg), e.pattern, "-test.benchtime", o.benchtime)
				if err != nil {
					return fmt.Errorf("%s (%s): benchmarks %s of %s: %v", b.name, b.rev, e.pattern, e.pkg, err)
				}
				for key, v := range benchmarks.ParseBench(out, b.name, "sec/op") {
					p := pairs[key]
					if p == nil {
						p = &benchmarks.Pair{Key: key}
						pairs[key] = p
					}
					if b == base {
						p.Base = append(p.Base, v...)
					} else {
						p.New = append(p.New, v...)
					}
				}
			}
		}
	}
	return nil
}

// maxInstrNs is the slowest time per op whose instructions are counted: cachegrind runs many
// times slower than the machine, so a slower benchmark would make the gate's run too long.
const maxInstrNs = 1e6

// instrRunNs and instrRunMaxNs size the larger of a benchmark's two counted runs, in the
// machine's time: long enough that the difference of the two runs is the ops and not the noise,
// and at most instrRunMaxNs when the benchmark's setup dwarfs its ops (instructionsPerOp
// lengthens such a run).
const (
	instrRunNs    = 20e6
	instrRunMaxNs = 200e6
)

// countInstructions fills every pair's instructions per op for both builds, by cachegrind, one
// benchmark per CPU at a time (counts do not depend on what else runs). Both builds of a benchmark
// run the same numbers of ops: a benchmark that redoes its setup every so many ops (the engine's
// restart after a batch) counts that setup per op in proportion.
func countInstructions(pairs map[string]*benchmarks.Pair, list []entry, base, cur *build, stderr io.Writer) error {
	type job struct {
		p         *benchmarks.Pair
		pkg, name string
		n, maxN   int
		err       error
	}
	var jobs []*job
	for _, p := range values(pairs) {
		pkg, name := entryOf(p.Key, list)
		ns := min(medianOf(p.Base), medianOf(p.New)) * 1e9 // the faster build: load only slows
		if pkg == "" || ns <= 0 || ns > maxInstrNs || base.bins[pkg] == "" || cur.bins[pkg] == "" {
			continue
		}
		jobs = append(jobs, &job{p: pairs[p.Key], pkg: pkg, name: name, n: max(2, int(instrRunNs/ns)), maxN: max(2, int(instrRunMaxNs/ns))})
	}
	fmt.Fprintf(stderr, "benchgate: counting the instructions per op of %d benchmarks\n", len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pattern := exactPattern(j.name)
			var n int
			if j.p.BaseInstr, n, j.err = instructionsPerOp(base.bins[j.pkg], filepath.Join(base.dir, j.pkg), pattern, j.n, j.maxN); j.err != nil {
				j.err = fmt.Errorf("%s (%s): %w", base.name, base.rev, j.err)
				return
			}
			if j.p.NewInstr, _, j.err = instructionsPerOp(cur.bins[j.pkg], filepath.Join(cur.dir, j.pkg), pattern, n, n); j.err != nil {
				j.err = fmt.Errorf("%s (%s): %w", cur.name, cur.rev, j.err)
			}
		}()
	}
	wg.Wait()
	for _, j := range jobs {
		if j.err != nil {
			return fmt.Errorf("instructions of %s: %v", j.name, j.err)
		}
	}
	return nil
}

// instructionsPerOp returns the instructions per op of the benchmarks of pattern: the difference
// of the instructions executed by runs of n/2 and n ops under cachegrind, over n − n/2. What
// differs between two runs besides the ops (the runtime's background work, which grows with the
// run's wall time under valgrind) is a small fraction of a run's whole count, but a benchmark
// whose setup dwarfs its ops would show it: when the setup is more than maxSetupRatio times the
// difference, the runs are made that much longer (up to maxN ops), and the count taken again. It
// returns the count and the n it ran.
func instructionsPerOp(bin, dir, pattern string, n, maxN int) (float64, int, error) {
	perOp, setup, err := instructionRuns(bin, dir, pattern, n/2, n)
	if err != nil {
		return 0, 0, err
	}
	if diff := perOp * float64(n-n/2); perOp > 0 && setup > maxSetupRatio*diff && n < maxN {
		n = min(maxN, int(float64(n)*setup/(maxSetupRatio*diff))+1)
		perOp, _, err = instructionRuns(bin, dir, pattern, n/2, n)
	}
	return perOp, n, err
}

// maxSetupRatio is how many times the instructions of the differenced ops a benchmark's setup
// may take before instructionsPerOp lengthens the runs.
const maxSetupRatio = 1

// instructionRuns runs the benchmarks of pattern for n1 and for n2 ops under cachegrind (one P,
// the collector and asynchronous preemption off) and returns the instructions per op of the
// difference, and the instructions of the n1 run that are not its ops (the setup).
func instructionRuns(bin, dir, pattern string, n1, n2 int) (perOp, setup float64, err error) {
	var counts [2]float64
	for i, n := range []int{n1, n2} {
		cmd := exec.Command("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
			bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", fmt.Sprintf("%dx", n))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, 0, fmt.Errorf("%v: %s", err, lastLines(out, 5))
		}
		m := irefs.FindSubmatch(out)
		if m == nil {
			return 0, 0, fmt.Errorf("no instruction count in valgrind's output: %s", lastLines(out, 5))
		}
		if counts[i], err = strconv.ParseFloat(strings.ReplaceAll(string(m[1]), ",", ""), 64); err != nil {
			return 0, 0, err
		}
	}
	perOp = (counts[1] - counts[0]) / float64(n2-n1)
	return perOp, counts[0] - perOp*float64(n1), nil
}

// irefs finds cachegrind's total instruction count.
var irefs = regexp.MustCompile(`I\s+refs:\s+([\d,]+)`)

// runBench runs a test binary's benchmarks of pattern once and returns its output.
func runBench(bin, dir, pattern string, extra ...string) ([]byte, error) {
	var out, errs bytes.Buffer
	cmd := exec.Command(bin, append([]string{"-test.run", "^$", "-test.bench", pattern}, extra...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLines(append(out.Bytes(), errs.Bytes()...), 5))
	}
	return out.Bytes(), nil
}

// timeSlowEntries returns the entries whose benchmarks include one slower in time.
func timeSlowEntries(pairs map[string]*benchmarks.Pair, list []entry) []entry {
	var out []entry
	for _, p := range values(pairs) {
		if !p.TimeSlower() {
			continue
		}
		pkg, name := entryOf(p.Key, list)
		if pkg != "" {
			e := entry{pkg, exactPattern(name)}
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// entryOf returns the package directory of the entry a "pkg BenchmarkName" key belongs to, and
// the benchmark's name.
func entryOf(key string, list []entry) (string, string) {
	importPath, name, _ := strings.Cut(key, " ")
	for _, e := range list {
		if importPath == "github.com/parsleysim/parsleysim/"+strings.Trim(e.pkg, "./") ||
			importPath == "github.com/parsleysim/parsleysim" && strings.Trim(e.pkg, "./") == "" {
			return e.pkg, name
		}
	}
	return "", name
}

// exactPattern is the -test.bench pattern that matches exactly the benchmark name (each level
// anchored and quoted).
func exactPattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// values returns the pairs, in key order.
func values(m map[string]*benchmarks.Pair) []benchmarks.Pair {
	out := make([]benchmarks.Pair, 0, len(m))
	for _, p := range m {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b benchmarks.Pair) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// medianOf returns the median of s (0 when empty).
func medianOf(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	v := slices.Clone(s)
	slices.Sort(v)
	return v[len(v)/2]
}

// buildTest builds the test binary of package pkg of the tree at dir into out, with -trimpath so
// that packages the two trees share come from the build cache.
func buildTest(dir, pkg, out string, stderr io.Writer) (string, error) {
	cmd := exec.Command("go", "test", "-c", "-trimpath", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the benchmarks of %s: %w", pkg, err)
	}
	return out, nil
}

// binName names a build's test binary of pkg.
func binName(build, pkg string) string {
	return build + "_" + strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_") + ".test"
}

// benchCommit returns the commit results/bench.txt records it was measured at.
func benchCommit(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "# commit "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0], nil
			}
		}
	}
	return "", fmt.Errorf("%s: no \"# commit\" line", path)
}

// extract writes the tree of commit rev into dir.
func extract(rev, dir string) error {
	cmd := exec.Command("git", "archive", "--format=tar", rev)
	var errs bytes.Buffer
	cmd.Stderr = &errs
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := untar(out, dir); err != nil {
		_ = cmd.Wait()
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive: %v: %s", err, strings.TrimSpace(errs.String()))
	}
	return nil
}

// untar writes the regular files and directories of a tar stream under dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("archive entry %q leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// gitOutput runs git with args and returns its trimmed output.
func gitOutput(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// hasValgrind reports whether valgrind is on the PATH.
func hasValgrind() bool {
	_, err := exec.LookPath("valgrind")
	return err == nil
}

// lastLines returns the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// loadAverage returns the 1, 5 and 15 minute load averages ("?" where unknown).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

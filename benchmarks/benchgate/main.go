// Command benchgate runs the wall-clock benchmarks listed in benchmarks.WallBenches and gates
// them against the committed baseline results/bench.txt.
//
//	go run ./benchmarks/benchgate            the short CI pass: the gate subset, -benchtime=100ms
//	                                         -count=6, compared with results/bench.txt; exit 1 when
//	                                         a median slowed by more than 2x with p < 0.05, in this
//	                                         pass and again when the slow families are re-measured
//	go run ./benchmarks/benchgate -update    run every listed benchmark the same way and rewrite
//	                                         results/bench.txt (the machine and load recorded)
//
// Run from the repository root. Each package's test binary is built once and run per pattern.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/parsleysim/parsleysim/benchmarks"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, runs the benchmarks and gates or writes them; it returns the exit code
// (0 pass, 1 a significant slowdown, 2 bad usage or a failed build).
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	update := fs.Bool("update", false, "run every listed benchmark and rewrite the baseline")
	baseline := fs.String("baseline", "results/bench.txt", "the baseline `FILE`")
	benchtime := fs.String("benchtime", "100ms", "-test.benchtime of each run")
	count := fs.Int("count", 6, "-test.count: runs per benchmark (the U test needs 6 a side for p < 0.05)")
	out := fs.String("out", "", "also write this pass's raw benchmark output to `FILE`")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "benchgate: unexpected argument %q\n", fs.Arg(0))
		}
		return 2
	}
	var base benchmarks.BenchSamples
	if !*update {
		var err error
		if base, err = benchmarks.ReadBench(*baseline); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v (create it with: go run ./benchmarks/benchgate -update)\n", err)
			return 2
		}
	}
	loadBefore := loadAverage()
	raw, err := runBenchmarks(benchmarks.WallBenches, *update, *benchtime, *count, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\n", err)
		return 2
	}
	header := fileHeader(*update, *benchtime, *count, loadBefore, loadAverage())
	if *out != "" || *update {
		path := *out
		if *update {
			path = *baseline
		}
		if err := os.WriteFile(path, append([]byte(header), raw...), 0o644); err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "benchgate: wrote %s\n", path)
	}
	if *update {
		return 0
	}
	results := benchmarks.Gate(base, benchmarks.ParseBench(raw, "this pass", "sec/op"))
	report, failed := benchmarks.FormatGate(results)
	fmt.Fprint(stdout, header, report)
	if failed > 0 {
		// A loaded shared machine can slow one benchmark's six runs together: measure the
		// families that failed once more and fail only on a slowdown that reproduces.
		fmt.Fprintf(stdout, "benchgate: %d slower; measuring those families again (load average %s)\n", failed, loadAverage())
		again, err := runBenchmarks(slowFamilies(results), false, *benchtime, *count, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "benchgate: %v\n", err)
			return 2
		}
		report, failed = benchmarks.FormatGate(benchmarks.Gate(base, benchmarks.ParseBench(again, "second pass", "sec/op")))
		fmt.Fprint(stdout, report)
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "benchgate: %d benchmarks slowed by more than %gx (p < %g) against %s\n",
			failed, benchmarks.SlowdownFactor, benchmarks.GateAlpha, *baseline)
		return 1
	}
	fmt.Fprintf(stdout, "benchgate: no significant slowdown beyond %gx against %s\n", benchmarks.SlowdownFactor, *baseline)
	return 0
}

// slowFamilies returns the gate entries of benchmarks.WallBenches that a slower result belongs to.
func slowFamilies(results []benchmarks.GateResult) []benchmarks.WallBench {
	var out []benchmarks.WallBench
	for _, wb := range benchmarks.WallBenches {
		if wb.Gate == "" {
			continue
		}
		pkg := "github.com/parsleysim/parsleysim/" + strings.Trim(wb.Pkg, "./") + " "
		top := regexp.MustCompile(strings.SplitN(wb.Gate, "/", 2)[0])
		for _, g := range results {
			name, ok := strings.CutPrefix(g.Key, pkg)
			if ok && g.Slower() && top.MatchString(strings.SplitN(name, "/", 2)[0]) {
				out = append(out, wb)
				break
			}
		}
	}
	return out
}

// runBenchmarks builds the test binary of each package of list once and runs its patterns (all
// of them with all, else the gate subset), returning the concatenated output.
func runBenchmarks(list []benchmarks.WallBench, all bool, benchtime string, count int, stderr io.Writer) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "benchgate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var raw bytes.Buffer
	built := map[string]string{}
	for _, wb := range list {
		pattern := wb.Gate
		if all {
			pattern = wb.Bench
		}
		if pattern == "" {
			continue
		}
		bin, ok := built[wb.Pkg]
		if !ok {
			bin = filepath.Join(tmp, strings.ReplaceAll(strings.Trim(wb.Pkg, "./"), "/", "_")+".test")
			build := exec.Command("go", "test", "-c", "-o", bin, wb.Pkg)
			build.Stderr = stderr
			if err := build.Run(); err != nil {
				return nil, fmt.Errorf("building the benchmarks of %s: %w", wb.Pkg, err)
			}
			built[wb.Pkg] = bin
		}
		fmt.Fprintf(stderr, "benchgate: %s %s\n", wb.Pkg, pattern)
		cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchmem",
			"-test.benchtime", benchtime, "-test.count", fmt.Sprint(count))
		cmd.Dir = wb.Pkg
		cmd.Stdout, cmd.Stderr = &raw, stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("benchmarks %s of %s: %w", pattern, wb.Pkg, err)
		}
	}
	return raw.Bytes(), nil
}

// fileHeader describes the pass: the command, the commit, the machine and its load.
func fileHeader(all bool, benchtime string, count int, loadBefore, loadAfter string) string {
	cmd := "go run ./benchmarks/benchgate"
	if all {
		cmd += " -update"
	}
	commit, _ := exec.Command("git", "log", "-1", "--format=%h %cI").Output()
	return fmt.Sprintf("# %s   (each listed benchmark: -benchtime=%s -count=%d -benchmem)\n"+
		"# commit %s   %s %s/%s, %d CPUs (shared machine); load average %s at start, %s at end\n",
		cmd, benchtime, count, strings.TrimSpace(string(commit)), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), loadBefore, loadAfter)
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

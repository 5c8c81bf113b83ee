package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/benchmarks"
)

// The simulator's speed goal is a command's, not a Go benchmark's: `simrun sweep --seeds 1-N -j 1
// --json`, in steps (the JSON's "steps", every action of every run) per CPU-second of the whole
// process, as a user runs it (the sweep's own collector settings). Side by side (-bench speed),
// both builds' simrun run the same sweep interleaved, round after round, and the report gives one
// row whose "op" is a step: CPU time per step, the speedup (the ratio of steps per CPU-second) and
// the instructions per step of a shorter sweep under cachegrind. A second row runs the working
// tree's sweep with only the checks the baseline's simulator had (firstWaveWithout), against the
// same baseline runs: the simulator's own speed, as the first wave judged it.

// firstWaveWithout is what the working tree's sweep leaves out in the first-wave row (simrun sweep
// --without): the checks the baseline's sweep did not run, the reference nodes beside the engines
// (REFERENCE) and the restart check's rerun (RESTART_INVISIBILITY).
const firstWaveWithout = "REFERENCE,RESTART_INVISIBILITY"

// sweepInstrSeeds is the seed range whose sweep cachegrind counts, per build: long enough that
// process start-up is a small fraction of the count, short enough to take about a minute.
const sweepInstrSeeds = 200

// sweepKey is the report's row of the sweep of seeds 1-seeds.
func sweepKey(seeds int) string {
	return fmt.Sprintf("%s/cmd/simrun sweep --seeds 1-%d -j 1 --json (per step, CPU time)", modulePath, seeds)
}

// firstWaveKey is the report's row of the same sweep with the working tree's run --without
// firstWaveWithout.
func firstWaveKey(seeds int) string {
	return fmt.Sprintf("%s/cmd/simrun sweep --seeds 1-%d -j 1 --json, new --without %s (per step, CPU time)", modulePath, seeds, firstWaveWithout)
}

// modulePath is the module's import path, which the report strips from a row's package.
const modulePath = "github.com/parsleysim/parsleysim"

// buildSimrun builds the simrun command of the tree at dir into out (-trimpath, as buildTest).
func buildSimrun(dir, out string, stderr io.Writer) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/simrun")
	cmd.Dir = dir
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building simrun: %w", err)
	}
	return nil
}

// sweepArgs are the arguments of the measured sweep of seeds 1-seeds, followed by extra.
func sweepArgs(seeds int, extra ...string) []string {
	return append([]string{"sweep", "--seeds", fmt.Sprintf("1-%d", seeds), "-j", "1", "--json"}, extra...)
}

// firstWave is the extra arguments of the working tree's first-wave sweep.
var firstWave = []string{"--without", firstWaveWithout}

// sweepSteps returns the "steps" of a sweep's JSON report; an output without it is an error that
// quotes the output's start.
func sweepSteps(out []byte) (int64, error) {
	var rep struct {
		Steps *int64 `json:"steps"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || rep.Steps == nil || *rep.Steps <= 0 {
		head := strings.TrimSpace(string(out))
		if len(head) > 120 {
			head = head[:120] + "..."
		}
		return 0, fmt.Errorf("no steps in the sweep's JSON report (%v): %q", err, head)
	}
	return *rep.Steps, nil
}

// runSweep runs bin's sweep of seeds 1-seeds (with extra arguments) once and returns its CPU
// seconds (user and system) per step, and its steps.
func runSweep(bin string, seeds int, extra ...string) (secPerStep float64, steps int64, err error) {
	cmd := exec.Command(bin, sweepArgs(seeds, extra...)...)
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v: %s", filepath.Base(bin), strings.Join(sweepArgs(seeds, extra...), " "), err, lastLines([]byte(errs.String()), 5))
	}
	if steps, err = sweepSteps(out); err != nil {
		return 0, 0, err
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return cpu.Seconds() / float64(steps), steps, nil
}

// sweepRows are the report's two sweep rows and the three sweeps that fill them: the baseline's
// (both rows' baseline), the working tree's and the working tree's first-wave sweep. The builds
// must agree on nothing but the JSON's shape: a baseline whose scheduler differs takes other
// steps, which is why the rows compare steps per CPU-second.
type sweepRows struct {
	sweep, first *benchmarks.Pair
	runs         []sweepRun
}

// sweepRun is one of the sweeps: whose simrun, with which extra arguments, and where its times
// and its instructions per step go.
type sweepRun struct {
	b      *build
	extra  []string
	times  *[]float64
	instrs *float64
}

// newSweepRows returns the rows of the sweep of seeds 1-seeds, empty.
func newSweepRows(seeds int, base, cur *build) *sweepRows {
	sweep, first := &benchmarks.Pair{Key: sweepKey(seeds)}, &benchmarks.Pair{Key: firstWaveKey(seeds)}
	return &sweepRows{sweep: sweep, first: first, runs: []sweepRun{
		{base, nil, &sweep.Base, &sweep.BaseInstr},
		{cur, nil, &sweep.New, &sweep.NewInstr},
		{cur, firstWave, &first.New, &first.NewInstr},
	}}
}

// measure runs the three sweeps o.rounds times, interleaved (each round in another order).
func (rows *sweepRows) measure(bins map[*build]string, o options, stderr io.Writer) error {
	for r := range o.rounds {
		fmt.Fprintf(stderr, "benchgate: sweep round %d of %d (load average %s)\n", r+1, o.rounds, loadAverage())
		for k := range rows.runs {
			x := rows.runs[(k+r)%len(rows.runs)]
			v, _, err := runSweep(bins[x.b], o.sweepSeeds, x.extra...)
			if err != nil {
				return fmt.Errorf("%s (%s): %v", x.b.name, x.b.rev, err)
			}
			*x.times = append(*x.times, v)
		}
	}
	rows.first.Base = slices.Clone(rows.sweep.Base)
	return nil
}

// countInstructions counts the three sweeps' instructions per step (sweepInstructions).
func (rows *sweepRows) countInstructions(bins map[*build]string) error {
	for _, x := range rows.runs {
		n, err := sweepInstructions(bins[x.b], x.extra...)
		if err != nil {
			return fmt.Errorf("%s (%s): instructions of the sweep: %v", x.b.name, x.b.rev, err)
		}
		*x.instrs = n
	}
	rows.first.BaseInstr = rows.sweep.BaseInstr
	return nil
}

// sweepInstructions returns the instructions per step of bin's sweep of seeds 1-sweepInstrSeeds
// (with extra arguments) under cachegrind, one P, the sweep's own collector settings.
func sweepInstructions(bin string, extra ...string) (float64, error) {
	args := append([]string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", bin}, sweepArgs(sweepInstrSeeds, extra...)...)
	cmd := exec.Command("valgrind", args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("valgrind %s: %v: %s", strings.Join(sweepArgs(sweepInstrSeeds, extra...), " "), err, lastLines([]byte(errs.String()), 5))
	}
	steps, err := sweepSteps(out)
	if err != nil {
		return 0, err
	}
	m := irefs.FindStringSubmatch(errs.String())
	if m == nil {
		return 0, fmt.Errorf("no instruction count in valgrind's output: %s", lastLines([]byte(errs.String()), 5))
	}
	total, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if err != nil {
		return 0, err
	}
	return total / float64(steps), nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// shrinkUsage is the help text of `simrun shrink`.
const shrinkUsage = `usage: simrun shrink --seed N [--scenario NAME] [--sabotage MODE] [--steps N] [--processes N] [--attempts N] [--out FILE]

Reduces the failing run of seed N to a minimal one that fails with the same criterion first: the
safety-step budget (binary search), the choice list (shortest failing prefix, then delta
debugging: removing chunks and lowering single choices toward 0), then the run's actions as a
script. The number of runs is bounded by --attempts, never by time, so the result is
deterministic. Writes the replay file (FILE, replayed by 'simrun replay FILE') and, beside it,
the scenario file of the shrunk script (run by 'simrun run FILE'): --out STEM, STEM.replay or
STEM.txt writes STEM.replay and STEM.txt.

Exit status: 1 a reproduction was written (the seed fails), 2 bad usage or a seed that passes.`

// shrinkMain is `simrun shrink`: see shrinkUsage.
func shrinkMain(args []string, stdout, stderr io.Writer) int {
	return cli{stdout: stdout, stderr: stderr}.shrink(args)
}

func (c cli) shrink(args []string) int {
	fs := newFlagSet("simrun shrink", shrinkUsage)
	var cfg scenarios.ShrinkConfig
	seed := fs.String("seed", "", "the failing run's seed `N` (required)")
	fs.StringVar(&cfg.Spec.Scenario, "scenario", scenarios.RandomName, "scenario name (see simrun list)")
	fs.StringVar(&cfg.Spec.Sabotage, "sabotage", "", "sabotage mode: an engine, host or session-tier mode (see simrun list)")
	fs.IntVar(&cfg.Spec.Steps, "steps", 0, fmt.Sprintf("safety-phase action budget of the failing run, 1-%d (default: from the seed)", spec.MaxSteps))
	fs.IntVar(&cfg.Spec.Processes, "processes", 0, fmt.Sprintf("topology size of the failing run, 2-%d (random scenario)", spec.MaxProcesses))
	fs.IntVar(&cfg.Attempts, "attempts", scenarios.DefaultShrinkAttempts, fmt.Sprintf("at most this many runs, 1-%d", maxShrinkAttempts))
	out := fs.String("out", "", "write `STEM`.replay and STEM.txt (default simrun-shrunk-SCENARIO-SEED[-SABOTAGE])")
	sub := modelOnlyFlag(fs.FlagSet)
	rest, code, ok := fs.parse(args, c.stdout, c.stderr)
	if !ok {
		return code
	}
	if err := modelOnly("shrink", *sub, "it reruns the failing run hundreds of times and needs each rerun to get the same topic IDs"); err != nil {
		return usageError(c.stderr, "simrun shrink", "%v", err)
	}
	if err := checkShrinkArgs(fs, rest, seed, &cfg); err != nil {
		return usageError(c.stderr, "simrun shrink", "%v", err)
	}
	paths := shrinkOutputsFor(*out)
	if *out == "" {
		paths = shrinkOutputsFor(filepath.Join(c.dir, shrunkName(cfg.Spec.Normalize())))
	}
	for _, p := range []string{paths.replay, paths.scenario} {
		if err := checkOutputPath("--out", p); err != nil {
			return usageError(c.stderr, "simrun shrink", "%v", err)
		}
	}
	return c.shrinkTo(cfg, paths)
}

// maxShrinkAttempts bounds --attempts: each attempt is one run.
const maxShrinkAttempts = 100_000

// checkShrinkArgs checks the flags after parsing; every error names the flag and the bad text.
func checkShrinkArgs(fs *flagSet, rest []string, seed *string, cfg *scenarios.ShrinkConfig) error {
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q (flags: simrun shrink -h)", rest[0])
	}
	if *seed == "" {
		return errors.New("--seed is required")
	}
	n, err := strconv.ParseUint(*seed, 10, 64)
	if err != nil {
		return fmt.Errorf("--seed: want an unsigned 64-bit integer, got %q", *seed)
	}
	cfg.Spec.Seed = n
	if cfg.Attempts < 1 || cfg.Attempts > maxShrinkAttempts {
		return fmt.Errorf("--attempts must be 1-%d, got %d", maxShrinkAttempts, cfg.Attempts)
	}
	if err := checkSize(fs, &cfg.Spec); err != nil {
		return err
	}
	if _, _, err := spec.ParseSabotage(cfg.Spec.Sabotage); err != nil {
		return fmt.Errorf("--sabotage: %v", err)
	}
	if _, ok := scenarios.Lookup(cfg.Spec.Scenario); !ok {
		return fmt.Errorf("--scenario: unknown scenario %q (known: %s)", cfg.Spec.Scenario, strings.Join(scenarios.Names(), ", "))
	}
	return nil
}

// shrunkName is the default stem of a shrink's files: scenario, seed and sabotage.
func shrunkName(s scenarios.Spec) string {
	return "simrun-shrunk-" + strings.TrimSuffix(strings.TrimPrefix(autoReplayName(s), "simrun-"), ".replay")
}

// shrinkOutputs are the two files a shrink writes.
type shrinkOutputs struct {
	replay, scenario string
}

// shrinkOutputsFor returns the files of --out STEM: STEM.replay and STEM.txt, where a given
// .replay or .txt suffix is part of neither stem.
func shrinkOutputsFor(out string) shrinkOutputs {
	stem := strings.TrimSuffix(strings.TrimSuffix(out, ".replay"), ".txt")
	return shrinkOutputs{replay: stem + ".replay", scenario: stem + ".txt"}
}

// shrunkPaths returns the files of the automatic shrink beside a run's replay file.
func shrunkPaths(replayPath string) shrinkOutputs {
	return shrinkOutputsFor(strings.TrimSuffix(replayPath, ".replay") + "-shrunk")
}

// shrinkTo shrinks cfg's run, writes the replay file and the scenario file, and prints the sizes
// before and after and the commands that reproduce it.
func (c cli) shrinkTo(cfg scenarios.ShrinkConfig, paths shrinkOutputs) int {
	out, err := scenarios.Shrink(cfg)
	if err != nil {
		return usageError(c.stderr, "simrun shrink", "%v", err)
	}
	if err := replay.Save(paths.replay, out.Replay()); err != nil {
		return usageError(c.stderr, "simrun shrink", "%v", err)
	}
	filePath := paths.scenario
	if err := os.WriteFile(filePath, out.File, 0o644); err != nil {
		fmt.Fprintf(c.stderr, "simrun shrink: writing the scenario file: %v\n", err)
		filePath = ""
	}
	printShrunk(c.stdout, out, paths.replay, filePath)
	return exitViolation
}

// printShrunk prints what a shrink found and wrote.
func printShrunk(w io.Writer, out *scenarios.Shrunk, replayPath, filePath string) {
	fmt.Fprintf(w, "shrink: %s, first violation %s\n", forUser(scenarios.RerunCommand(out.From)), out.Criterion)
	fmt.Fprintf(w, "  before: %s\n", out.Before)
	fmt.Fprintf(w, "  after:  %s; %d choices given, the rest the first enabled option\n", out.After, out.Given)
	if out.ScriptFails {
		fmt.Fprintf(w, "  script: %d actions (from %d)\n", len(out.Script), out.After.Script)
	} else {
		fmt.Fprintf(w, "  script: run as a script the shrunk run does not fail with %s first; the replay file reproduces it\n", out.Criterion)
	}
	budget := ""
	if out.Exhausted {
		budget = " (budget exhausted: a larger --attempts may shrink further)"
	}
	fmt.Fprintf(w, "  attempts: %d runs%s\n", out.Attempts, budget)
	fmt.Fprintf(w, "violation: %s\n", out.Result.Violations[0])
	fmt.Fprintf(w, "replay file: %s\n  reproduce: %s replay %s\n", replayPath, userCommand, scenarios.ShellQuote(replayPath))
	if filePath != "" {
		sab := ""
		if out.Spec.Sabotage != "" {
			sab = " --sabotage " + out.Spec.Sabotage
		}
		fmt.Fprintf(w, "scenario file: %s\n  run: %s run%s %s\n", filePath, userCommand, sab, scenarios.ShellQuote(filePath))
	}
}

// shrinkAfterViolation is the automatic shrink of a failing default run: it shrinks the run of
// runSpec and writes the reproduction beside the run's replay file (shrunkPaths). The default run
// calls it after saving its replay file; a failed shrink is reported, never fatal.
func (c cli) shrinkAfterViolation(runSpec scenarios.Spec, replayPath string) {
	fmt.Fprintf(c.stdout, "shrinking (at most %d runs) ...\n", scenarios.DefaultShrinkAttempts)
	c.shrinkTo(scenarios.ShrinkConfig{Spec: runSpec}, shrunkPaths(replayPath))
}

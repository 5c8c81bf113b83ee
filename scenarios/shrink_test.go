package scenarios

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// firstReferenceSeed returns the first seed whose run under DROP_HELD fails with REFERENCE first
// (its first violation is the one a shrink must keep), found rather than hard-coded so that a
// change to the generator moves the tests to another seed instead of breaking them.
func firstReferenceSeed(t *testing.T) uint64 {
	for seed := uint64(1); seed <= 200; seed++ {
		if out := mustRunSeed(t, Spec{Sabotage: "DROP_HELD"}, seed); len(out.Violations) > 0 && out.Violations[0].Criterion == spec.CritReference {
			return seed
		}
	}
	t.Fatal("no seed in 1-200 fails with REFERENCE first under DROP_HELD")
	return 0
}

// TestShrinkDropHeld: the first seed that fails with REFERENCE first under DROP_HELD; the shrink
// keeps that criterion, makes the run smaller, records choices that replay it exactly, writes a scenario
// file that reproduces it on its own, and does the same again on a second try.
func TestShrinkDropHeld(t *testing.T) {
	cfg := ShrinkConfig{Spec: Spec{Seed: firstReferenceSeed(t), Sabotage: "DROP_HELD"}}
	out, err := Shrink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out.Criterion != spec.CritReference || out.After.Choices >= out.Before.Choices || out.After.Steps >= out.Before.Steps {
		t.Fatalf("criterion %s, before %s, after %s: want REFERENCE and a smaller run", out.Criterion, out.Before, out.After)
	}
	if out.Attempts > DefaultShrinkAttempts {
		t.Fatalf("%d attempts, budget %d", out.Attempts, DefaultShrinkAttempts)
	}
	res, used, hash := replayChoices(out.Spec, out.Choices, nil)
	if used != len(out.Choices) || hash != out.Hash || !failsFirst(res, spec.CritReference) {
		t.Fatalf("replaying the recorded choices: used %d of %d, hash %s vs %s, violations %v",
			used, len(out.Choices), hash, out.Hash, res.Violations)
	}
	if !out.ScriptFails || len(out.Script) > out.After.Script {
		t.Fatalf("script: fails %v, %d actions from %d; want a script no longer that reproduces", out.ScriptFails, len(out.Script), out.After.Script)
	}
	f, err := scenariofile.ParseFile("shrunk.txt", out.File)
	if err != nil {
		t.Fatalf("the scenario file does not parse: %v\n%s", err, out.File)
	}
	run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{Sabotage: "DROP_HELD"})
	if err != nil || !run.OK() || !failsFirst(run.Result, spec.CritReference) {
		t.Fatalf("the scenario file does not reproduce REFERENCE (err %v, failures %v):\n%s", err, run.Failures, out.File)
	}
	prep, err := cfg.Spec.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Scenario.Processes) >= len(prep.Scenario.Processes) || !bytes.Contains(out.File, []byte("\n# Topology: ")) {
		t.Fatalf("the scenario file keeps %d of the run's %d processes: want only those the failure needs\n%s",
			len(f.Scenario.Processes), len(prep.Scenario.Processes), out.File)
	}
	honest, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{})
	if err != nil || honest.Result.Verdict != "pass" {
		t.Fatalf("the scenario file fails without the sabotage too: %v %v", err, honest.Result.Violations)
	}
	again, err := Shrink(cfg)
	if err != nil || !slices.Equal(again.Choices, out.Choices) || !bytes.Equal(again.File, out.File) || again.Attempts != out.Attempts {
		t.Fatalf("a second shrink differs: %d choices vs %d, %d attempts vs %d", len(again.Choices), len(out.Choices), again.Attempts, out.Attempts)
	}
}

// TestShrinkBudget: a tiny budget is respected and reported as exhausted; the result still fails
// the same way.
func TestShrinkBudget(t *testing.T) {
	out, err := Shrink(ShrinkConfig{Spec: Spec{Seed: firstReferenceSeed(t), Sabotage: "DROP_HELD"}, Attempts: 12})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attempts > 12 || !out.Exhausted || !failsFirst(out.Result, out.Criterion) {
		t.Fatalf("%d attempts (budget 12), exhausted %v, violations %v", out.Attempts, out.Exhausted, out.Result.Violations)
	}
	if out.Given > out.After.Choices {
		t.Errorf("%d choices given of the shrunk run's %d: a run cannot use more of the list than it answers", out.Given, out.After.Choices)
	}
}

// TestShrinkPassingSeed: a seed that passes has nothing to shrink, and the error says so.
func TestShrinkPassingSeed(t *testing.T) {
	_, err := Shrink(ShrinkConfig{Spec: Spec{Seed: 1}})
	if err == nil || !strings.Contains(err.Error(), "passes") {
		t.Fatalf("error %v, want one saying seed 1 passes", err)
	}
}

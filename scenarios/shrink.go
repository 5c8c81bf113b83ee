package scenarios

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/shrink"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Shrinking a failing run of a Spec to a minimal reproduction. The run is first
// made with its seed's random chooser; its first violation's criterion is the target, and every
// candidate must fail with that same criterion first. The passes share one budget of attempts
// (runs), so the result is deterministic:
//
//  1. the safety-step budget, binary-searched down (Spec.Steps), replaying the recorded choices;
//  2. the choice list (shrink.Choices: shortest failing prefix, chunk removal, lowering);
//  3. the step budget once more, for the shrunk choices;
//  4. the shrunk run's safety phase as a script (spec.Result.Script), its actions removed by the
//     same passes, run the way a scenario file runs (FileSettings with the seed's swarm settings),
//     so the scenario file written from it reproduces the failure without the choice list. A
//     scripted run is not always the same run as the chosen one (the liveness phase and the data
//     streams may go differently), so when the shrunk run's script does not fail the same way the
//     original run's script is tried instead;
//  5. the topology: the processes the script never names and then the topics nothing names, each
//     dropped only when the smaller scenario file still fails the same way (shrink_topology.go).

// DefaultShrinkAttempts bounds a shrink's runs when ShrinkConfig.Attempts is 0.
const DefaultShrinkAttempts = 500

// scriptSharePct is the share of the budget kept for the script pass: the choice passes stop
// when only this much is left.
const scriptSharePct = 40

// ShrinkConfig says what to shrink: the failing Spec (seed included) and the budget of runs.
type ShrinkConfig struct {
	Spec     Spec
	Attempts int // runs at most; 0 means DefaultShrinkAttempts
}

// Shrunk is a minimal reproduction: the Spec (with the reduced step budget), the exact choice
// list of the shrunk run (it replays with no divergence), its result and hash, the shrunk script
// and the scenario file text, and the sizes before and after.
type Shrunk struct {
	From      Spec // the failing run as given
	Spec      Spec // the shrunk run's spec: From with the reduced step budget
	Criterion spec.Criterion
	Result    *spec.Result // the shrunk run (replayed from Choices)
	Hash      string
	Choices   []int // every answer of the shrunk run: what the replay file records
	Given     int   // how many of the run's answers came from the shrunk list; the replay filled in the rest
	Script    []spec.ScriptedAction
	// ScriptFails says the scenario file of the shrunk script, parsed and run with RunFile,
	// fails with Criterion first and meets its expectations; File is its text (written even when
	// it does not, with a note).
	ScriptFails bool
	File        []byte
	// topologyOf is the process and topic counts of the run's scenario when File's is smaller (the
	// topology pass dropped what the failure does not need), else zero.
	topologyOf [2]int

	Before, After Size
	Attempts      int // runs made, of the budget
	Exhausted     bool
	ChoiceStats   shrink.Stats
	ScriptStats   shrink.Stats
}

// Size measures a run for the before/after report.
type Size struct {
	Choices int // decisions the chooser answered
	Steps   int // scheduler steps (safety and liveness)
	Safety  int // safety-phase steps
	Script  int // actions of the safety phase as a script
}

func sizeOf(res *spec.Result) Size {
	return Size{Choices: len(res.Choices), Steps: res.Steps, Safety: res.Stats.SafetySteps, Script: len(res.Script)}
}

// shrinkRun is the state of one shrink: the spec being reduced, the target and the budget.
type shrinkRun struct {
	spec     Spec
	target   spec.Criterion
	budget   int
	attempts int
}

// Shrink reduces a failing run. An error says the Spec is bad or its run passes.
func Shrink(cfg ShrinkConfig) (*Shrunk, error) {
	budget := cfg.Attempts
	if budget <= 0 {
		budget = DefaultShrinkAttempts
	}
	spec := cfg.Spec.Normalize()
	prep, err := spec.Prepare()
	if err != nil {
		return nil, err
	}
	opts := prep.Options
	opts.RecordScript = true
	orig := sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(spec.Seed), opts)
	if len(orig.Violations) == 0 {
		return nil, fmt.Errorf("seed %d of %s (sabotage %s) passes: nothing to shrink", spec.Seed, spec.Scenario, noneName(spec.Sabotage))
	}
	s := &shrinkRun{spec: spec, target: orig.Violations[0].Criterion, budget: budget}
	choices := orig.Choices
	s.shrinkSteps(prep.Settings.SafetySteps, choices)
	// The choice passes may use the budget but the share reserved for the script pass.
	choices, choiceStats := shrink.Choices(choices, s.choiceTest, max(s.left()-budget*scriptSharePct/100, 0))
	s.attempts += choiceStats.Attempts
	s.shrinkSteps(s.safetySteps(), choices)

	out, err := s.finish(choices)
	if err != nil {
		return nil, err
	}
	out.From, out.Before, out.ChoiceStats = spec, sizeOf(orig), choiceStats
	s.shrinkScript(out, orig.Script)
	out.Attempts, out.Exhausted = s.attempts, s.attempts >= s.budget
	return out, nil
}

func (s *shrinkRun) left() int { return max(s.budget-s.attempts, 0) }

// safetySteps returns the spec's current step budget (the seed's when not overridden).
func (s *shrinkRun) safetySteps() int {
	if s.spec.Steps > 0 {
		return s.spec.Steps
	}
	return swarm.ExpandSettings(s.spec.Seed).SafetySteps
}

// replayChoices runs spec with choices through a choose.Replay; it returns the result and the number
// of leading choices the run used (cut at a divergence: the rest were never read).
func replayChoices(spec Spec, choices []int, opts func(*sim.RunOptions)) (*spec.Result, int, string) {
	prep, err := spec.Prepare()
	if err != nil {
		panic(fmt.Sprintf("scenarios: a spec that prepared once fails to prepare: %v", err))
	}
	ch := choose.NewReplay(choices)
	o := prep.Options
	hash := trace.NewHashSink()
	o.Sinks = []trace.Sink{hash}
	if opts != nil {
		opts(&o)
	}
	res := sim.Run(prep.Scenario, prep.Settings, ch, o)
	used := min(ch.Consumed(), len(choices))
	if e, ok := ch.Err().(*choose.ReplayError); ok {
		used = min(used, e.Decision)
	}
	return res, used, hash.Sum()
}

// failsFirst reports whether a result's first violation has the criterion.
func failsFirst(res *spec.Result, c spec.Criterion) bool {
	return len(res.Violations) > 0 && res.Violations[0].Criterion == c
}

// choiceTest is the shrink.Test of the choice pass.
func (s *shrinkRun) choiceTest(choices []int) (bool, int) {
	res, used, _ := replayChoices(s.spec, choices, nil)
	return failsFirst(res, s.target), used
}

// shrinkSteps binary-searches the smallest safety-step budget at most hi with which choices
// still fail the same way, and keeps it in the spec.
func (s *shrinkRun) shrinkSteps(hi int, choices []int) {
	lo := 1
	for lo < hi && s.left() > 0 {
		mid := lo + (hi-lo)/2
		spec := s.spec
		spec.Steps = mid
		s.attempts++
		if res, _, _ := replayChoices(spec, choices, nil); failsFirst(res, s.target) {
			hi, s.spec = mid, spec
		} else {
			lo = mid + 1
		}
	}
}

// finish replays the shrunk choices once more, recording the run's exact answers and script.
func (s *shrinkRun) finish(choices []int) (*Shrunk, error) {
	res, given, hash := replayChoices(s.spec, choices, func(o *sim.RunOptions) { o.RecordScript = true })
	if !failsFirst(res, s.target) {
		return nil, fmt.Errorf("shrink of seed %d: the shrunk run no longer fails with %s (a nondeterministic run?)", s.spec.Seed, s.target)
	}
	// The recorded answers replay the run exactly: check it, so a replay file never diverges.
	again, used, hash2 := replayChoices(s.spec, res.Choices, nil)
	if hash2 != hash || used != len(res.Choices) || !failsFirst(again, s.target) {
		return nil, fmt.Errorf("shrink of seed %d: the recorded choices do not replay the shrunk run (hash %s vs %s)", s.spec.Seed, hash2, hash)
	}
	return &Shrunk{Spec: s.spec, Criterion: s.target, Result: res, Hash: hash, Choices: res.Choices,
		Given: given, Script: res.Script, After: sizeOf(res)}, nil
}

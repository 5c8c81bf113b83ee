package sim

import (
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// RunOptions are the parts of a run that are not settings: sabotage, the data streams, the trace
// sinks, the recorded script, the substrate (world.RunOptions).
type RunOptions = world.RunOptions

// Run executes one run of scn under set, making every schedule and fault decision through ch:
// every process started, the safety phase (set.SafetySteps actions chosen by ch, or scn.Script
// when given), then the liveness phase (faults off; every process started, fed, drained and
// committed until nothing moves, at most set.LivenessStepsMax actions; skipped when that is 0),
// then the end-of-run checks, and, when set.RestartCheck asks for it and the run passed, the
// restart check (check_restart.go: the script once more with a clean restart inserted). It is
// deterministic: no map order, goroutine or wall clock reaches the result.
func Run(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *spec.Result {
	mustBeValid(scn)
	return run(scn, set, ch, opts, nil)
}

// mustBeValid panics, naming this package, when scn is not a valid scenario: sim's entry points
// take a scenario a caller built, and a panic should name the call the caller made, not the
// package the run goes on into.
func mustBeValid(scn *spec.Scenario) {
	if err := scn.Validate(); err != nil {
		panic("sim: " + err.Error())
	}
}

// run is the run skeleton, the one every run of this package follows (Run, RunObserved, the
// restart check's reruns): the phases of package world's World in order — New, Start, the safety
// phase (the script's actions, or the scheduler's steps), Finish, Result — then the run's restart
// check when its settings ask for it and the run passed. ob, when not nil, snapshots the world
// after the initial starts, after each script action and at the end (RunObserved); it only reads
// the world, so an observed run is the run Run makes. The restart check's rerun is not observed.
func run(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions, ob *Observed) *spec.Result {
	w := world.New(scn, set, ch, opts)
	w.Start()
	if ob != nil {
		ob.started(w.View())
	}
	res := runFrom(w, scn.Script, 0, set.SafetySteps, ob)
	if res.Verdict == "pass" {
		if vs := checkRestart(w, scn, res); len(vs) > 0 {
			res.Violations, res.Verdict = append(res.Violations, vs...), "violation"
		}
	}
	if !opts.RecordScript {
		res.Script = nil // recorded for the restart check's rerun only
	}
	return res
}

// runFrom runs the started world w from script action from on: the script's actions when script
// (w's scenario's) has any, else at most safetySteps of the scheduler's steps; then the liveness
// phase and the end-of-run checks. It returns the result, telling ob (when not nil) of each
// action and of the end.
func runFrom(w *world.World, script []spec.ScriptedAction, from, safetySteps int, ob *Observed) *spec.Result {
	if len(script) > 0 {
		for i := from; i < len(script); i++ {
			w.Scripted(i)
			if ob != nil {
				ob.snapshot(w.View(), i)
			}
		}
	} else {
		for n := 0; n < safetySteps && w.SafetyStep(); n++ {
		}
	}
	w.Finish()
	res := w.Result()
	if ob != nil {
		ob.finished(w.View(), res)
	}
	return res
}

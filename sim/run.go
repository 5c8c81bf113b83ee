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
// restart check (the script once more with a clean restart inserted). It is deterministic: no map
// order, goroutine or wall clock reaches the result. The run is package world's (world.Run).
func Run(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *spec.Result {
	mustBeValid(scn)
	return world.Run(scn, set, ch, opts)
}

// mustBeValid panics, naming this package, when scn is not a valid scenario: sim's entry points
// take a scenario a caller built, and a panic should name the call the caller made, not the
// package the run goes on into.
func mustBeValid(scn *spec.Scenario) {
	if err := scn.Validate(); err != nil {
		panic("sim: " + err.Error())
	}
}

// CheckRestartInvisibility runs scn (which must have a Script) with and without a clean restart
// of process proc after script action after (a no-op unless proc is running with its step
// committed then), and returns a RESTART_INVISIBILITY violation for each process whose committed
// delivery sequence differs, naming the first difference (world.CheckRestartInvisibility).
func CheckRestartInvisibility(scn *spec.Scenario, set swarm.Settings, opts RunOptions, proc string, after int) []spec.Violation {
	mustBeValid(scn)
	return world.CheckRestartInvisibility(scn, set, opts, proc, after)
}

package sim

// RESTART_INVISIBILITY (SPEC §6.1, §9.25): a restart that keeps the received-channel set is not
// observable in what is delivered or its order. Metamorphic: a run's script runs again with a
// clean restart (a stop, which commits nothing new, then a full start) of one process inserted
// at a point where that process is running with its step committed — so both runs have the same
// committed history — and every process must make the same committed deliveries in the same
// order in both runs, and the run with the restart must break no other criterion (a violation it
// finds is reported as RESTART_INVISIBILITY naming the criterion: it shows only with the restart,
// and once a restart changed the world the script's later actions may no longer mean what they
// meant, a rewind to an offset that now lies ahead, say).
//
// Where it runs:
//   - In every run whose settings switch it on (Settings.RestartCheck; the swarm switches it on
//     for a seeded share of seeds, RestartCheckSharePct): after the run, when it passed, its
//     recorded script (or its Scenario.Script) runs again with the restart inserted
//     (world.World.RestartRerun) — from a fork of the run taken at the drawn point where the run
//     allows one, which spares replaying the script up to there. The process and the point are
//     drawn from the seed's own stream, never the Chooser, so the run's choices are the same with
//     the check on or off.
//   - In every exploration, at a sampled share of its states (package explore's search).
//   - In scenario files, at the points they name (expect restart-invisible), and in Go tests
//     (CheckRestartInvisibility).
//
// What "clean" means. A process is restarted only when it is running and its step is committed
// (nothing fed, delivered or sent since its last commit, and its start's work committed): a stop
// then commits nothing, so the committed history is the one the run without the restart has.
// Mid-step, a stop would commit the step early, and a crash the run takes later would then roll
// back less than it does without the restart; while the process is down or has failed closed
// there is nothing to restart. So the restart goes at the first point at or after the drawn one
// where some process is running with its step committed, to the first such process counting from
// the drawn one, and when there is none the run is not checked (Stats.RestartChecks counts the
// checks made). One process, one point per run: each point costs a run of the script from the
// point on (of the whole script when the run took no fork).

import (
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// CheckRestartInvisibility runs scn (which must have a Script) with and without a clean restart
// of process proc after script action after (a no-op unless proc is running with its step
// committed then), and returns a RESTART_INVISIBILITY violation for each process whose committed
// delivery sequence differs, naming the first difference.
func CheckRestartInvisibility(scn *spec.Scenario, set swarm.Settings, opts RunOptions, proc string, after int) []spec.Violation {
	mustBeValid(scn)
	if len(scn.Script) == 0 {
		panic("sim: CheckRestartInvisibility needs a scripted scenario")
	}
	opts.Sinks = nil
	set.RestartCheck = swarm.RestartCheck{}
	w := world.New(scn, set, choose.NewRandom(set.Seed), opts)
	if !w.RestartAfter(proc, after) {
		return nil // RESTART_INVISIBILITY is not reported
	}
	base := run(scn, set, choose.NewRandom(set.Seed), opts, nil)
	w.Start()
	restarted := runFrom(w, scn.Script, 0, set.SafetySteps, nil)
	return oracle.CompareDeliveries(base.Deliveries, restarted.Deliveries, proc, after, after)
}

// checkRestart runs the restart check of the run w made of scn, which passed with result res,
// when its settings ask for it: the rerun with the drawn clean restart (world.World.RestartRerun)
// and the violations it finds.
func checkRestart(w *world.World, scn *spec.Scenario, res *spec.Result) []spec.Violation {
	re, from := w.RestartRerun(res)
	if re == nil {
		return nil
	}
	script := scn.Script
	if len(script) == 0 {
		script = res.Script
	}
	restarted := runFrom(re, script, from, 0, nil)
	proc, after, at := re.Restarted()
	if at < 0 {
		return nil // no process was running with its step committed from there on
	}
	res.Stats.RestartChecks++
	out := oracle.CompareDeliveries(res.Deliveries, restarted.Deliveries, proc, after, at)
	for _, v := range restarted.Violations {
		out = append(out, oracle.RestartViolation(v, proc, after, at))
	}
	return out
}

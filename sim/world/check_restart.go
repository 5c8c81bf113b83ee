package world

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
//     recorded script (or its Scenario.Script) runs again with the restart inserted. The process
//     and the point are drawn from the seed's own stream, never the Chooser, so the run's choices
//     are the same with the check on or off.
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
// checks made). One process, one point per run: each point costs a run of the whole script.

import (
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// CheckRestartInvisibility runs scn (which must have a Script) with and without a clean restart of
// process proc after script action after (a no-op unless proc is running with its step
// committed then), and returns a RESTART_INVISIBILITY violation for each
// process whose committed delivery sequence differs, naming the first difference.
func CheckRestartInvisibility(scn *spec.Scenario, set swarm.Settings, opts RunOptions, proc string, after int) []spec.Violation {
	if len(scn.Script) == 0 {
		panic("world: CheckRestartInvisibility needs a scripted scenario")
	}
	if !opts.reports(spec.CritRestartInvisibility) {
		return nil
	}
	opts.Sinks = nil
	set.RestartCheck = swarm.RestartCheck{}
	base := Run(scn, set, choose.NewRandom(set.Seed), opts)
	opts.restart = &restartPoint{proc: proc, after: after, at: -1}
	restarted := Run(scn, set, choose.NewRandom(set.Seed), opts)
	return oracle.CompareDeliveries(base.Deliveries, restarted.Deliveries, proc, after, after)
}

// checkRestart runs the restart check of a finished run whose settings ask for it: the run's
// script (scn.Script, or the script it recorded) again with the drawn clean restart, and the
// violations it finds.
func checkRestart(scn *spec.Scenario, set swarm.Settings, opts RunOptions, res *spec.Result) []spec.Violation {
	script := scn.Script
	if len(script) == 0 {
		script = res.Script
	}
	if len(script) == 0 || len(scn.Processes) == 0 {
		return nil
	}
	rc := set.RestartCheck
	after := len(script) * rc.AtPermille / 1000
	re := *scn
	re.Script = script
	set.RestartCheck = swarm.RestartCheck{}
	opts.Sinks, opts.RecordScript, opts.noReference = nil, false, true
	opts.restart = &restartPoint{after: after, orLater: true, from: rc.Process % len(scn.Processes), at: -1}
	restarted := Run(&re, set, choose.NewRandom(set.Seed), opts)
	if opts.restart.at < 0 {
		return nil // no process was running with its step committed from there on
	}
	res.Stats.RestartChecks++
	at, proc := opts.restart.at, opts.restart.proc
	out := oracle.CompareDeliveries(res.Deliveries, restarted.Deliveries, proc, after, at)
	for _, v := range restarted.Violations {
		out = append(out, oracle.RestartViolation(v, proc, after, at))
	}
	return out
}

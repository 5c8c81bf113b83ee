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
//     recorded script (or its Scenario.Script) runs again with the restart inserted — from a
//     fork of the run taken at the drawn point (restartFork) where the run allows one, which
//     spares replaying the script up to there. The process and the point are drawn from the
//     seed's own stream, never the Chooser, so the run's choices are the same with the check on
//     or off.
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
// violations it finds. fork is the run's fork (restartFork), or nil.
func checkRestart(scn *spec.Scenario, set swarm.Settings, opts RunOptions, res *spec.Result, fork *restartFork) []spec.Violation {
	restarted, rp := restartRerun(scn, set, opts, res, fork)
	if restarted == nil || rp.at < 0 {
		return nil // no process was running with its step committed from there on
	}
	res.Stats.RestartChecks++
	out := oracle.CompareDeliveries(res.Deliveries, restarted.Deliveries, rp.proc, rp.after, rp.at)
	for _, v := range restarted.Violations {
		out = append(out, oracle.RestartViolation(v, rp.proc, rp.after, rp.at))
	}
	return out
}

// restartRerun runs checkRestart's rerun (continuing fork if it was taken at the drawn point) and
// returns its result and where the restart went (at -1: nowhere); nil without script or process.
func restartRerun(scn *spec.Scenario, set swarm.Settings, opts RunOptions, res *spec.Result, fork *restartFork) (*spec.Result, *restartPoint) {
	script := scn.Script
	if len(script) == 0 {
		script = res.Script
	}
	if len(script) == 0 || len(scn.Processes) == 0 {
		return nil, nil
	}
	rc := set.RestartCheck
	after := len(script) * rc.AtPermille / 1000
	re := *scn
	re.Script = script
	set.RestartCheck = swarm.RestartCheck{}
	opts.Sinks, opts.RecordScript, opts.noReference, opts.fork = nil, false, true, nil
	opts.restart = &restartPoint{after: after, orLater: true, from: rc.Process % len(scn.Processes), at: -1}
	if fork != nil && fork.world != nil && fork.at == after {
		return fork.rerun(&re, &set, &opts), opts.restart
	}
	return Run(&re, set, choose.NewRandom(set.Seed), opts), opts.restart
}

// restartFork is a swarm run's fork for its restart check (RunOptions.fork; none in a scripted
// run or on a live substrate, which a clone cannot copy): a copy-on-write clone of the run's world
// before safety step at, which the check continues instead of replaying the recorded script up to
// there. A replayed script makes the run it was recorded from, so the fork is the rerun's world
// before script action at, but for what World.fork sets apart. The point is planned for a script
// of SafetySteps actions; when the run records another number, the check replays the whole script.
type restartFork struct {
	at    int    // the safety steps taken at the fork
	world *World // the fork, nil until taken (and when it is not)
}

// before is told of the run's world w before safety step n, and takes the fork at the planned
// point if every step so far recorded its action (a step records at most one). f may be nil.
func (f *restartFork) before(w *World, n int) {
	if f != nil && n == f.at && len(w.script) == n {
		f.world = w.fork()
	}
}

// fork returns a copy of w (World.cloneInto) that goes on by itself while w goes on with its run:
// its own data streams, clock stream and process sets, no trace, no script recorded, no chooser
// (nothing chooses in a scripted run or a liveness phase) and no reference nodes (REFERENCE
// disabled, as the rerun's noReference leaves them out).
func (w *World) fork() *World {
	c := w.cloneInto(nil, w.streams.IDsSource(), choose.NewReplay(nil)) // IDs from a copy of w's
	c.streams = w.streams.Fork(c.idsRand)
	c.clock.DrawFrom(c.streams.Durations)
	c.readers, c.declarers, c.topicIncs = w.readers.Clone(), w.declarers.Clone(), w.topicIncs.Clone()
	c.tracing = false
	c.or.Disable(spec.CritReference) // no reference node starts from now on
	for _, p := range c.procs {
		p.ref.Drop() // and those running end here
	}
	return c
}

// rerun continues the fork as the rerun of scn's script under set and opts: the script from its
// point on, the restart inserted, the liveness phase and the end-of-run checks. The fork first
// owns every process (proc.own): scripted actions change a process without owning it, as only a
// run's own world runs them, and the fork's processes still share their state with the run's.
// What else the fork shares with its run (the model, the oracle, the sessions, the refusal
// counts) is copied on change on either side, as between the explorer's clones.
func (f *restartFork) rerun(scn *spec.Scenario, set *swarm.Settings, opts *RunOptions) *spec.Result {
	c := f.world
	c.scn, c.set, c.opts = scn, set, opts
	c.ownAll()
	for i := f.at; i < len(scn.Script); i++ {
		c.runScripted(i, &scn.Script[i])
		c.maybeRestart(i)
	}
	c.finish()
	return c.result()
}

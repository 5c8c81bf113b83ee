package world

// The world's side of the RESTART_INVISIBILITY check (package sim's check_restart.go, which runs
// it and says what it checks): the rerun a run's check makes (RestartRerun), the fork of the run
// it continues where the run allows one (restartFork), and the restart a Go test or a scenario
// file asks for (RestartAfter). The restart itself is world_restart.go's.

import (
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// RestartAfter asks the world, not yet started, for a clean restart of process proc after script
// action after (a no-op unless proc is running with its step committed then): the restarted run of
// package sim's CheckRestartInvisibility, which sets no restart point otherwise. It reports false,
// and asks for nothing, when the run does not report RESTART_INVISIBILITY (RunOptions.Disabled).
func (w *World) RestartAfter(proc string, after int) bool {
	if !w.opts.reports(spec.CritRestartInvisibility) {
		return false
	}
	w.opts.restart = &restartPoint{proc: proc, after: after, at: -1}
	return true
}

// RestartRerun returns the rerun of the restart check of the run w made (New), given the run's
// result res: a world that makes the run's script (its scenario's, or the one it recorded) again
// with a clean restart inserted at the first point from the drawn one where some process is
// running with its step committed, started and at script action from. It continues the run's
// fork when the fork was taken at the drawn point (restartFork), which spares replaying the
// script up to there, and is a new world at action 0 otherwise. Package sim's run skeleton runs
// it on (Scripted, Finish, Result) and compares it with the run (Restarted). nil when the run's
// check is off, or it has no script or no process.
func (w *World) RestartRerun(res *spec.Result) (re *World, from int) {
	scn, set, opts := *w.scn, *w.set, *w.opts
	if len(scn.Script) == 0 {
		scn.Script = res.Script
	}
	if !opts.restartCheck || len(scn.Script) == 0 || len(scn.Processes) == 0 {
		return nil, 0
	}
	rc := set.RestartCheck
	after := len(scn.Script) * rc.AtPermille / 1000
	set.RestartCheck = swarm.RestartCheck{}
	opts.Sinks, opts.RecordScript, opts.noReference, opts.restartCheck, opts.fork = nil, false, true, false, nil
	opts.restart = &restartPoint{after: after, orLater: true, from: rc.Process % len(scn.Processes), at: -1}
	if f := w.opts.fork; f != nil && f.world != nil && f.at == after {
		return f.continued(&scn, &set, &opts), f.at
	}
	re = newWorld(&scn, &set, choose.NewRandom(set.Seed), &opts)
	re.Start()
	return re, 0
}

// Restarted says where the clean restart a rerun was asked for went (RestartRerun, RestartAfter):
// to process proc, after script action at (-1: nowhere), asked for after action after. Package
// sim's restart check names the point in the violations it reports.
func (w *World) Restarted() (proc string, after, at int) {
	rp := w.opts.restart
	return rp.proc, rp.after, rp.at
}

// restartFork is a swarm run's fork for its restart check (RunOptions.fork; none in a scripted
// run or on a live substrate, which a clone cannot copy): a copy-on-write clone of the run's world
// before safety step at, which the check continues instead of replaying the recorded script up to
// there. A replayed script makes the run it was recorded from, so the fork is the rerun's world
// before script action at, but for what World.fork sets apart. The point is planned for a script
// of SafetySteps actions; when the run records another number, the check replays the whole script.
type restartFork struct {
	at    int    // the safety steps taken at the fork
	steps int    // the safety steps the run has taken so far
	world *World // the fork, nil until taken (and when it is not)
}

// before is told of the run's world w before each safety step, and takes the fork at the planned
// point if every step so far recorded its action (a step records at most one). f may be nil.
func (f *restartFork) before(w *World) {
	if f == nil {
		return
	}
	if f.steps == f.at && len(w.script) == f.at {
		f.world = w.fork()
	}
	f.steps++
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

// continued returns the fork as the rerun of scn's script under set and opts, at script action
// at. The fork first owns every process (proc.own): scripted actions change a process without
// owning it, as only a run's own world runs them, and the fork's processes still share their
// state with the run's. What else the fork shares with its run (the model, the oracle, the
// sessions, the refusal counts) is copied on change on either side, as between the explorer's
// clones.
func (f *restartFork) continued(scn *spec.Scenario, set *swarm.Settings, opts *RunOptions) *World {
	c := f.world
	c.scn, c.set, c.opts = scn, set, opts
	c.ownAll()
	return c
}

package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/persistent"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/sim/world/streams"
	"github.com/parsleysim/parsleysim/substrate"
)

// RunOptions are the parts of a run that are not settings: sabotage and the trace sinks.
type RunOptions struct {
	Sabotage     node.Sabotage     // engine sabotage (zero = honest)
	HostSabotage spec.HostSabotage // host sabotage (zero = honest)
	Sinks        []trace.Sink      // every event goes to each, in order
	// RecordScript makes Result.Script the safety phase's actions as a script: the same run
	// replayed as Scenario.Script, robust to actions being removed or inserted.
	RecordScript bool
	// Disabled lists criteria the oracle does not report (a disabled REFERENCE does not even run
	// its reference nodes, a disabled RESTART_INVISIBILITY no restart check): for `simrun sweep
	// --without`, which measures what the checks cost, and for tests that show what a criterion
	// alone catches (the run passes without it) or judge what the other criteria catch (a diagram
	// of the S1 violation IGNORE_CAUSES makes).
	Disabled []spec.Criterion
	// Substrate, when not nil, makes each world's Kafka from its topic IDs and step (nil: the model).
	Substrate func(ids func() substrate.TopicID, step func() int) substrate.Substrate

	// streams are the data streams (zero: streams.New(set.Seed)); only the explorer sets them.
	streams streams.Streams
	hooks   *testHooks
	// persistentTweaks change the persistent sets' computation (ExplorePersistent), for the tests
	// that check it.
	persistentTweaks persistent.Tweaks
	// explored says the world is a state of an exploration, which the explorer clones and
	// hashes: every engine journals its calls (package engine) and the scheduling
	// heuristics skip their weighing (World.explored). Only the explorer sets it.
	explored     bool
	restart      *restartPoint
	noReference  bool         // no reference nodes: the restart check's rerun (REFERENCE judged the first run)
	restartCheck bool         // the run's restart check is on (New; RestartRerun)
	fork         *restartFork // the restart check's fork of the run (check_restart.go), nil for none
}

// reports reports whether the oracle reports violations of criterion c (RunOptions.Disabled).
func (o *RunOptions) reports(c spec.Criterion) bool { return !slices.Contains(o.Disabled, c) }

// The phases of one run, which package sim's run skeleton calls in order for every run it makes
// (a random or replayed run, an observed one, the restart check's rerun): New, Start, the safety
// phase (Scripted for each action of a script, or SafetyStep for each of the scheduler's steps),
// Finish, Result. An exploration's root is a started world (ExploreRoot), and its terminal
// states and replayed paths end with Finish (explore_seam.go). They are exported for that
// skeleton, which reads the world between them through a View.

// New returns the world of one run of scn (a valid scenario) under set, making every schedule and
// fault decision through ch. When set.RestartCheck asks for the restart check (and the run is
// given no data streams, which cannot be drawn again, and reports RESTART_INVISIBILITY), the
// world records its script for the check's rerun and, for a swarm run on the model, plans the
// fork the rerun continues (RestartRerun).
func New(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *World {
	if set.RestartCheck.On && opts.streams.IsZero() && opts.reports(spec.CritRestartInvisibility) {
		opts.restartCheck, opts.RecordScript = true, true
		if len(scn.Script) == 0 && opts.Substrate == nil {
			opts.fork = &restartFork{at: set.SafetySteps * set.RestartCheck.AtPermille / 1000}
		}
	}
	return newWorld(scn, &set, ch, &opts)
}

// Start starts every process, each as a step of its own: the first phase of a run.
func (w *World) Start() {
	w.hooks = w.opts.hooks
	for _, p := range w.procs {
		w.step++
		w.action = spec.ActStart
		p.start(true)
	}
}

// Scripted performs action i of the scenario's script as one step, then the clean restart planned
// after it, if any (RestartRerun, RestartAfter): a step of a scripted run's safety phase.
func (w *World) Scripted(i int) {
	w.runScripted(i, &w.scn.Script[i])
	w.maybeRestart(i)
}

// SafetyStep takes one step of a swarm run's safety phase: the fork the restart check planned at
// this step, if any (restartFork), then an enabled action chosen through the world's chooser. It
// returns false, and does nothing more, when nothing is enabled.
func (w *World) SafetyStep() bool {
	w.opts.fork.before(w)
	_, ok := w.scheduledStep(nil) // the masks the memo keeps
	return ok
}

// scheduledStep chooses an enabled action through the world's chooser and performs it as one
// step, returning its kind; ok is false, and nothing is done, when nothing is enabled. masks is
// scratch of one entry per process, or nil for the masks the memo keeps (chooseAction).
func (w *World) scheduledStep(masks []explore.Mask) (k spec.ActionKind, ok bool) {
	if k, ok = w.chooseAction(masks); ok {
		w.step++
		w.do(k, masks)
	}
	return k, ok
}

// Finish ends the safety phase and runs the liveness phase (unless the settings switch it off)
// and the end-of-run checks, after telling the test hooks of a state an exploration ends; it
// implements explore.World too.
func (w *World) Finish() {
	if w.hooks != nil && w.hooks.finishing != nil {
		w.hooks.finishing(w)
	}
	w.stats.SafetySteps = w.step
	if w.set.LivenessStepsMax > 0 {
		w.livenessPhase()
	}
	w.or.OnRunEnd(w.at(), w.set.LivenessStepsMax > 0)
}

// Result is the run's result as it stands; it implements explore.World too.
func (w *World) Result() *spec.Result {
	w.or.FillStats(&w.stats, w.clock.Now())
	r := &spec.Result{Seed: w.set.Seed, Verdict: "pass", Violations: w.or.Violations(), Stats: w.stats,
		Steps: w.step, Choices: w.chooser.Choices(), Script: w.script}
	if len(w.or.Violations()) > 0 {
		r.Verdict = "violation"
	}
	r.Deliveries = make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		r.Deliveries[i] = p.o.DeliverySequence()
	}
	return r
}

// View is what an observer reads of the world between phases (package sim's snapshots of a run).
func (w *World) View() View { return View{w} }

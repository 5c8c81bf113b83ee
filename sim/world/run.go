package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
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
	// its reference nodes), for tests only: one that shows what a criterion alone catches (the run
	// passes without it), or that judges what the other criteria catch (a diagram of the S1
	// violation IGNORE_CAUSES makes). No command sets it.
	Disabled []spec.Criterion
	// Substrate, when not nil, makes each world's Kafka from its topic IDs and step (nil: the model).
	Substrate func(ids func() substrate.TopicID, step func() int) substrate.Substrate

	// streams are the data streams (zero: streams.New(set.Seed)); only the explorer sets them.
	streams streams.Streams
	hooks   *testHooks
	// explored says the world is a state of an exploration, which the explorer clones and
	// hashes: every engine journals its calls (package engine) and the scheduling
	// heuristics skip their weighing (World.explored). Only the explorer sets it.
	explored    bool
	restart     *restartPoint
	noReference bool         // no reference nodes: the restart check's rerun (REFERENCE judged the first run)
	fork        *restartFork // the restart check's fork of the run (check_restart.go), nil for none
}

// reports reports whether the oracle reports violations of criterion c (RunOptions.Disabled).
func (o *RunOptions) reports(c spec.Criterion) bool { return !slices.Contains(o.Disabled, c) }

// Run executes one run of scn under set, making every schedule and fault decision through ch:
// the safety phase (set.SafetySteps actions chosen by ch, or scn.Script when given), then the
// liveness phase (faults off; every process started, fed, drained and committed until nothing
// moves, at most set.LivenessStepsMax actions; skipped when that is 0), then the end-of-run
// checks, and, when set.RestartCheck asks for it and the run passed, the restart check
// (check_restart.go: the script once more with a clean restart inserted; not with
// data streams given, which cannot be drawn again). It is deterministic: no map order, goroutine or wall clock reaches the result.
func Run(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *spec.Result {
	return RunObserved(scn, set, ch, opts, nil)
}

// RunObserved is Run with the run's phases told to obs (nil: not observed): the observer reads
// the world between actions, so it sees the run Run makes (package sim's RunObserved builds its
// snapshots so). The restart check's rerun is not observed.
func RunObserved(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions, obs Observer) *spec.Result {
	if err := scn.Validate(); err != nil {
		panic("world: " + err.Error())
	}
	check := set.RestartCheck.On && opts.restart == nil && opts.streams.IsZero() && opts.reports(spec.CritRestartInvisibility)
	caller := opts
	if check {
		opts.RecordScript = true
		if len(scn.Script) == 0 && opts.Substrate == nil {
			opts.fork = &restartFork{at: set.SafetySteps * set.RestartCheck.AtPermille / 1000}
		}
	}
	res := newWorld(scn, &set, ch, &opts).runObserved(obs)
	if check && res.Verdict == "pass" {
		if vs := checkRestart(scn, set, caller, res, opts.fork); len(vs) > 0 {
			res.Violations, res.Verdict = append(res.Violations, vs...), "violation"
		}
	}
	if !caller.RecordScript {
		res.Script = nil
	}
	return res
}

// The run skeleton: startAll, the safety phase (a script, the scheduler's steps, or an
// exploration's), finish. Run and RunObserved run it whole (World.runObserved); an exploration
// starts its root with startAll and ends terminal states and replayed paths with finish.

// Observer is told of a run's progress and reads the world through a View between actions
// (package sim's snapshots of a scripted run): Started after the initial starts, Scripted after
// script action i, Finished after the end-of-run checks, with the result.
type Observer interface {
	Started(v View)
	Scripted(v View, i int)
	Finished(v View, res *spec.Result)
}

// runObserved executes the phases of a run, observed by obs when not nil, and returns its result.
func (w *World) runObserved(obs Observer) *spec.Result {
	w.startAll()
	if obs != nil {
		obs.Started(View{w})
	}
	if script := w.scn.Script; len(script) > 0 {
		for i := range script {
			w.runScripted(i, &script[i])
			w.maybeRestart(i)
			if obs != nil {
				obs.Scripted(View{w}, i)
			}
		}
	} else {
		w.safetyPhase()
	}
	w.finish()
	res := w.result()
	if obs != nil {
		obs.Finished(View{w}, res)
	}
	return res
}

// startAll starts every process, each as a step of its own.
func (w *World) startAll() {
	w.hooks = w.opts.hooks
	for _, p := range w.procs {
		w.step++
		w.action = spec.ActStart
		p.start(true)
	}
}

// safetyPhase runs the scheduled actions of the safety phase.
func (w *World) safetyPhase() {
	for n := 0; n < w.set.SafetySteps; n++ {
		w.opts.fork.before(w, n)
		if _, ok := w.scheduledStep(nil); !ok { // the masks the memo keeps
			return
		}
	}
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

// finish ends the safety phase and runs the liveness phase (unless the settings switch it off)
// and the end-of-run checks.
func (w *World) finish() {
	w.stats.SafetySteps = w.step
	if w.set.LivenessStepsMax > 0 {
		w.livenessPhase()
	}
	w.or.OnRunEnd(w.at(), w.set.LivenessStepsMax > 0)
}

// result assembles the Result.
func (w *World) result() *spec.Result {
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

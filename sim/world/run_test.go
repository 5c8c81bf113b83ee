package world

import (
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// This package's tests run whole runs as package sim's run skeleton does (sim/run.go, whose Run
// the package cannot import: sim imports world), to set the options only tests set
// (RunOptions.hooks) and to reach the world a run leaves.

// runWhole runs scn as sim.Run does: the phases, then the restart check when the settings ask
// for it and the run passed.
func runWhole(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *spec.Result {
	w := New(scn, set, ch, opts)
	res := w.run()
	if res.Verdict == "pass" {
		if vs := w.checkRestart(res); len(vs) > 0 {
			res.Violations, res.Verdict = append(res.Violations, vs...), "violation"
		}
	}
	if !opts.RecordScript {
		res.Script = nil
	}
	return res
}

// run executes the phases of a run from its start and returns its result: a test's run of a
// world it built or tampered with itself.
func (w *World) run() *spec.Result {
	w.Start()
	return w.runFrom(0)
}

// runFrom runs the started world from script action from on (the safety phase's scheduled steps
// when its scenario has no script), then Finish, and returns the result.
func (w *World) runFrom(from int) *spec.Result {
	if script := w.scn.Script; len(script) > 0 {
		for i := from; i < len(script); i++ {
			w.Scripted(i)
		}
	} else {
		for n := 0; n < w.set.SafetySteps && w.SafetyStep(); n++ {
		}
	}
	w.Finish()
	return w.Result()
}

// checkRestart runs the restart check of the run w made, which passed with res, as sim's does.
func (w *World) checkRestart(res *spec.Result) []spec.Violation {
	re, from := w.RestartRerun(res)
	if re == nil {
		return nil
	}
	restarted := re.runFrom(from)
	proc, after, at := re.Restarted()
	if at < 0 {
		return nil
	}
	res.Stats.RestartChecks++
	out := oracle.CompareDeliveries(res.Deliveries, restarted.Deliveries, proc, after, at)
	for _, v := range restarted.Violations {
		out = append(out, oracle.RestartViolation(v, proc, after, at))
	}
	return out
}

// checkRestartInvisibility is sim.CheckRestartInvisibility.
func checkRestartInvisibility(scn *spec.Scenario, set swarm.Settings, opts RunOptions, proc string, after int) []spec.Violation {
	opts.Sinks = nil
	set.RestartCheck = swarm.RestartCheck{}
	w := New(scn, set, choose.NewRandom(set.Seed), opts)
	if !w.RestartAfter(proc, after) {
		return nil
	}
	base := runWhole(scn, set, choose.NewRandom(set.Seed), opts)
	restarted := w.run()
	return oracle.CompareDeliveries(base.Deliveries, restarted.Deliveries, proc, after, after)
}

// TestRunDeterministic: the same seed gives the same event sequence, result and choices; another
// seed gives another run.
func TestRunDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		run := func() (*spec.Result, []trace.Event) {
			sink := &trace.CollectSink{}
			res := runWhole(diamondScenario(), swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{sink}})
			return res, sink.Events
		}
		r1, e1 := run()
		r2, e2 := run()
		if rep := trace.CompareTraces(e1, e2); !rep.Identical {
			t.Fatalf("seed %d: %s", seed, rep)
		}
		if !slices.Equal(r1.Choices, r2.Choices) || r1.Stats.EndMicros != r2.Stats.EndMicros || r1.Stats.Deliveries != r2.Stats.Deliveries {
			t.Fatalf("seed %d: results differ", seed)
		}
		if len(e1) == 0 {
			t.Fatalf("seed %d: no events", seed)
		}
	}
	_, a := runEvents(1)
	_, b := runEvents(2)
	if trace.CompareTraces(a, b).Identical {
		t.Fatal("seeds 1 and 2 gave the same trace")
	}
}

func runEvents(seed uint64) (*spec.Result, []trace.Event) {
	sink := &trace.CollectSink{}
	res := runWhole(diamondScenario(), swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{sink}})
	return res, sink.Events
}

// TestReplayChooserReproducesRun: replaying a run's recorded choices reproduces its trace.
func TestReplayChooserReproducesRun(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		res, events := runEvents(seed)
		sink := &trace.CollectSink{}
		replay := choose.NewReplay(res.Choices)
		runWhole(diamondScenario(), swarm.ExpandSettings(seed), replay, RunOptions{Sinks: []trace.Sink{sink}})
		if rep := trace.CompareTraces(events, sink.Events); !rep.Identical || replay.Err() != nil {
			t.Fatalf("seed %d: %s %v", seed, rep, replay.Err())
		}
	}
}

// TestVirtualTimeStats: a run with deliveries reports consistent latency figures.
func TestVirtualTimeStats(t *testing.T) {
	res := runScripted(diamond(diamondInversion...), RunOptions{}, true)
	s := res.Stats
	if s.Deliveries == 0 || s.EndToEndLatency.Count != s.Deliveries || s.EndMicros <= 0 || s.DeliveriesPerVirtualSecond <= 0 {
		t.Fatalf("stats %+v", s)
	}
	if s.HoldLatency.Count == 0 || s.HoldLatency.MaxMicros < s.HoldLatency.P50Micros || s.EndToEndLatency.MaxMicros < s.HoldLatency.MaxMicros {
		t.Fatalf("latencies %+v %+v", s.HoldLatency, s.EndToEndLatency)
	}
}

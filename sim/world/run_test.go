package world

import (
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// run executes the phases of a run, unobserved, and returns its result: a test's run of a world
// it built or tampered with itself.
func (w *World) run() *spec.Result { return w.runObserved(nil) }

// TestRunDeterministic: the same seed gives the same event sequence, result and choices; another
// seed gives another run.
func TestRunDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		run := func() (*spec.Result, []trace.Event) {
			sink := &trace.CollectSink{}
			res := Run(diamondScenario(), swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{sink}})
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
	res := Run(diamondScenario(), swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{sink}})
	return res, sink.Events
}

// TestReplayChooserReproducesRun: replaying a run's recorded choices reproduces its trace.
func TestReplayChooserReproducesRun(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		res, events := runEvents(seed)
		sink := &trace.CollectSink{}
		replay := choose.NewReplay(res.Choices)
		Run(diamondScenario(), swarm.ExpandSettings(seed), replay, RunOptions{Sinks: []trace.Sink{sink}})
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

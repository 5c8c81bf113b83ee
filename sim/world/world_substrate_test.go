package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/substrate"
)

// interfaceOnly hides a substrate's type behind the interface, so a world over it takes the
// paths a live substrate takes (ListOffsets and CommittedOffsets instead of the model's own).
type interfaceOnly struct{ substrate.Substrate }

// TestWorldOverTheInterface: a world over the model seen only through substrate.Substrate runs
// the same as a world over the model itself, event for event, liveness phase included.
func TestWorldOverTheInterface(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		set := swarm.ExpandSettings(seed)
		set.LivenessStepsMax = 1000
		direct, viaInterface := &trace.CollectSink{}, &trace.CollectSink{}
		want := runWhole(diamondScenario(), set, choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{direct}})
		made := 0
		got := runWhole(diamondScenario(), set, choose.NewRandom(seed), RunOptions{Sinks: []trace.Sink{viaInterface},
			Substrate: func(ids func() substrate.TopicID, _ func() int) substrate.Substrate {
				made++
				return interfaceOnly{substrate.NewModel(ids)}
			}})
		if made == 0 {
			t.Fatalf("seed %d: the world did not make its substrate with RunOptions.Substrate", seed)
		}
		if rep := trace.CompareTraces(direct.Events, viaInterface.Events); !rep.Identical {
			t.Fatalf("seed %d: %s", seed, rep)
		}
		if want.Verdict != got.Verdict || want.Stats.Deliveries != got.Stats.Deliveries || want.Stats.EndMicros != got.Stats.EndMicros {
			t.Fatalf("seed %d: results differ: %s/%d vs %s/%d", seed, want.Verdict, want.Stats.Deliveries, got.Verdict, got.Stats.Deliveries)
		}
	}
}

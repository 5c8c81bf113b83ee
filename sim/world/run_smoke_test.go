package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// diamondScenario is E→p1→mid; p2 receives E and mid (the effect can arrive before its cause).
func diamondScenario() *spec.Scenario {
	return &spec.Scenario{
		Name: "diamond",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "mid", Partitions: 1},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"in"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"in", "mid"}, Sends: []string{"out"}},
		},
	}
}

func TestSmokeHonest(t *testing.T) {
	for seed := uint64(1); seed <= 1000; seed++ {
		set := swarm.ExpandSettings(seed)
		res := runWhole(diamondScenario(), set, choose.NewRandom(seed), RunOptions{})
		if res.Verdict != "pass" {
			for _, v := range res.Violations {
				t.Errorf("seed %d: %v", seed, v)
			}
		}
		t.Logf("seed %d: steps %d deliveries %d holds %d refusals %v", seed, res.Steps, res.Stats.Deliveries, res.Stats.Holds, res.Stats.Refusals)
	}
}

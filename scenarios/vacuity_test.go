package scenarios

import (
	"context"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// vacuitySeeds is the CI sweep the vacuity guard reads: the honest random scenario over seeds
// 1-vacuitySeeds (about a second on two cores).
const vacuitySeeds = 200

// TestVacuityGuard: a sweep that never built a shape or never hit a fault proves nothing about
// it. Across the CI sweep every generator feature appears, every action kind is taken, and the
// runs deliver, hold, release held messages, crash, roll back, recreate topics, truncate logs
// and refuse.
func TestVacuityGuard(t *testing.T) {
	features := map[Feature]int{}
	rep, err := Sweep(context.Background(), SweepConfig{First: 1, Last: vacuitySeeds, Visit: func(o SeedOutcome) {
		topo, err := RandomTopology(o.Seed, RandomOptions{})
		if err != nil {
			t.Errorf("seed %d: %v", o.Seed, err)
			return
		}
		for _, f := range topo.Features() {
			features[f]++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() > 0 {
		t.Errorf("the honest sweep failed on seeds %v (first: %s)", rep.FailedSeeds, rep.Failures[0].Replay)
	}
	for _, f := range AllFeatures() {
		if features[f] == 0 {
			t.Errorf("feature %s appears in none of seeds 1-%d", f, vacuitySeeds)
		}
	}
	for _, k := range spec.ActionKinds() {
		if c := rep.Exercised.Count(ActionCounter(k)); c.Total == 0 {
			t.Errorf("action kind %s taken in none of seeds 1-%d", k, vacuitySeeds)
		}
	}
	for _, name := range []string{"deliveries", "holds", "held_then_released", "crashes", "rollbacks",
		"recreations", "truncations"} {
		if c := rep.Exercised.Count(name); c.Total == 0 {
			t.Errorf("%s: zero over seeds 1-%d (or spec.Stats has no such counter)", name, vacuitySeeds)
		}
	}
	refusals := 0
	for _, name := range rep.Exercised.Names() {
		if strings.HasPrefix(name, refusalCounter("")) {
			refusals += int(rep.Exercised.Count(name).Total)
		}
	}
	if refusals == 0 {
		t.Errorf("no refusal over seeds 1-%d", vacuitySeeds)
	}
	t.Logf("features %v; refusals %d", features, refusals)
}

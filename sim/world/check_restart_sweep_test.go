package world_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// TestRestartForkMatchesRerunOnSweeps holds the restart check's fork to the whole rerun
// (world.ForkMatchesRerun) on the scenarios the sweeps run: the random and the session scenario
// of each seed under its own settings, honest and under a sabotage mode drawn from the seed,
// with the restart check switched on at a point and a process drawn from the seed (and the
// liveness phase off on one seed in four, so the run leaves processes it never owned again).
func TestRestartForkMatchesRerunOnSweeps(t *testing.T) {
	seeds := uint64(80)
	if testing.Short() {
		seeds = 20
	}
	modes := spec.SabotageModes()
	var n [world.ForkContinued + 1]int
	for _, name := range []string{scenarios.RandomName, scenarios.SessionName} {
		for seed := uint64(1); seed <= seeds; seed++ {
			for _, sabotage := range []string{"", modes[seed%uint64(len(modes))].Name} {
				p, err := scenarios.Spec{Scenario: name, Seed: seed, Sabotage: sabotage}.Prepare()
				if err != nil {
					t.Fatal(err)
				}
				set := p.Settings
				set.RestartCheck = swarm.RestartCheck{On: true, Process: int(seed * 7), AtPermille: int(seed * 389 % 1000)}
				if seed%4 == 0 {
					set.LivenessStepsMax = 0
				}
				f, err := world.ForkMatchesRerun(func() *spec.Scenario { return p.Scenario }, set, p.Options)
				if err != nil {
					t.Fatalf("%s seed %d sabotage %q: %v", name, seed, sabotage, err)
				}
				n[f]++
			}
		}
	}
	t.Logf("%d reruns continued a fork and restarted, %d continued one without a restart, %d replayed the whole script",
		n[world.ForkContinued], n[world.ForkUnrestarted], n[world.ForkNotTaken])
	if n[world.ForkContinued] < 2*n[world.ForkNotTaken] || n[world.ForkContinued] < int(seeds) {
		t.Fatalf("only %d of %d checked runs forked and restarted", n[world.ForkContinued], n[world.ForkContinued]+n[world.ForkUnrestarted]+n[world.ForkNotTaken])
	}
}

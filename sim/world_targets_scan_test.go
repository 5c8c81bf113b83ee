package sim_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim"
)

// TestFaultTargetsMatchScan holds the memo of fault targets to the scan over every process it
// replaces, before every action choice of random seeds, small and generated large topologies: a
// change to a process, a channel's log or a topic that does not mark the contributions it affects
// stale makes the two disagree.
func TestFaultTargetsMatchScan(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	checks, yes := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, n := range []int{0, 60} {
			c, y, err := sim.FaultTargetsChecked(scenarios.Random(seed, scenarios.RandomOptions{Processes: n}), seed)
			if err != nil {
				t.Fatalf("processes %d: %v", n, err)
			}
			checks, yes = checks+c, yes+y
		}
	}
	if yes == 0 || yes == checks {
		t.Fatalf("%d answers compared, %d of them true: the runs exercise nothing", checks, yes)
	}
	t.Logf("%d answers compared, %d true", checks, yes)
}

// TestExternalWeightsMatchScan holds the produce weights chooseExternal offers from the declarer
// counts the memo keeps to externalWeight's scan of every declarer, before every action choice of
// random seeds, small and generated large topologies: a change to a process or a channel's log
// that does not mark the counts stale makes the two disagree.
func TestExternalWeightsMatchScan(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	checks, above := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, n := range []int{0, 60} {
			c, a, err := sim.ExternalWeightsChecked(scenarios.Random(seed, scenarios.RandomOptions{Processes: n}), seed)
			if err != nil {
				t.Fatalf("processes %d: %v", n, err)
			}
			checks, above = checks+c, above+a
		}
	}
	if above == 0 || above == checks {
		t.Fatalf("%d weights compared, %d of them above 1: the runs exercise nothing", checks, above)
	}
	t.Logf("%d weights compared, %d above 1", checks, above)
}

// TestActionMasksMatchScan holds the action masks the memo keeps, and its index of each kind's
// processes, to maskOf over every process before every action choice of random seeds, small and
// generated large topologies: a change to a process, a channel's log or a feed pause's age that
// does not mark the masks it affects stale makes the two disagree; so does an identity report
// remembered past a deletion or a new incarnation.
func TestActionMasksMatchScan(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	checks, set := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, n := range []int{0, 60} {
			c, s, err := sim.MasksChecked(scenarios.Random(seed, scenarios.RandomOptions{Processes: n}), seed)
			if err != nil {
				t.Fatalf("processes %d: %v", n, err)
			}
			checks, set = checks+c, set+s
		}
	}
	if set == 0 || set == checks {
		t.Fatalf("%d masks compared, %d of them not empty: the runs exercise nothing", checks, set)
	}
	t.Logf("%d masks compared, %d not empty", checks, set)
}

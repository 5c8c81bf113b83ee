package world_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world"
)

// TestFaultTargetsMatchScan holds the memo of fault targets to the scan over every process it
// replaces, before every action choice of random seeds, small and generated large topologies: a
// change to a process, a channel's log or a topic that does not mark the contributions it affects
// stale makes the two disagree.
func TestFaultTargetsMatchScan(t *testing.T) {
	matchScan(t, world.FaultTargetsChecked, "answers", "true")
}

// TestExternalWeightsMatchScan holds the produce weights chooseExternal offers from the declarer
// counts the memo keeps to externalWeight's scan of every declarer, before every action choice of
// random seeds, small and generated large topologies: a change to a process or a channel's log
// that does not mark the counts stale makes the two disagree.
func TestExternalWeightsMatchScan(t *testing.T) {
	matchScan(t, world.ExternalWeightsChecked, "weights", "above 1")
}

// TestActionMasksMatchScan holds the action masks the memo keeps, and its index of each kind's
// processes, to maskOf over every process before every action choice of random seeds, small and
// generated large topologies: a change to a process, a channel's log or a feed pause's age that
// does not mark the masks it affects stale makes the two disagree; so does an identity report
// remembered past a deletion or a new incarnation.
func TestActionMasksMatchScan(t *testing.T) {
	matchScan(t, world.MasksChecked, "masks", "not empty")
}

// matchScan runs check (a run of a scenario and seed that compares a memo with its scan before
// every action choice, returning how many answers it compared and how many of them were
// non-trivial) over random seeds at the default size and at 60 processes. It fails on the first
// disagreement, and when every answer compared was trivial, or none was: runs that exercise
// nothing prove nothing.
func matchScan(t *testing.T, check func(*spec.Scenario, uint64) (compared, nontrivial int, err error), noun, nontrivialMeans string) {
	t.Helper()
	seeds := uint64(150)
	if testing.Short() {
		seeds = 30
	}
	compared, nontrivial := 0, 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, n := range []int{0, 60} {
			c, nt, err := check(scenarios.Random(seed, scenarios.RandomOptions{Processes: n}), seed)
			if err != nil {
				t.Fatalf("processes %d: %v", n, err)
			}
			compared, nontrivial = compared+c, nontrivial+nt
		}
	}
	if nontrivial == 0 || nontrivial == compared {
		t.Fatalf("%d %s compared, %d of them %s: the runs exercise nothing", compared, noun, nontrivial, nontrivialMeans)
	}
	t.Logf("%d %s compared, %d %s", compared, noun, nontrivial, nontrivialMeans)
}

// TestDueFactsMatchScan holds the facts the due fail-closed rule reads from the memo (the aimable
// receivers, the deletion quarry, an aged deletion target) to the same facts computed by a scan of
// every process, before every action choice of random seeds, small and generated large topologies: a
// change to a process, a channel's log or a topic that does not mark the contributions it affects
// stale makes the two disagree.
func TestDueFactsMatchScan(t *testing.T) {
	matchScan(t, world.DueFactsChecked, "answers", "true or above 0")
}

// TestActionKindsMatchScan holds the list the action choice draws from (the enabled kinds from
// worldKinds and the memo's masks, their weights and total as choose.Options) to each kind's
// enabledness asked alone and to the list written out, before every action choice of random
// seeds, small and generated large topologies.
func TestActionKindsMatchScan(t *testing.T) {
	matchScan(t, world.KindsChecked, "kinds", "enabled")
}

package sim

import (
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// Exhaustive exploration of a small scope: the search is package explore's (depth-first over
// every answer the Chooser can give, deduplicated by canonical hash, reduced by persistent and
// sleep sets, sequential, parallel or sharded); what it explores, and the world's side of the
// seam (the root, the canonical hash, the persistent sets), is package world's
// (world.ExploreConfig).

// ExploreOptions configure one exploration (world.ExploreOptions).
type ExploreOptions = world.ExploreOptions

// ExploreResult is what an exploration found (explore.Result).
type ExploreResult = explore.Result

// ExploreViolation is one violation an exploration found and a path to it (explore.Violation).
type ExploreViolation = explore.Violation

// MaxSplitDepth bounds the split depth of a sharded exploration.
const MaxSplitDepth = explore.MaxSplitDepth

// Explore explores every schedule of scn within opts and returns the result.
func Explore(scn *spec.Scenario, opts ExploreOptions) ExploreResult {
	mustBeValid(scn)
	return explore.Explore(world.ExploreConfig(scn, opts))
}

// ShortestViolation returns a shortest path to a violation with v's criterion and process in the
// exploration opts describes (v is one the exploration found, so one exists within v.Depth steps).
func ShortestViolation(scn *spec.Scenario, opts ExploreOptions, v ExploreViolation) ExploreViolation {
	return explore.Shortest(world.ExploreConfig(scn, opts), v)
}

// ReplayPath runs path from the root of scn's exploration under opts, in place on one world, and
// returns the world's result (liveness phase and end checks included) and the script of the
// steps taken: a path found on clones of clones checked against a straight run, and with the
// script a scenario file. An answer that does not fit its decision is an error naming the step.
func ReplayPath(scn *spec.Scenario, opts ExploreOptions, path [][]int) (*spec.Result, []spec.ScriptedAction, error) {
	return explore.ReplayPath(world.ExploreConfig(scn, opts), path)
}

// ExploreSettings are the run settings an exploration uses (and a reproduction must use):
// every kind the budget allows on, constant durations, the seed, the liveness budget and hop
// bound (world.ExploreSettings).
func ExploreSettings(opts ExploreOptions) swarm.Settings { return world.ExploreSettings(opts) }

package world

import (
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// exploreScope, shortestViolation and replayPath mirror sim's Explore, ShortestViolation and
// ReplayPath for this package's tests, which set options (the test hooks) that package sim cannot.

func exploreScope(scn *spec.Scenario, opts ExploreOptions) explore.Result {
	if err := scn.Validate(); err != nil {
		panic("world: " + err.Error())
	}
	return explore.Explore(ExploreConfig(scn, opts))
}

func shortestViolation(scn *spec.Scenario, opts ExploreOptions, v explore.Violation) explore.Violation {
	return explore.Shortest(ExploreConfig(scn, opts), v)
}

func replayPath(scn *spec.Scenario, opts ExploreOptions, path [][]int) (*spec.Result, []spec.ScriptedAction, error) {
	return explore.ReplayPath(ExploreConfig(scn, opts), path)
}

package sim

import "github.com/parsleysim/parsleysim/sim/spec"

// Minimal counterexamples: the shortest path to a violation, by iterative deepening over the
// deduplicated graph. Exploration with a depth bound d visits every state within d steps (a
// state first reached deeper is expanded again when reached shallower), runs the end-of-run
// checks at every state on the bound, and stops at the first violation of the wanted criterion
// and process; the first d that finds one gives a shortest path. Reduction is off: sleep sets
// keep every state but not every shortest path to it.

// ShortestViolation returns a shortest path to a violation with v's criterion and process in the
// exploration opts describes (v is one the exploration found, so one exists within v.Depth
// steps).
func ShortestViolation(scn *spec.Scenario, opts ExploreOptions, v ExploreViolation) ExploreViolation {
	target := violationKey{v.Criterion, v.Process}
	for d := 0; d <= v.Depth; d++ {
		o := opts
		o.Reduce, o.StopAtFirst, o.MaxStates, o.Progress = false, false, 0, nil
		o.MaxDepth = d
		o.target = &target
		x := newExplorer(scn, o)
		x.maxDepthZero = d == 0
		res := x.run()
		x.visited.Free()
		for _, f := range res.Violations {
			if f.Criterion == v.Criterion && f.Process == v.Process {
				return f
			}
		}
	}
	return v
}

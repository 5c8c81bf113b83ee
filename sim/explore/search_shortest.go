package explore

// Minimal counterexamples: the shortest path to a violation, by iterative deepening over the
// deduplicated graph. Exploration with a depth bound d visits every state within d steps (a
// state first reached deeper is expanded again when reached shallower), runs the end-of-run
// checks at every state on the bound, and stops at the first violation of the wanted criterion
// and process; the first d that finds one gives a shortest path. Reduction is off: sleep sets
// keep every state but not every shortest path to it, and cfg's persistent sets are dropped too.

// Shortest returns a shortest path to a violation with v's criterion and process in the
// exploration cfg describes (v is one the exploration found, so one exists within v.Depth
// steps).
func Shortest(cfg Config, v Violation) Violation {
	target := violationKey{v.Criterion, v.Process}
	for d := 0; d <= v.Depth; d++ {
		c := cfg
		c.Sleep, c.Persistent, c.StopAtFirst, c.MaxStates, c.Progress = nil, nil, false, 0, nil
		c.MaxDepth, c.depthZero = d, d == 0
		c.target = &target
		x := newExplorer(c)
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

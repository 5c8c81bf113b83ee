// Package sim is the simulator's front door: one run of a scenario (Run), the same run observed
// between scripted actions (RunObserved, with the views a person reading a scenario file wants:
// each process's state, deliveries and holds with their blockers, and every record), the
// restart-invisibility check of a scripted scenario (CheckRestartInvisibility), and the
// exhaustive exploration of a small scope (Explore, ShortestViolation, ReplayPath,
// ExploreSettings).
//
// The world itself, and the one skeleton every run follows, are package world's (sim/world): the
// scheduler, the hosts, the actions and faults, the scheduling heuristics, the oracle's feed, the
// explorer's side of the seam (clone, canonical hash, persistent sets). The search is package
// explore's, which drives worlds through its World interface. This package holds no second copy
// of the run: Run and CheckRestartInvisibility are world's, RunObserved observes world's run
// through a world.Observer, and the explorer's entry points hand world.ExploreConfig to package
// explore.
//
// A run is a pure function of its scenario, its settings and its choices: every schedule and
// fault decision goes through one Chooser (package choose), durations, topic IDs and payload
// bytes come from separate streams derived from the seed, and nothing on the
// deterministic path reads the wall clock, iterates a map in an order that matters or starts a
// goroutine.
package sim

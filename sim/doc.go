// Package sim is the simulator's front door: one run of a scenario (Run), the same run observed
// between scripted actions (RunObserved, with the views a person reading a scenario file wants:
// each process's state, deliveries and holds with their blockers, and every record), the
// restart-invisibility check of a scripted scenario (CheckRestartInvisibility), and the
// exhaustive exploration of a small scope (Explore, ShortestViolation, ReplayPath, with its
// options and settings: ExploreOptions, ExploreSettings, ExploreConfig).
//
// It holds the one run skeleton (run.go): every run it makes — a random or replayed run, an
// observed one, the restart check's rerun — calls the phases package world exports, in order (a
// new world, Start, the script's actions or the scheduler's safety steps, Finish, Result), and an
// exploration's root and terminal states take the same phases through package explore. RunObserved
// reads the world between phases through world.View. The RESTART_INVISIBILITY check is here too
// (check_restart.go): the rerun the world prepares (a new world or a fork of the run) goes through
// the skeleton and is judged with the oracle's comparison.
//
// The world itself is package world's (sim/world): the scheduler, the hosts, the actions and
// faults, the scheduling heuristics, the oracle's feed, the explorer's side of the seam (clone,
// canonical hash, persistent sets). The search is package explore's, which drives worlds through
// its World interface; the explorer's entry points hand it ExploreConfig: the exploration's
// bounds and settings, with the world's root and services.
//
// A run is a pure function of its scenario, its settings and its choices: every schedule and
// fault decision goes through one Chooser (package choose), durations, topic IDs and payload
// bytes come from separate streams derived from the seed, and nothing on the
// deterministic path reads the wall clock, iterates a map in an order that matters or starts a
// goroutine.
package sim

// Package world is the simulated world and the phases of one run of it: a seeded scheduler that
// drives many Parsley nodes over the deterministic substrate, a Kafka-Streams-like host per process
// (host*.go), the session tiers (package tiers, whose Host the world is), the actions and faults
// (world_actions.go, world_faults.go, world_produce.go, world_restart.go; a scenario's scripted
// actions are package script's, which reads and drives the world through script_world.go), the
// scheduler (world_schedule.go) with the facts its rules read (world_targets.go, world_doomed.go,
// world_shapes.go, world_deletion_only.go; the rules themselves are package shape, which reads
// the world through shape_view.go, and its doc tables every rule), and the ground-truth
// oracle (package oracle) fed with the world's events. Package sim is its front door: its run
// skeleton calls the phases, and its exploration's configuration takes the world's root and
// services (ExploreRoot, ExploreHasher, ExplorePersistent).
//
// The oracle observes; it does not share. The world hands it events, each dated with the step and
// the virtual time (oracle.At) — a record produced, a transaction's end, a log moved, a topic
// created or deleted, an execution's received channels and start positions, a feed, a drain, a
// delivery, an emission with its bytes, a commit, a crash or refusal, a zombie's commit, the faults
// that entitle a process to fail closed, the end of the run — and it keeps its own model of the
// world (oracle.Oracle: the message table, each channel's log) and of each process (oracle.Proc,
// and the reference node that runs in lockstep with its engine, oracle.Reference, both kept in the
// process's shell so that the explorer's clone copies them with the process). The session tiers
// hand it their operations and it keeps the sessions' truth (oracle.Sessions, beside the tiers).
// Its checkers, one per criterion, live in package oracle, which cannot see the host
// (oracle.TestOracleSeesNoHost); the world judges nothing itself (sim's TestWorldJudgesNothing):
// for restart invisibility, which package sim runs and judges with the oracle's comparison, the
// world makes the rerun (check_restart.go: a swarm run's script from the drawn point on, by
// continuing a copy-on-write fork of the run taken there, or the whole script). The oracle
// reports each violation as it finds it to the world (oracle.Reporter), which traces it. The
// world asks it queries (RecordAt, FedHigh, PendingHead, HeldBack, Ledger, DeliverySequence).
//
// A run is a pure function of its scenario, its settings and its choices. Every schedule and fault
// decision goes through one Chooser; durations, topic IDs and payload bytes come from separate
// streams derived from the seed (package streams), so they neither multiply the explorer's
// branches nor shift when a new kind of choice is added. Nothing in this package reads the wall
// clock, iterates a map in an order that matters, or starts a goroutine on the deterministic path.
//
// A run goes through the world's phases (run.go), which package sim's run skeleton calls in
// order: New, Start (every process started), the safety phase (Scripted for a script's actions,
// SafetyStep for the scheduler's steps), Finish (the liveness phase and the end-of-run checks),
// Result. An exploration starts its root and ends its terminal states with the same phases.
//
// Exhaustive exploration is package explore's search, which package sim configures from a
// scenario with the world's root (ExploreRoot) and three services on its side of the seam (the
// canonical hash, ExploreHasher: package canon's, over the views of explore_hash.go; the
// persistent sets, ExplorePersistent: package persistent's rules over the view of
// explore_persistent.go; the sleep sets' transition identities). The search drives worlds through
// package explore's World interface, which *World implements (explore_seam.go): cloning
// (world_clone.go, copy-on-write, each engine behind package engine's reference), the steps, the
// recorded script, the violations, the end of a run.
//
// What it exports, and why: the phases of a run and its options (New, Start, Scripted,
// SafetyStep, Finish, Result, RunOptions), which package sim's run skeleton calls; View (the
// method and the type, observe.go), what an observer reads of a world between phases; the
// restart check's rerun (RestartRerun, Restarted, RestartAfter), which sim runs through the same
// skeleton; an exploration's root and world-side services (ExploreRoot, ExploreHasher,
// ExplorePersistent), which sim's exploration configuration hands to package explore; World as
// explore.World. Tests that tamper with a world (testHooks) live here, since the hooks are not
// exported; they run whole runs as sim does through the phases (run_test.go).
package world

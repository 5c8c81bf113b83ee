// Package sim is the simulated world: a seeded scheduler that drives many Parsley nodes over the
// deterministic substrate, a Kafka-Streams-like host per process, the ground-truth oracle
// (package oracle) fed with the world's events, virtual time (package vclock), and replay. Each
// step's events go to the sinks of package trace.
//
// The oracle observes; it does not share. The world hands it events, each dated with the step and
// the virtual time (oracle.At) — a record produced, a transaction's end, a log moved, a topic
// created or deleted, an execution's received channels and start positions, a feed, a drain, a
// delivery, an emission with its bytes, a commit, a crash or refusal, a zombie's commit, the faults
// that entitle a process to fail closed, the end of the run — and it keeps its own model of the
// world (oracle.Oracle: the message table, each channel's log) and of each process (oracle.Proc,
// and the reference node that runs in lockstep with its engine, oracle.Reference, both kept in the
// process's shell so that the explorer's clone copies them with the process). The session tiers
// (package tiers, whose Host the world is) hand it their operations and it keeps the sessions'
// truth (oracle.Sessions, beside the tiers). Its checkers, one per criterion, live in package
// oracle, which cannot see the host (oracle.TestOracleSeesNoHost); the world judges nothing itself
// (TestWorldJudgesNothing): restart invisibility, which re-runs the world, is run from here
// (check_restart.go) and judged with the oracle's comparison. The oracle reports each violation as
// it finds it to the world (oracle.Reporter), which traces it. The world asks it queries (RecordAt,
// FedHigh, PendingHead, HeldBack, Ledger, DeliverySequence).
//
// A run is a pure function of its scenario, its settings and its choices. Every schedule and fault
// decision goes through one Chooser; durations, topic IDs and payload bytes come from separate
// streams derived from the seed (Streams), so they neither multiply the explorer's branches nor
// shift when a new kind of choice is added. Nothing in this package reads the wall clock, iterates
// a map in an order that matters, or starts a goroutine on the deterministic path.
//
// Every run of a world follows one skeleton (run.go): every process started, the safety phase
// (a script, the scheduler's steps, or an exploration's), then the liveness phase and the
// end-of-run checks; RunObserved observes it through hooks. Exhaustive exploration is package
// explore's search; sim's entry points (Explore, ShortestViolation, ReplayPath: explore.go) build
// its configuration from a scenario: the root world, and three services on the world's side of
// the seam (the canonical hash, explore.Hasher; the persistent sets' dependencies,
// explore.Persistent; the sleep sets' transition identities). The search drives worlds through
// package explore's World interface, which *world implements (explore_seam.go): cloning, the
// steps, the recorded script, the violations, the end of a run.
package sim

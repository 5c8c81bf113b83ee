package world

// Partial-order reduction: sleep sets (Godefroid 1996, ch. 5) with the state-caching correction.
// The table of local transitions and their independence is package explore's (explore.SleepTable);
// why the world's independent transitions commute, which makes it sound, is argued here.
//
// Independence. Two transitions are independent when they are local transitions (feed, drain or
// commit) of two different processes whose topic footprints are disjoint. A process's footprint
// is every topic it receives or sends to (all partitions, all incarnations; every topic when
// redeclarations are in the budget, since one may add any topic to it). Every other transition —
// produces, transactions, faults, starts, stops, crashes, rewinds, redeclarations, migrations,
// zombies, truncations, deletions, recreations — is dependent on every transition.
//
// Why independent transitions commute (t·u and u·t from the same state reach states with equal
// canonical hashes, find the same violations, and neither enables or disables the other). A
// feed, drain or commit of p reads and writes only: p's host, oracle and engine (and, when p is a
// projector, its own projection: package tiers); the substrate
// logs, transactions and group offsets of p's channels (footprint topics); the shared message
// table (it appends p's emissions: uids then differ by order, but the canonical state names a
// message by channel and position); the stamped producers' ring (a commit adds p's emissions:
// hashed as a set until it wraps — scopes with stamped producers must stay under 16 committed
// records for the argument to hold, which the catalogue does); and the virtual clock and stats,
// which are not state. The checks those transitions run read p's state, the immutable pasts of
// messages, and channel liveness and positions on p's own received channels; the exceptions
// (STRUCT12's "assigned" test on a channel outside p's footprint, STRUCT15's liveness test)
// read what only dependent transitions change, or positions p's emission names on a foreign
// channel, which are at most what p has seen in fed headers and so are assigned already. A
// transition is enabled by p's own flags and the last stable offset of p's received channels,
// which only a commit of a sender to those topics moves — a process whose footprint shares the
// topic, hence dependent. So with disjoint footprints the two orders agree on state, on the
// violations (criterion and process) and on enabledness.
//
// Why sleep sets are sound here. A transition t is put to sleep in state s·u only when t was
// explored from s before u and is independent of u; then s·u·t = s·t·u, which the exploration
// reaches from s·t. So every reachable state is still visited (sleep sets prune transitions, not
// states), hence every terminal state, and every violation a pruned transition would find is
// found on the commuted path (same violations). With state caching a state may first be visited
// with a larger sleep set than a later path to it has; the correction re-expands the transitions
// that were asleep then and are awake now, and keeps the intersection (package explore's
// search).
// Sleep sets prune transitions only; persistent sets (explore_persistent.go) prune states, and the
// two combine. TestExploreReductionIsSound checks on small scopes that reduced and unreduced
// exploration reach the same terminal states and find the same verdicts.

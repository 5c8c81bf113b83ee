// Package spec holds the vocabulary a run is described in, shared by the world, the oracle, the
// explorer, the trace and the catalogue: a scenario (its topics, processes, application logic's
// signature, fixed script and session clients) and its validation, the default application logic
// (Forward: forwarding with a bounded hop count, and the key hash that also partitions), the kinds
// of scheduler action, the documented limits of one world, the sabotage modes of every tier
// (engine, host, session tiers) in one registry, the criteria the oracle judges and the violations
// it reports, a run's result and the stats of what it exercised, and FileError, the error every
// reader of a text file (replay file, scenario file) returns. It holds value types and the
// functions and methods that only read them; whatever needs a world is in package world (sim/world).
package spec

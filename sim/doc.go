// Package sim is the simulated world: a seeded scheduler that drives many Parsley nodes over the
// deterministic substrate, a Kafka-Streams-like host per process, a ground-truth oracle with one
// checker per property, virtual time, and replay. Each step's events go to the sinks of
// package trace.
//
// A run is a pure function of its scenario, its settings and its choices. Every schedule and
// fault decision goes through one Chooser; durations, topic IDs and payload bytes come from
// separate streams derived from the seed (Streams), so they neither multiply the explorer's
// branches nor shift when a new kind of choice is added. Nothing in this package reads the wall
// clock, iterates a map in an order that matters, or starts a goroutine on the deterministic
// path.
package sim

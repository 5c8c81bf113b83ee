// Package scenarios is the catalogue of simulator scenarios: the random (swarm) topology
// generator, registered as "random", and the registry through which the command line finds a
// scenario by name (Lookup, Names).
//
// A scenario is first built as a Topology (topics, processes, who receives and sends what, and
// which shape features it has) and then turned into a *spec.Scenario. Keeping the topology
// separate lets tests check what a seed generates, and lets the vacuity guard see which features
// a sweep covered, without running anything.
package scenarios

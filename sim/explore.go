package sim

import (
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// Exhaustive exploration of a small scope: the search is package explore's (depth-first over
// every answer the Chooser can give, deduplicated by canonical hash, reduced by persistent and
// sleep sets, sequential, parallel or sharded); what it explores, and the world's side of the
// seam (the root, the canonical hash, the persistent sets), is package world's. ExploreConfig
// puts the two together from a scenario and its exploration options.

// ExploreOptions configure one exploration.
type ExploreOptions struct {
	Budget       budget.Budget
	MaxDepth     int  // steps after the initial starts; 0 = unbounded (the budget bounds the scope)
	Reduce       bool // partial-order reduction: persistent sets and sleep sets
	Sabotage     node.Sabotage
	HostSabotage spec.HostSabotage
	// Seed draws the topic IDs (so the engines' channel order); 0 means 1.
	Seed uint64
	// LivenessStepsMax bounds the final phase at each terminal state; 0 means 1000.
	LivenessStepsMax int
	// HopsMax is the forwarding bound (Settings.ForwardHopsMax); 0 means 1.
	HopsMax int
	// Disabled lists criteria the oracle does not report, for tests only (world.RunOptions.Disabled).
	Disabled []spec.Criterion
	// NoRestartCheck switches the restart check at sampled states off, for tests and to measure
	// its cost.
	NoRestartCheck bool
	// StopAtFirst ends the exploration at the first violation.
	StopAtFirst bool
	// MaxStates stops the exploration (Complete false) after this many states; 0 = no cap.
	MaxStates int
	// Shard of Shards (counting from 1; Shards 0: unsharded) explores one shard of the scope's
	// subtrees below SplitDepth (0: chosen; package explore says how the tree is cut).
	Shard, Shards, SplitDepth int
	// Workers is the number of goroutines exploring the scope together (package explore's
	// parallel search); 0 or 1: one, on the caller's goroutine.
	Workers int
	// Interrupt, when closed, stops the exploration (Complete false, Interrupted true).
	Interrupt <-chan struct{}
	// Progress, when set, is called every ProgressEvery states (default 65536) and at the end.
	Progress      func(explore.Result)
	ProgressEvery int
}

// ExploreResult is what an exploration found (explore.Result).
type ExploreResult = explore.Result

// ExploreViolation is one violation an exploration found and a path to it (explore.Violation).
type ExploreViolation = explore.Violation

// MaxSplitDepth bounds the split depth of a sharded exploration.
const MaxSplitDepth = explore.MaxSplitDepth

// Explore explores every schedule of scn within opts and returns the result.
func Explore(scn *spec.Scenario, opts ExploreOptions) ExploreResult {
	mustBeValid(scn)
	return explore.Explore(ExploreConfig(scn, opts))
}

// ShortestViolation returns a shortest path to a violation with v's criterion and process in the
// exploration opts describes (v is one the exploration found, so one exists within v.Depth steps).
func ShortestViolation(scn *spec.Scenario, opts ExploreOptions, v ExploreViolation) ExploreViolation {
	return explore.Shortest(ExploreConfig(scn, opts), v)
}

// ReplayPath runs path from the root of scn's exploration under opts, in place on one world, and
// returns the world's result (liveness phase and end checks included) and the script of the
// steps taken: a path found on clones of clones checked against a straight run, and with the
// script a scenario file. An answer that does not fit its decision is an error naming the step.
func ReplayPath(scn *spec.Scenario, opts ExploreOptions, path [][]int) (*spec.Result, []spec.ScriptedAction, error) {
	return explore.ReplayPath(ExploreConfig(scn, opts), path)
}

// ExploreConfig is the exploration of scn under opts as package explore's configuration, which
// Explore, ShortestViolation and ReplayPath run: its root (world.ExploreRoot) under
// ExploreSettings, the world-side services each search gets its own of (the canonical hash; with
// Reduce, the sleep sets' table and the persistent sets where they apply), and opts' bounds.
func ExploreConfig(scn *spec.Scenario, opts ExploreOptions) explore.Config {
	set := ExploreSettings(opts)
	ro := world.RunOptions{Sabotage: opts.Sabotage, HostSabotage: opts.HostSabotage, Disabled: opts.Disabled}
	cfg := explore.Config{
		Root:   func() (explore.World, *rand.PCG) { return world.ExploreRoot(scn, set, ro) },
		Hasher: func() explore.Hasher { return world.ExploreHasher(set) },
		Budget: opts.Budget, MaxDepth: opts.MaxDepth, StopAtFirst: opts.StopAtFirst, MaxStates: opts.MaxStates,
		RestartCheck: !opts.NoRestartCheck && !slices.Contains(opts.Disabled, spec.CritRestartInvisibility),
		Shard:        opts.Shard, Shards: opts.Shards, SplitDepth: opts.SplitDepth, Workers: opts.Workers,
		Interrupt: opts.Interrupt, Progress: opts.Progress, ProgressEvery: opts.ProgressEvery,
	}
	if opts.Reduce {
		cfg.Sleep = func() *explore.SleepTable {
			s := set
			return explore.NewSleepTable(scn, &s)
		}
		cfg.Persistent = func() explore.Persistent { return world.ExplorePersistent(scn, set, ro) }
	}
	return cfg
}

// ExploreSettings are the run settings an exploration uses (and a reproduction must use):
// every kind the budget allows on, constant durations, the seed, the liveness budget and hop
// bound (explore.Settings).
func ExploreSettings(opts ExploreOptions) swarm.Settings {
	return explore.Settings(opts.Budget, opts.Seed, opts.LivenessStepsMax, opts.HopsMax)
}

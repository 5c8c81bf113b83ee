package world

import (
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/explore/persistent"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world/streams"
)

// Exhaustive exploration of a small scope: the search is package explore's (depth-first over
// every answer the Chooser can give, deduplicated by canonical hash, reduced by persistent and
// sleep sets, sequential, parallel or sharded); what it explores is built here. An exploration's
// root is the scenario's world with every process started, as a run begins (Start), under
// ExploreSettings. Durations, topic IDs and payloads come from their own streams and never
// branch: durations are constant, payloads constant, and topic IDs follow the seed's ID stream,
// cloned with each world, so a path's k-th incarnation has the ID a plain run of the same seed
// gives it. The world's side of the seam gives the search its canonical hash (package canon's, over
// the views of explore_hash.go) and a view for package persistent's sets (explore_persistent.go); every terminal state
// gets the checks a random run ends with (the liveness phase, LIVENESS at quiescence and lifetime
// S1), and a sampled share of all states the restart check.

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
	// Disabled lists criteria the oracle does not report, for tests only (RunOptions.Disabled).
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

	hooks *testHooks
	// persistentTweaks change the persistent sets' computation, for the tests that check it.
	persistentTweaks persistent.Tweaks
}

// ExploreConfig is the exploration of scn under opts, for package explore's search (package
// sim's Explore, ShortestViolation and ReplayPath run it): its root (explore_seam.go), the
// world-side services each search gets its own of (the canonical hash; with Reduce, the sleep
// sets' table and the persistent sets where they apply), and opts' bounds.
func ExploreConfig(scn *spec.Scenario, opts ExploreOptions) explore.Config {
	set := ExploreSettings(opts)
	cfg := explore.Config{
		Root: func() (explore.World, *rand.PCG) {
			ds, ids := streams.Explore(set.Seed)
			ro := &RunOptions{Sabotage: opts.Sabotage, HostSabotage: opts.HostSabotage, streams: ds,
				RecordScript: true, explored: true, hooks: opts.hooks, Disabled: opts.Disabled}
			s := set
			return newExploredWorld(scn, &s, ro), ids
		},
		Hasher: func() explore.Hasher {
			s := set
			return newStateHasher(&s)
		},
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
		cfg.Persistent = func() explore.Persistent {
			s := set
			if ps := newPersistentFilter(scn, &s, opts); ps != nil {
				return ps
			}
			return nil // not a nil *persistentFilter: nil means none
		}
	}
	return cfg
}

// ExploreSettings are the run settings an exploration uses (and a reproduction must use):
// every kind the budget allows on, constant durations, the seed, the liveness budget and hop
// bound. With a retention budget, external topics keep their newest exploreRetentionRecords
// records when a retention sweep runs (a size policy: with constant durations a time policy
// would only say the same in microseconds); without one there is no retention policy.
func ExploreSettings(opts ExploreOptions) swarm.Settings {
	set := swarm.Settings{Seed: max(opts.Seed, 1), LivenessStepsMax: opts.LivenessStepsMax, ForwardHopsMax: max(opts.HopsMax, 1)}
	if set.LivenessStepsMax == 0 {
		set.LivenessStepsMax = 1000
	}
	if opts.Budget.Allows(spec.ActRetention) {
		set.RetentionRecords = exploreRetentionRecords
	}
	for k := range spec.NumActionKinds {
		if opts.Budget.Allows(spec.ActionKind(k)) {
			set.Weights[k] = 1
		}
		set.DurationMicros[k] = swarm.Range{Min: exploreStepMicros, Max: exploreStepMicros}
	}
	return set
}

// exploreRetentionRecords is the size retention of external topics in an exploration with a
// retention budget: a sweep drops every record but the newest of each partition, so a receiver
// behind the newest record finds its next record gone.
const exploreRetentionRecords = 1

// exploreStepMicros is every action's virtual duration in an exploration.
const exploreStepMicros = 100

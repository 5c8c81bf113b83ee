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
)

// exploreOptions, exploreConfig and exploreSettings mirror sim's ExploreOptions, ExploreConfig
// and ExploreSettings for this package's tests, which cannot import package sim: the options
// they use, and the test hooks and persistent-set tweaks that package sim cannot set.
type exploreOptions struct {
	Budget                              budget.Budget
	MaxDepth, MaxStates, Workers        int
	Shard, Shards, SplitDepth           int
	Reduce, StopAtFirst, NoRestartCheck bool
	Sabotage                            node.Sabotage
	HostSabotage                        spec.HostSabotage
	Seed                                uint64
	LivenessStepsMax                    int
	Disabled                            []spec.Criterion
	Interrupt                           <-chan struct{}
	hooks                               *testHooks
	persistentTweaks                    persistent.Tweaks
}

func exploreSettings(opts exploreOptions) swarm.Settings {
	return explore.Settings(opts.Budget, opts.Seed, opts.LivenessStepsMax, 0)
}

func exploreConfig(scn *spec.Scenario, opts exploreOptions) explore.Config {
	set := exploreSettings(opts)
	ro := RunOptions{Sabotage: opts.Sabotage, HostSabotage: opts.HostSabotage, Disabled: opts.Disabled,
		hooks: opts.hooks, persistentTweaks: opts.persistentTweaks}
	cfg := explore.Config{
		Root:   func() (explore.World, *rand.PCG) { return ExploreRoot(scn, set, ro) },
		Hasher: func() explore.Hasher { return ExploreHasher(set) },
		Budget: opts.Budget, MaxDepth: opts.MaxDepth, StopAtFirst: opts.StopAtFirst, MaxStates: opts.MaxStates,
		RestartCheck: !opts.NoRestartCheck && !slices.Contains(opts.Disabled, spec.CritRestartInvisibility),
		Shard:        opts.Shard, Shards: opts.Shards, SplitDepth: opts.SplitDepth, Workers: opts.Workers,
		Interrupt: opts.Interrupt,
	}
	if opts.Reduce {
		cfg.Sleep = func() *explore.SleepTable {
			s := set
			return explore.NewSleepTable(scn, &s)
		}
		cfg.Persistent = func() explore.Persistent { return ExplorePersistent(scn, set, ro) }
	}
	return cfg
}

// exploreScope, shortestViolation and replayPath mirror sim's Explore, ShortestViolation and
// ReplayPath.

func exploreScope(scn *spec.Scenario, opts exploreOptions) explore.Result {
	if err := scn.Validate(); err != nil {
		panic("world: " + err.Error())
	}
	return explore.Explore(exploreConfig(scn, opts))
}

func shortestViolation(scn *spec.Scenario, opts exploreOptions, v explore.Violation) explore.Violation {
	return explore.Shortest(exploreConfig(scn, opts), v)
}

func replayPath(scn *spec.Scenario, opts exploreOptions, path [][]int) (*spec.Result, []spec.ScriptedAction, error) {
	return explore.ReplayPath(exploreConfig(scn, opts), path)
}

//go:build !race

// The race detector makes the explorer about ten times slower, and this test runs no goroutines
// of its own: it runs only without it.

package world_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/scenarios/scopes"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world"
)

// TestHashCachesStayFresh explores the shaped catalogue — every scope honest (the reference scope
// capped), every scope under every sabotage mode it claims, 24 scopes of the general family drawn
// at random (capped), and random budgets with random sabotage over the shaped topologies — with a
// state hasher that verifies its caches (VerifyingHasher): every cached digest (channel
// shadow logs, message contents, frontiers, resolved topics, the settings memo, process, engine,
// reference-node and committed-state hashes) is recomputed at every hash and a stale one panics.
// A change the explorer makes without clearing the cache of what it changed would otherwise
// merge distinct states silently. Each exploration is also run with the plain hasher and must
// find the same result.
func TestHashCachesStayFresh(t *testing.T) {
	for _, sc := range scopes.ShapedScopes() {
		opts, err := sc.Options()
		if err != nil {
			t.Fatal(err)
		}
		if sc.Reference {
			opts.MaxStates = 20_000
		}
		checkVerifiedExplore(t, sc.Name+" honest", sc.Build, opts)
		for _, m := range sc.Catches {
			o := opts
			o.Sabotage, o.HostSabotage, err = spec.ParseSabotage(m)
			if err != nil {
				t.Fatal(err)
			}
			o.MaxStates = 3_000
			checkVerifiedExplore(t, sc.Name+" "+m, sc.Build, o)
		}
	}
	general, pick := scopes.GeneralScopes(), rand.New(rand.NewPCG(8, 8))
	for range 24 {
		sc := general[pick.IntN(len(general))]
		opts, err := sc.Options()
		if err != nil {
			t.Fatal(err)
		}
		opts.MaxStates = 3_000
		checkVerifiedExplore(t, sc.Name+" honest", sc.Build, opts)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 24 {
		sc := scopes.ShapedScopes()[rng.IntN(len(scopes.ShapedScopes()))]
		given := randomBudget(rng)
		mode := randomSabotage(rng)
		b, err := budget.Parse(given)
		if err != nil {
			t.Fatal(err)
		}
		opts := sim.ExploreOptions{Budget: b, Reduce: rng.IntN(2) == 0, MaxStates: 2_000, Seed: uint64(i + 1)}
		if opts.Sabotage, opts.HostSabotage, err = spec.ParseSabotage(mode); err != nil {
			t.Fatal(err)
		}
		checkVerifiedExplore(t, fmt.Sprintf("%s budget %s sabotage %s", sc.Name, given, mode), sc.Build, opts)
	}
}

// checkVerifiedExplore explores build's scenario with opts, with cache verification and without,
// and fails unless both find the same result (a stale cache panics in the verifying run).
func checkVerifiedExplore(t *testing.T, name string, build func() *spec.Scenario, opts sim.ExploreOptions) {
	t.Helper()
	plain := sim.Explore(build(), opts)
	var verified explore.Result
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: %v", name, r)
			}
		}()
		cfg, set := sim.ExploreConfig(build(), opts), sim.ExploreSettings(opts)
		cfg.Hasher = func() explore.Hasher { return world.VerifyingHasher(set) }
		verified = explore.Explore(cfg)
	}()
	if verified.String() != plain.String() {
		t.Errorf("%s: verifying the caches changed the exploration: %v, without %v", name, verified, plain)
	}
	t.Logf("%-70s %v", name, verified)
}

// randomBudget draws a budget: one or two plain messages and a few other kinds at 1 or 2.
func randomBudget(rng *rand.Rand) string {
	order := []string{"msgs"}
	value := map[string]int{"msgs": 1 + rng.IntN(2)}
	keys := []string{"stamped", "corrupt", "crash", "stop", "rewind", "truncate", "retention", "delete",
		"recreate", "redeclare", "abort", "open", "migrate", "zombie", "swrite", "sread", "damage"}
	for range 1 + rng.IntN(3) {
		k := keys[rng.IntN(len(keys))]
		if _, drawn := value[k]; !drawn {
			order = append(order, k)
		}
		value[k] = 1 + rng.IntN(2) // a key drawn twice keeps its last count: ParseBudget takes each key once
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s=%d", k, value[k])
	}
	return strings.Join(parts, ",")
}

// randomSabotage draws a sabotage mode name, or "" (none) one time in four.
func randomSabotage(rng *rand.Rand) string {
	modes := append([]string{""}, scenarios.CatchRateModes()...)
	if rng.IntN(4) == 0 {
		return ""
	}
	return modes[rng.IntN(len(modes))]
}

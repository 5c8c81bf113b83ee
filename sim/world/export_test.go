package world

import (
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// VerifyingExploreConfig is ExploreConfig(scn, opts) with a state hasher that recomputes every
// digest it would take from a cache and panics when a cached one differs (canon.Hasher.Verify),
// for the staleness test of package world_test, which explores the scenarios package's scopes.
func VerifyingExploreConfig(scn *spec.Scenario, opts ExploreOptions) explore.Config {
	cfg := ExploreConfig(scn, opts)
	set := ExploreSettings(opts)
	cfg.Hasher = func() explore.Hasher {
		s := set
		h := newStateHasher(&s)
		h.Verify = true
		return h
	}
	return cfg
}

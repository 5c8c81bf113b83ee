package world

import (
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// VerifyingHasher is ExploreHasher(set) recomputing every digest it would take from a cache and
// panicking when a cached one differs (canon.Hasher.Verify), for the staleness test of package
// world_test, which explores the scenarios package's scopes.
func VerifyingHasher(set swarm.Settings) explore.Hasher {
	h := newStateHasher(&set)
	h.Verify = true
	return h
}

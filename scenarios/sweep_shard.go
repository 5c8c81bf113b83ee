package scenarios

import "fmt"

// Sharded sweeps: a seed range split over n processes or machines, each running the seeds of one
// shard and writing its report, merged afterwards (MergeSweeps). Seed s belongs to shard
// s mod n + 1, which depends only on the seed and n: a range's shards differ in size by at most
// one seed, every window of n consecutive seeds gives each shard one, and a seed is in the same
// shard whatever range it is swept in. A seed's settings are drawn from its own PRNG, so the
// seeds of one residue class cost, on average, what any others do.

// Shard is one shard of a sharded sweep or exploration: Index of Total, counting from 1. The zero
// value means unsharded (every seed, the whole scope).
type Shard struct {
	Index, Total int
}

// MaxShards bounds a shard count.
const MaxShards = 1 << 16

// Sharded reports whether s names a shard (Total > 0).
func (s Shard) Sharded() bool { return s.Total > 0 }

// String renders the shard as "i/n" ("" when unsharded).
func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Total)
}

// Check returns an error naming s when it is neither the zero value nor a shard of 1..MaxShards
// shards.
func (s Shard) Check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Total < 1 || s.Total > MaxShards || s.Index < 1 || s.Index > s.Total {
		return fmt.Errorf("shard %d/%d: want i/n with 1 <= i <= n <= %d", s.Index, s.Total, MaxShards)
	}
	return nil
}

// ownsSeed reports whether seed belongs to s (every seed belongs to the unsharded zero value).
func (s Shard) ownsSeed(seed uint64) bool {
	return !s.Sharded() || seed%uint64(s.Total) == uint64(s.Index-1)
}

// firstSeed returns the first seed of first..last that s owns and whether there is one.
func (s Shard) firstSeed(first, last uint64) (uint64, bool) {
	if !s.Sharded() {
		return first, true
	}
	n := uint64(s.Total)
	delta := (uint64(s.Index-1) + n - first%n) % n
	if delta > last-first {
		return 0, false
	}
	return first + delta, true
}

// step is the distance between two consecutive seeds of s.
func (s Shard) step() uint64 {
	if !s.Sharded() {
		return 1
	}
	return uint64(s.Total)
}

// SeedCount returns how many seeds of first..last (first <= last, not all 2^64) s owns.
func (s Shard) SeedCount(first, last uint64) uint64 {
	start, ok := s.firstSeed(first, last)
	if !ok {
		return 0
	}
	return (last-start)/s.step() + 1
}

// nextSeed returns the seed of s after seed, and false past last.
func (s Shard) nextSeed(seed, last uint64) (uint64, bool) {
	if last-seed < s.step() {
		return 0, false
	}
	return seed + s.step(), true
}

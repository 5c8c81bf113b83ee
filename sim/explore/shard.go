package explore

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
)

// Sharded exploration: one scope explored by n processes or machines that share nothing, each
// exploring its share of the scope's subtrees, their results merged afterwards.
//
// Two phases. First every shard explores the top of the tree, the states fewer than D steps from
// the root (the split depth), exactly as an unsharded exploration does but for one thing: a
// transition that reaches depth D is not entered; the state it reaches, with its path and sleep
// set, is recorded as a subtree. The top is a function of the scope alone, so every shard
// explores the same top and records the same subtrees in the same order. Then each shard
// explores the subtrees it owns, one after the other, continuing from the top's visited set: it
// rebuilds a subtree's state by replaying its path from the root and enters it with its sleep set,
// as the unsharded exploration would have. Subtrees reaching the same state are one subtree,
// owned by the shard the hash of its first path (in the top's order) names.
//
// Why the union is the whole scope. With every subtree owned by one shard (n = 1), this is the
// unsharded exploration in another order: the top's states in full, then the states below depth
// D, each subtree entered with the sleep set the top computed, the visited set shared. Sleep sets
// and the state-caching correction need no particular order (a transition is put to sleep in a
// state only when an earlier sibling explores it, and every state entered explores every
// transition not asleep), and persistent sets are a function of the state. With n shards each
// subtree is still explored by its owner with the same sleep set, and the top, where the sleep
// sets that cross from one subtree to another are computed, is explored by every shard alike.
// What a shard lacks is the other shards' visited states below the top: where the unsharded
// exploration would find a state visited and explore only the transitions asleep before and awake
// now, a shard that has not visited it explores every transition not asleep, which is more work,
// never less. So the union of the shards visits every state and finds every violation the
// unsharded exploration does; what it costs is the states several shards reach from different
// subtrees (measured in results/explore.md). Package sim's TestShardedExplorationUnion compares the union of
// the shards' terminal states and violations with the unsharded exploration's.

// split is the top phase's cut of a sharded exploration: the split depth, and the subtrees
// recorded there in the order the top reached them.
type split struct {
	Depth int
	Items []splitItem
	first map[HashKey]int // a subtree state's first item
}

// splitItem is one recorded subtree: its state's hash, the path to it (every step's Chooser
// answers) and the sleep set it is entered with; Group is the index of the first item of the same
// state.
type splitItem struct {
	Key   HashKey
	Path  [][]int
	Sleep uint64
	Group int
}

// newSplit returns a cut at depth with no subtree recorded.
func newSplit(depth int) *split { return &split{Depth: depth, first: map[HashKey]int{}} }

// Cuts reports whether a state at depth is recorded as a subtree instead of entered (never, for a
// nil split: an exploration that is not cut).
func (sp *split) Cuts(depth int) bool { return sp != nil && depth == sp.Depth }

// Record records the subtree of state key reached by path with sleep set sleep. path is copied
// (a search's path lives in reused storage).
func (sp *split) Record(key HashKey, path [][]int, sleep uint64) {
	p := clonePath(path)
	g, ok := sp.first[key]
	if !ok {
		g = len(sp.Items)
		sp.first[key] = g
	}
	sp.Items = append(sp.Items, splitItem{Key: key, Path: p, Sleep: sleep, Group: g})
}

// Subtrees returns the number of distinct subtree states.
func (sp *split) Subtrees() int { return len(sp.first) }

// Owner returns the shard (1..n) that owns item i: by the hash of its group's first path, the
// same in every shard.
func (sp *split) Owner(i, n int) int {
	h := fnv.New64a()
	var b []byte
	for _, step := range sp.Items[sp.Items[i].Group].Path {
		b = binary.AppendUvarint(b[:0], uint64(len(step)))
		h.Write(b)
		for _, c := range step {
			b = binary.AppendUvarint(b[:0], uint64(c))
			h.Write(b)
		}
	}
	return int(h.Sum64()%uint64(n)) + 1
}

// clonePath is a deep copy of path, the answer lists of a search's steps (which live in storage
// the search reuses).
func clonePath(path [][]int) [][]int {
	p := slices.Clone(path)
	for i := range p {
		p[i] = slices.Clone(p[i])
	}
	return p
}

package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Sharded exploration: one scope explored by n processes or machines that share nothing, each
// exploring its share of the scope's subtrees, their results merged afterwards (simrun merge).
//
// Two phases. First every shard explores the top of the tree, the states fewer than D steps from
// the root (the split depth), exactly as an unsharded exploration does but for one thing: a
// transition that reaches depth D is not entered; the state it reaches, with its path and sleep
// set, is recorded as a subtree. The top is a function of the scope alone, so every shard
// explores the same top and records the same subtrees in the same order. Then each shard
// explores the subtrees it owns, one after the other, continuing from the top's visited set: it
// rebuilds a subtree's state by replaying its path from the root and enters it with its sleep set,
// as the unsharded exploration would have. Subtrees reaching the same state are one subtree,
// owned by the shard the hash of its first path (in the top's order) names: the path, not the
// state's hash, because state hashes are seeded per process and the shards are separate processes.
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
// subtrees (measured in results/explore.md). TestShardedExplorationUnion compares the union of
// the shards' terminal states and violations with the unsharded exploration's.

// splitItemsPerShard is how many distinct subtrees per shard the split depth is chosen for: the
// smallest depth whose top records at least that many (or the depth where the scope ends). More
// subtrees balance the shards better; deeper subtrees overlap more.
const splitItemsPerShard = 8

// MaxSplitDepth bounds the split depth of a sharded exploration.
const MaxSplitDepth = 64

// splitState is the top phase's cut: the depth, and the subtrees recorded there.
type splitState struct {
	depth int
	items []splitItem
	first map[hashKey]int // a subtree state's first item
}

// splitItem is one recorded subtree: its state's hash, the path to it and the sleep set it is
// entered with; group is the index of the first item of the same state.
type splitItem struct {
	key   hashKey
	path  [][]int
	sleep uint64
	group int
}

// cuts reports whether a state at depth is recorded as a subtree instead of entered.
func (sp *splitState) cuts(depth int) bool { return sp != nil && depth == sp.depth }

// record records the subtree of state key reached by path with sleep set sleep.
func (sp *splitState) record(key hashKey, path [][]int, sleep uint64) {
	p := slices.Clone(path)
	for i := range p {
		p[i] = slices.Clone(p[i]) // the path's answers live in reused storage (eachSuccessor)
	}
	g, ok := sp.first[key]
	if !ok {
		g = len(sp.items)
		sp.first[key] = g
	}
	sp.items = append(sp.items, splitItem{key: key, path: p, sleep: sleep, group: g})
}

// subtrees returns the number of distinct subtree states.
func (sp *splitState) subtrees() int { return len(sp.first) }

// owner returns the shard (1..n) that owns item i: by the hash of its group's first path.
func (sp *splitState) owner(i, n int) int {
	h := fnv.New64a()
	var b []byte
	for _, step := range sp.items[sp.items[i].group].path {
		b = binary.AppendUvarint(b[:0], uint64(len(step)))
		h.Write(b)
		for _, c := range step {
			b = binary.AppendUvarint(b[:0], uint64(c))
			h.Write(b)
		}
	}
	return int(h.Sum64()%uint64(n)) + 1
}

// exploreShard explores shard opts.Shard of opts.Shards of scn (see above).
func exploreShard(scn *spec.Scenario, opts ExploreOptions) ExploreResult {
	if opts.Shard < 1 || opts.Shard > opts.Shards {
		panic(fmt.Sprintf("sim: explore: shard %d/%d", opts.Shard, opts.Shards))
	}
	x := splitTop(scn, opts)
	defer x.visited.Free()
	sp := x.split
	x.split = nil
	x.res.SplitDepth, x.res.Subtrees = sp.depth, sp.subtrees()
	for i := range sp.items {
		if x.stop {
			break
		}
		if sp.owner(i, opts.Shards) != opts.Shard {
			continue
		}
		if sp.items[i].group == i {
			x.res.OwnSubtrees++
		}
		x.enterSubtree(&sp.items[i])
	}
	return x.finish()
}

// splitTop explores the top of scn at the split depth (opts.SplitDepth, or the smallest depth
// whose top records splitItemsPerShard subtrees per shard) and returns the explorer, whose
// visited set, counts and violations are the top's and whose split holds the subtrees.
func splitTop(scn *spec.Scenario, opts ExploreOptions) *explorer {
	for depth := max(opts.SplitDepth, 1); ; depth++ {
		x := newExplorer(scn, opts)
		x.split = &splitState{depth: depth, first: map[hashKey]int{}}
		x.start()
		x.enterRoot()
		if opts.SplitDepth > 0 || x.stop || x.split.subtrees() == 0 || x.split.subtrees() >= splitItemsPerShard*opts.Shards ||
			depth >= MaxSplitDepth {
			return x
		}
		x.visited.Free()
	}
}

// enterSubtree rebuilds item's state by replaying its path from the root and enters it.
func (x *explorer) enterSubtree(item *splitItem) {
	s := x.replayTo(item.path)
	if key := x.hash(s); key != item.key {
		panic(fmt.Sprintf("sim: explore: the path %v of a subtree leads to another state than it did", item.path))
	}
	x.path = append(x.path[:0], item.path...)
	x.enter(s, item.sleep)
	x.path = x.path[:0]
	x.clearPath()
	x.release(s)
}

// replayTo returns the state path leads to from the root, each step taken as the exploration
// takes it (a clone of the state before, answered by a forced prefix), so the state is the one
// the exploration reached. The steps' scripts make the search's path (x.pathScript, for the
// restart check) until clearPath.
func (x *explorer) replayTo(path [][]int) *exState {
	s := x.root()
	x.resetPath()
	var c stepChooser
	for i, answers := range path {
		acts := actionsOf(new(explore.Actions), s.w)
		if !acts.Enabled {
			panic(fmt.Sprintf("sim: explore: step %d of a replayed path: nothing is enabled", i+1))
		}
		t := new(transition)
		c.reset(answers, nil)
		x.step(s, acts, &c, t)
		if !slices.Equal(c.answers, answers) {
			panic(fmt.Sprintf("sim: explore: step %d of a replayed path answered %v, not %v", i+1, c.answers, answers))
		}
		s = &t.next // the state before is not released: the one after may share its storage
		x.pushPath(t.script)
	}
	return s
}

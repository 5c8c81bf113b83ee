package explore

import (
	"fmt"
	"slices"
)

// The sharded search: every shard explores the top of the tree and then the subtrees it owns
// (shard.go says how the tree is cut and why the union of the shards is the whole scope).

// splitItemsPerShard is how many distinct subtrees per shard the split depth is chosen for: the
// smallest depth whose top records at least that many (or the depth where the scope ends). More
// subtrees balance the shards better; deeper subtrees overlap more.
const splitItemsPerShard = 8

// MaxSplitDepth bounds the split depth of a sharded exploration.
const MaxSplitDepth = 64

// exploreShard explores shard cfg.Shard of cfg.Shards (see above).
func exploreShard(cfg Config) Result {
	if cfg.Shard < 1 || cfg.Shard > cfg.Shards {
		panic(fmt.Sprintf("explore: shard %d/%d", cfg.Shard, cfg.Shards))
	}
	x := splitTop(cfg)
	defer x.visited.Free()
	sp := x.split
	x.split = nil
	x.res.SplitDepth, x.res.Subtrees = sp.Depth, sp.Subtrees()
	for i := range sp.Items {
		if x.stop {
			break
		}
		if sp.Owner(i, cfg.Shards) != cfg.Shard {
			continue
		}
		if sp.Items[i].Group == i {
			x.res.OwnSubtrees++
		}
		x.enterSubtree(&sp.Items[i])
	}
	return x.finish()
}

// splitTop explores the top of cfg's scope at the split depth (cfg.SplitDepth, or the smallest
// depth whose top records splitItemsPerShard subtrees per shard) and returns the explorer, whose
// visited set, counts and violations are the top's and whose split holds the subtrees.
func splitTop(cfg Config) *explorer {
	for depth := max(cfg.SplitDepth, 1); ; depth++ {
		x := newExplorer(cfg)
		x.split = newSplit(depth)
		x.start()
		x.enterRoot()
		if cfg.SplitDepth > 0 || x.stop || x.split.Subtrees() == 0 || x.split.Subtrees() >= splitItemsPerShard*cfg.Shards ||
			depth >= MaxSplitDepth {
			return x
		}
		x.visited.Free()
	}
}

// enterSubtree rebuilds item's state by replaying its path from the root and enters it.
func (x *explorer) enterSubtree(item *splitItem) {
	s := x.replayTo(item.Path)
	if key := x.hash(s); key != item.Key {
		panic(fmt.Sprintf("explore: the path %v of a subtree leads to another state than it did", item.Path))
	}
	x.path = append(x.path[:0], item.Path...)
	x.enter(s, item.Sleep)
	x.path = x.path[:0]
	x.clearPath()
	x.release(s)
}

// replayTo returns the state path leads to from the root, each step taken as the exploration
// takes it (a clone of the state before, answered by a forced prefix), so the state is the one
// the exploration reached. The steps' scripts make the search's path (x.pathScript, for the
// restart check) until clearPath.
func (x *explorer) replayTo(path [][]int) *state {
	s := x.root()
	x.resetPath()
	var c StepChooser
	for i, answers := range path {
		acts := new(Actions)
		s.w.Actions(acts)
		if !acts.Enabled {
			panic(fmt.Sprintf("explore: step %d of a replayed path: nothing is enabled", i+1))
		}
		t := new(transition)
		c.Reset(answers, nil)
		x.step(s, acts, &c, t)
		if !slices.Equal(c.Answers(), answers) {
			panic(fmt.Sprintf("explore: step %d of a replayed path answered %v, not %v", i+1, c.Answers(), answers))
		}
		s = &t.next // the state before is not released: the one after may share its storage
		x.pushPath(t.script)
	}
	return s
}

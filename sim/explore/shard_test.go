package explore

import (
	"slices"
	"testing"
)

// TestSplitGroupsAndOwners records subtrees at a cut and checks that items reaching one state are
// one group, owned by one shard in 1..n whatever the item's own path, that the recorded path is a
// copy, and that the owners spread over the shards. It fails if grouping keyed on the path, an
// owner fell outside 1..n, or a recorded path shared the caller's storage.
func TestSplitGroupsAndOwners(t *testing.T) {
	var none *split
	if none.Cuts(0) {
		t.Fatal("a nil split cuts")
	}
	sp := newSplit(2)
	if sp.Cuts(1) || !sp.Cuts(2) {
		t.Fatal("a split at depth 2 cuts at another depth")
	}
	path := [][]int{{0, 1}, {2}}
	sp.Record(HashKey{1, 1}, path, 0b01)
	path[0][0] = 9 // the search reuses its path's storage
	for i := range 40 {
		sp.Record(HashKey{uint64(i + 2), 0}, [][]int{{i}, {i % 3, 1}}, 0)
	}
	sp.Record(HashKey{1, 1}, [][]int{{5}, {5}}, 0b10) // the first state again, by another path
	if sp.Subtrees() != 41 || len(sp.Items) != 42 {
		t.Fatalf("%d subtrees in %d items, want 41 in 42", sp.Subtrees(), len(sp.Items))
	}
	last := sp.Items[41]
	if last.Group != 0 || last.Sleep != 0b10 || !slices.Equal(sp.Items[0].Path[0], []int{0, 1}) {
		t.Fatalf("the repeated state: group %d sleep %b, first path %v", last.Group, last.Sleep, sp.Items[0].Path)
	}
	const n = 4
	seen := map[int]bool{}
	for i := range sp.Items {
		o := sp.Owner(i, n)
		if o < 1 || o > n {
			t.Fatalf("item %d owned by shard %d of %d", i, o, n)
		}
		seen[o] = true
	}
	if sp.Owner(41, n) != sp.Owner(0, n) {
		t.Fatal("two items of one state have different owners")
	}
	if len(seen) != n {
		t.Fatalf("40 subtrees went to %d of %d shards", len(seen), n)
	}
}

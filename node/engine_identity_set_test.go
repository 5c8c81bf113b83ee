package node

import (
	"slices"
	"testing"
)

// TestTopicSetHas checks topicSet.has, scanned (up to topicScanMax topics) and binary-searched
// (larger sets), against slices.Contains for every topic of a range wider than the set.
func TestTopicSetHas(t *testing.T) {
	for _, n := range []int{0, 1, 3, topicScanMax, topicScanMax + 1, 3 * topicScanMax} {
		var ids []TopicID
		for k := n; k > 0; k-- { // descending: newTopicSet sorts a copy
			ids = append(ids, etTopic(byte(2*k)))
		}
		set := newTopicSet(ids)
		found := 0
		for b := 1; b <= 2*n+1; b++ {
			id := etTopic(byte(b))
			if got, want := set.has(id), slices.Contains(ids, id); got != want {
				t.Fatalf("%d topics: has(%d) = %v, want %v", n, b, got, want)
			}
			if set.has(id) {
				found++
			}
		}
		if found != n {
			t.Fatalf("%d topics: found %d", n, found)
		}
	}
}

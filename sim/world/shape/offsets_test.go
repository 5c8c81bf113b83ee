package shape

import (
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestRewindOffsets: the offsets land below the committed position, on the last record below it
// rather than on the offset one below (a marker), sorted and unique.
func TestRewindOffsets(t *testing.T) {
	for _, tc := range []struct {
		logStart, committed, last int64
		want                      []int64
	}{
		{0, 10, 7, []int64{0, 5, 7}},  // the record at 7, not the marker at 9
		{0, 10, -1, []int64{0, 5, 9}}, // no record below: one below the committed position
		{4, 10, 8, []int64{0, 3, 4, 5, 8}},
		{4, 4, -1, []int64{0, 2, 3}}, // nothing at or above the committed position
		{0, 1, 0, []int64{0}},        // unique
	} {
		if got := RewindOffsets(tc.logStart, tc.committed, tc.last); !slices.Equal(got, tc.want) {
			t.Errorf("RewindOffsets(%d, %d, %d) = %v, want %v", tc.logStart, tc.committed, tc.last, got, tc.want)
		}
	}
}

// TestFeedPause: a feed pauses for heads fed within the last HoldPauseSteps steps, and not at all
// without them.
func TestFeedPause(t *testing.T) {
	set := swarm.Settings{HoldPauseSteps: 5}
	if since, on := FeedPause(&set, 20); !on || since != 15 {
		t.Errorf("FeedPause(5 steps, 20) = %d, %v; want 15, true", since, on)
	}
	set.HoldPauseSteps = 0
	if _, on := FeedPause(&set, 20); on {
		t.Error("FeedPause without HoldPauseSteps pauses")
	}
}

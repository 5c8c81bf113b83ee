package explore

import (
	"slices"
	"testing"
)

// TestFilterRestrictsByLabel checks that a filter zeroes the options its rule for a decision's
// label excludes (options 64 and up always), leaves the weights it was given alone, passes a
// decision with no rule through unchanged, applies a label's first rule, and forgets its rules on
// Reset. It fails if Apply restricted the wrong decision, kept an excluded option or wrote into
// its caller's weights.
func TestFilterRestrictsByLabel(t *testing.T) {
	var f Filter
	f.Allow("action", 1<<0|1<<2)
	f.Allow("process", 1<<1)
	f.Allow("action", ^uint64(0)) // a second rule of a label is not the one applied
	weights := []uint32{5, 6, 7, 8}
	if got := f.Apply("action", weights); !slices.Equal(got, []uint32{5, 0, 7, 0}) {
		t.Fatalf("action: %v", got)
	}
	if got := f.Apply("process", weights); !slices.Equal(got, []uint32{0, 6, 0, 0}) {
		t.Fatalf("process: %v", got)
	}
	if !slices.Equal(weights, []uint32{5, 6, 7, 8}) {
		t.Fatalf("Apply changed its argument: %v", weights)
	}
	if got := f.Apply("offset", weights); &got[0] != &weights[0] {
		t.Fatalf("a decision without a rule got other weights: %v", got)
	}
	wide := make([]uint32, 70)
	for i := range wide {
		wide[i] = 1
	}
	f.Reset()
	f.Allow("wide", ^uint64(0))
	got := f.Apply("wide", wide)
	if n := countNonZero(got); n != 64 || got[63] == 0 || got[64] != 0 {
		t.Fatalf("wide: %d options allowed (option 63: %d, option 64: %d), want the first 64", n, got[63], got[64])
	}
	if got := f.Apply("action", weights); &got[0] != &weights[0] {
		t.Fatalf("a reset filter still restricts a label of before: %v", got)
	}
}

func countNonZero(ws []uint32) int {
	n := 0
	for _, w := range ws {
		if w != 0 {
			n++
		}
	}
	return n
}

package substrate

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestTopicIDCompareIsBytewise holds TopicID.Compare to bytes.Compare on pairs that differ in
// the first half, only in the second, only in the last byte, and not at all.
func TestTopicIDCompareIsBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ids := []TopicID{{}, {0xff}, {15: 1}, {15: 0xff}, {7: 0x80}, {8: 0x80}}
	for range 200 {
		var id TopicID
		for i := range id {
			id[i] = byte(rng.IntN(3)) * 0x7f // few distinct bytes: many shared prefixes
		}
		ids = append(ids, id)
	}
	pairs := 0
	for _, a := range ids {
		for _, b := range ids {
			if got, want := a.Compare(b), bytes.Compare(a[:], b[:]); got != want {
				t.Fatalf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
			pairs++
		}
	}
	if pairs < 1000 {
		t.Fatalf("only %d pairs compared", pairs)
	}
}

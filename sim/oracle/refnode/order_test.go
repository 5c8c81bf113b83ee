package refnode

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"testing"
)

// TestChannelOrderIsByteOrder: compareChannels and the channel keys' order (the binary
// searches') order topic IDs by their bytes unsigned, then partitions, on random IDs that differ
// in one byte (each position in turn, high bit set or not) or not at all.
func TestChannelOrderIsByteOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var a, b Channel
		for i := range a.Topic {
			a.Topic[i] = byte(rng.IntN(256))
		}
		b.Topic = a.Topic
		if k := rng.IntN(17); k < 16 {
			b.Topic[k] = byte(rng.IntN(256))
		}
		a.Partition, b.Partition = rng.Int32N(4), rng.Int32N(4)
		want := bytes.Compare(a.Topic[:], b.Topic[:])
		if want == 0 {
			want = cmp.Compare(a.Partition, b.Partition)
		}
		if got := compareChannels(a, b); got != want {
			t.Fatalf("compareChannels(%v, %v) = %d, want %d", a, b, got, want)
		}
		if got := keyOf(a).less(keyOf(b)); got != (want < 0) {
			t.Fatalf("keyOf(%v).less(keyOf(%v)) = %v, want %v", a, b, got, want < 0)
		}
	}
}

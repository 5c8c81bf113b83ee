package targets

import (
	"math/rand/v2"
	"testing"
)

// TestMasksMatchModel changes random processes' masks between refreshes, marking some of them
// stale and others timed, and holds the union, each mask, and each kind's index (counts, the
// processes found by rank, in process order) to the masks as they are: a mask changes only once
// its process is marked stale, or at every refresh while its last computation was timed.
func TestMasksMatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 64, 100, 1000} {
		now := make([]uint32, n)     // what each mask would be computed as
		timed := make([]bool, n)     // what its computation would report
		seen := make([]uint32, n)    // what the memo should have
		stale := make([]bool, n)     // marked since its last computation
		lastTimed := make([]bool, n) // what its last computation reported
		m := New(n, 0, 0, 0, func(int, uint8, func(int, uint8)) bool { return false },
			func(i int) (uint32, bool) { return now[i], timed[i] }, nil, nil)
		masks := m.Masks()
		for i := range n {
			stale[i] = true
		}
		for round := range 300 {
			for range 1 + rng.IntN(max(1, n/4)) {
				i := rng.IntN(n)
				now[i] = rng.Uint32() & (1<<rng.IntN(33) - 1) // sometimes empty, sometimes every bit
				timed[i] = rng.IntN(8) == 0
				if rng.IntN(2) == 0 { // else changed unmarked: the memo keeps the old mask unless it is timed
					m.Stale(i)
					stale[i] = true
				}
			}
			for i := range n {
				if stale[i] || lastTimed[i] {
					seen[i], lastTimed[i], stale[i] = now[i], timed[i], false
				}
			}
			union := masks.Refresh()
			want := uint32(0)
			for i := range n {
				if got := masks.mask[i]; got != seen[i] {
					t.Fatalf("n %d round %d: process %d's mask is %x, want %x", n, round, i, got, seen[i])
				}
				want |= seen[i]
			}
			if union != want {
				t.Fatalf("n %d round %d: union %x, want %x", n, round, union, want)
			}
			for k := range 32 {
				of := masks.Kind(k)
				r := 0
				for i := range n {
					if seen[i]&(1<<k) == 0 {
						continue
					}
					if got := of.Find(uint64(r)); got != i {
						t.Fatalf("n %d round %d kind %d: process of rank %d is %d, want %d", n, round, k, r, got, i)
					}
					r++
				}
				if of.Count() != r || of.Total() != uint64(r) {
					t.Fatalf("n %d round %d kind %d: %d processes counted, want %d", n, round, k, of.Count(), r)
				}
			}
		}
	}
}

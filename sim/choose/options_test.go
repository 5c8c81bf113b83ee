package choose

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomLists returns n weight lists of random lengths, mostly zero, with one, a few or many
// non-zero entries of random sizes.
func randomLists(rng *rand.Rand, n int) [][]uint32 {
	out := make([][]uint32, n)
	for i := range out {
		l := make([]uint32, 1+rng.IntN(200))
		on := 1 + rng.IntN(len(l))
		if rng.IntN(3) == 0 {
			on = 1
		}
		for range on {
			wt := uint32(1)
			if rng.IntN(2) == 0 {
				wt = 1 + rng.Uint32N(1<<uint(rng.IntN(31)))
			}
			l[rng.IntN(len(l))] = wt
		}
		out[i] = l
	}
	return out
}

func sparseOf(l []uint32) *sparse {
	s := new(sparse)
	s.Reset(len(l))
	for i, wt := range l {
		s.Add(i, wt)
	}
	return s
}

// TestOptionsAnswerAsTheList holds every chooser's answer from Options to its answer over the list
// written out, decision by decision, over random weight lists (and Uniform over as many ones):
// the seeded draw (and what it consumes, since the sequences stay equal), the recorder (its
// recorded answers too) and a replay of a recording with a wrong answer planted (out of range,
// or naming an entry of weight 0).
func TestOptionsAnswerAsTheList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lists := randomLists(rng, 5000)
	for i, l := range lists {
		s := sparseOf(l)
		if s.Len() != len(l) || s.Count() != dense(l).Count() || s.Total() != dense(l).Total() ||
			!slices.Equal(s.Dense(nil), l) {
			t.Fatalf("list %d: Sparse stands for another list", i)
		}
		for j := range l {
			if s.Weight(j) != l[j] {
				t.Fatalf("list %d: Weight(%d) = %d, want %d", i, j, s.Weight(j), l[j])
			}
		}
	}
	a, b := NewRandom(9), NewRandom(9)
	ra, rb := NewRecorder(NewRandom(10)), NewRecorder(NewRandom(10))
	// an inner chooser that cannot answer from Options gets the list written out
	rc, rd := NewRecorder(chooserOnly{NewRandom(11)}), NewRecorder(NewRandom(11))
	for i, l := range lists {
		if x, y := a.Choose("x", l), b.ChooseFrom("x", sparseOf(l)); x != y {
			t.Fatalf("list %d: Random answered %d over the list, %d from Options", i, x, y)
		}
		if x, y := ra.Choose("x", l), rb.ChooseFrom("x", sparseOf(l)); x != y {
			t.Fatalf("list %d: Recorder answered %d over the list, %d from Options", i, x, y)
		}
		if x, y := rd.Choose("x", l), rc.ChooseFrom("x", sparseOf(l)); x != y {
			t.Fatalf("list %d: Recorder over a plain chooser answered %d from Options, %d over the list", i, y, x)
		}
		ones := Uniform(len(l)).Dense(nil)
		if x, y := a.Choose("x", ones), b.ChooseFrom("x", Uniform(len(l))); x != y || dense(ones).Count() != len(l) {
			t.Fatalf("list %d: Random answered %d over %d ones, %d from Uniform", i, x, len(l), y)
		}
		if x, y := ra.Choose("x", ones), rb.ChooseFrom("x", Uniform(len(l))); x != y {
			t.Fatalf("list %d: Recorder answered %d over %d ones, %d from Uniform", i, x, len(l), y)
		}
	}
	if !slices.Equal(ra.Choices(), rb.Choices()) || !slices.Equal(rc.Choices(), rd.Choices()) || len(ra.Choices()) < 1000 {
		t.Fatalf("recorded %d and %d answers, not the same", len(ra.Choices()), len(rb.Choices()))
	}
	// a recording of the lists alone, and the lists its recorder asked about: decision d is over
	// asked[d]
	re := NewRecorder(NewRandom(12))
	var asked [][]uint32
	for _, l := range lists {
		re.Choose("x", l)
		if dense(l).Count() != 1 {
			asked = append(asked, l)
		}
	}
	zeroAt := slices.IndexFunc(asked[len(asked)/2:], func(l []uint32) bool { return dense(l).Count() < len(l) })
	if zeroAt < 0 {
		t.Fatal("no list with a zero entry past the middle to plant an answer naming it")
	}
	zeroAt += len(asked) / 2
	for _, plant := range []struct {
		decision, answer int
		reason           string
	}{
		{len(asked) / 2, -1, "out of range"},                                    // an answer out of range
		{zeroAt, slices.Index(asked[zeroAt], 0), "names an option that is off"}, // an answer naming a zero-weight entry
	} {
		choices := slices.Clone(re.Choices())
		choices[plant.decision] = plant.answer // a wrong answer: both replays fall back alike
		pa, pb := NewReplay(choices), NewReplay(choices)
		for i, l := range lists {
			if dense(l).Count() == 1 {
				continue // the recorder asked nothing
			}
			if x, y := pa.Choose("x", l), pb.ChooseFrom("x", sparseOf(l)); x != y {
				t.Fatalf("answer %d planted: list %d: Replay answered %d over the list, %d from Options", plant.answer, i, x, y)
			}
		}
		var ea, eb *ReplayError
		if !errors.As(pa.Err(), &ea) || !errors.As(pb.Err(), &eb) || *ea != *eb ||
			ea.Decision != plant.decision || !strings.Contains(ea.Reason, plant.reason) {
			t.Fatalf("answer %d planted at decision %d: replays erred with %v and %v", plant.answer, plant.decision, pa.Err(), pb.Err())
		}
	}
}

// chooserOnly hides a chooser's ChooseFrom.
type chooserOnly struct{ c Chooser }

func (c chooserOnly) Choose(label string, weights []uint32) int { return c.c.Choose(label, weights) }

// sparse is an Options of N entries that are zero but at the ascending indexes Index, whose
// entries are Weights (same length, none zero).
type sparse struct {
	N       int
	Index   []int32
	Weights []uint32
}

// Reset empties s for a list of n entries, keeping its storage.
func (s *sparse) Reset(n int) { s.N, s.Index, s.Weights = n, s.Index[:0], s.Weights[:0] }

// Add appends entry i (above every index added since Reset) with weight wt, unless wt is zero.
func (s *sparse) Add(i int, wt uint32) {
	if wt > 0 {
		s.Index, s.Weights = append(s.Index, int32(i)), append(s.Weights, wt)
	}
}

func (s *sparse) Len() int   { return s.N }
func (s *sparse) Count() int { return len(s.Index) }

func (s *sparse) Total() uint64 {
	var t uint64
	for _, wt := range s.Weights {
		t += uint64(wt)
	}
	return t
}

func (s *sparse) Weight(i int) uint32 {
	if n, ok := slices.BinarySearch(s.Index, int32(i)); ok {
		return s.Weights[n]
	}
	return 0
}

func (s *sparse) Find(r uint64) int {
	for n, wt := range s.Weights {
		if r < uint64(wt) {
			return int(s.Index[n])
		}
		r -= uint64(wt)
	}
	panic(fmt.Sprintf("choose: Find(%d) past a total of %d", r, s.Total()))
}

func (s *sparse) Dense(dst []uint32) []uint32 {
	from := len(dst)
	dst = append(dst, make([]uint32, s.N)...)
	for n, i := range s.Index {
		dst[from+int(i)] = s.Weights[n]
	}
	return dst
}

// TestWeightsZeroed: a list handed out again is all zeros whatever its last user wrote, and
// reuses the storage once it has grown to the longest list asked for.
func TestWeightsZeroed(t *testing.T) {
	var w Weights
	a := w.Zeroed(5)
	for i := range a {
		a[i] = uint32(i + 1)
	}
	b := w.Zeroed(3)
	if len(b) != 3 || b[0] != 0 || b[1] != 0 || b[2] != 0 {
		t.Fatalf("Zeroed(3) after a written list = %v, want three zeros", b)
	}
	if &a[0] != &b[0] {
		t.Fatal("Zeroed(3) allocated though the storage holds 5")
	}
	if c := w.Zeroed(8); len(c) != 8 || slices.ContainsFunc(c, func(x uint32) bool { return x != 0 }) {
		t.Fatalf("Zeroed(8) = %v, want eight zeros", c)
	}
}

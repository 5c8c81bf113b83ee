package chanindex

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndexAgainstDense inserts random channels in random order into an Index and into a dense
// slice (the representation it replaces) and checks after each insertion that every lookup, the
// length and the iteration in channel order agree, and the same of a copy (Rebuild); lengths
// cross linearMax and channels smallMax, so the dense view, the scan and the bisection are all
// exercised. It fails if a lookup finds a missing channel, misses a present one,
// or the values fall out of channel order.
func TestIndexAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var x Index[int]
		var dense []*int
		n := 1 + rng.IntN(3*linearMax)
		span := int32(n + rng.IntN(100))
		if round%2 == 1 { // channels past smallMax: the index drops its dense view
			span += smallMax
		}
		for range n {
			c := rng.Int32N(span)
			if int(c) < len(dense) && dense[c] != nil {
				continue
			}
			v := new(int)
			*v = int(c) * 10
			x.Insert(c, v)
			for int(c) >= len(dense) {
				dense = append(dense, nil)
			}
			dense[c] = v
			var want []*int
			var keys []int32
			for i, d := range dense {
				if d != nil {
					want = append(want, d)
					keys = append(keys, int32(i))
				}
			}
			if x.Len() != len(want) || !slices.Equal(x.Values(), want) || !slices.Equal(x.keys, keys) {
				t.Fatalf("round %d: values %v keys %v, want %v %v", round, x.Values(), x.keys, want, keys)
			}
			var cp Index[int]
			cp.Rebuild(x, slices.Clone(x.Values()))
			for q := int32(-1); q <= span; q++ {
				if (cp.At(q) == nil) != (x.At(q) == nil) || cp.At(q) != nil && *cp.At(q) != *x.At(q) {
					t.Fatalf("round %d: the copy's channel %d differs", round, q)
				}
				var d *int
				if q >= 0 && int(q) < len(dense) {
					d = dense[q]
				}
				if got := x.At(q); got != d {
					t.Fatalf("round %d: At(%d) = %v; want %v", round, q, got, d)
				}
			}
		}
	}
}

// TestInsertRefusesDuplicatesAndNil checks the invariants Insert guards: a channel present once,
// never a nil value. It fails if either insertion is accepted.
func TestInsertRefusesDuplicatesAndNil(t *testing.T) {
	for name, f := range map[string]func(x *Index[int]){
		"duplicate": func(x *Index[int]) { x.Insert(3, new(int)) },
		"nil":       func(x *Index[int]) { x.Insert(4, nil) },
	} {
		var x Index[int]
		x.Insert(3, new(int))
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Insert did not panic", name)
				}
			}()
			f(&x)
		}()
	}
}

// TestRebuildReusesStorage rebuilds an index, with copies of its values, into the storage of
// another holding other, more channels, below and past smallMax, and checks the result holds
// exactly the source's channels with the copies, and that the source is untouched. It fails if a
// channel of the reused storage survives or the result reads the source's values.
func TestRebuildReusesStorage(t *testing.T) {
	for _, base := range []int32{0, smallMax} {
		var src, old Index[int]
		a, b := 1, 2
		src.Insert(base+5, &a)
		src.Insert(base+2, &b)
		for c := int32(0); c < 20; c += 3 {
			old.Insert(c, new(int))
		}
		copies := []int{*src.Values()[0], *src.Values()[1]}
		got := old
		got.Rebuild(src, []*int{&copies[0], &copies[1]})
		if !slices.Equal(got.keys, []int32{base + 2, base + 5}) || got.At(base+2) != &copies[0] || got.At(base+5) != &copies[1] || got.At(base+3) != nil || got.At(3) != nil {
			t.Fatalf("base %d: keys %v", base, got.keys)
		}
		if *src.At(base + 5) != 1 || src.At(base+5) != &a || src.Len() != 2 {
			t.Fatalf("base %d: the source changed", base)
		}
	}
}

// TestSetsAgainstMaps adds and removes processes of random keys in random order, in a Sets and in
// a persistent one, checking after each change that every set is sorted without repeats and holds
// what a map holds, and that a copy of the persistent one taken before the change still reads what
// it read. It fails if a set loses, repeats or misorders a member, or a persistent change writes
// into a copy.
func TestSetsAgainstMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var plain Sets
	pers := Persistent()
	in := map[int]map[int32]bool{}
	for range 3000 {
		key, p := rng.IntN(12), rng.Int32N(40)
		if in[key] == nil {
			in[key] = map[int32]bool{}
		}
		old := pers
		var before [][]int32
		for k := range 12 {
			before = append(before, slices.Clone(old.Of(k)))
		}
		if rng.IntN(3) == 0 {
			plain.Remove(key, p)
			pers.Remove(key, p)
			delete(in[key], p)
		} else {
			plain.Add(key, p)
			pers.Add(key, p)
			in[key][p] = true
		}
		for k := range 12 {
			if !slices.Equal(old.Of(k), before[k]) {
				t.Fatalf("a persistent change wrote into a copy: key %d reads %v, was %v", k, old.Of(k), before[k])
			}
		}
		for _, s := range []*Sets{&plain, &pers} {
			set := s.Of(key)
			if !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) || len(set) != len(in[key]) {
				t.Fatalf("set %v of key %d, want the sorted members of %v", set, key, in[key])
			}
			for _, q := range set {
				if !in[key][q] {
					t.Fatalf("set %v of key %d holds %d", set, key, q)
				}
			}
		}
	}
	if plain.Of(-1) != nil || plain.Of(1000) != nil {
		t.Fatalf("a key never added has a set")
	}
}

package sim

import (
	"math/rand/v2"
	"testing"
)

// TestVisitedSetMatchesMap drives a visitedSet and a Go map with the same puts (new keys, updates,
// the all-zero key, keys crowding one home slot so runs wrap around the table's end and Robin Hood
// displacement happens, enough keys to grow the table several times) and checks after every
// step that a lookup of the key agrees, and at the end that both hold exactly the same entries.
func TestVisitedSetMatchesMap(t *testing.T) {
	for _, withDepths := range []bool{false, true} {
		testVisitedSetMatchesMap(t, withDepths)
	}
}

// TestVisitedSetMapped is TestVisitedSetMatchesMap with every table past the first in storage of
// its own outside the Go heap (explore_visited_mem_linux.go; elsewhere the same Go slices), so
// growing, reading and freeing mapped tables is exercised.
func TestVisitedSetMapped(t *testing.T) {
	defer func(old int) { hugeTableMinBytes = old }(hugeTableMinBytes)
	hugeTableMinBytes = 2 * visitedMinSlots * 24
	s := testVisitedSetMatchesMap(t, false)
	if mappingSupported && s.mem.mapped == nil {
		t.Fatalf("a table of %d slots is not mapped", len(s.slots))
	}
	s.free()
	if s.slots != nil || s.Len() != 0 {
		t.Fatal("a freed set still has slots")
	}
}

// testVisitedSetMatchesMap is TestVisitedSetMatchesMap's check, returning the set it filled.
func testVisitedSetMatchesMap(t *testing.T, withDepths bool) *visitedSet {
	rng := rand.New(rand.NewPCG(7, 11))
	s := newVisitedSet(withDepths)
	m := make(map[hashKey]visit)
	var keys []hashKey
	for step := range 40_000 {
		var k hashKey
		switch r := rng.IntN(10); {
		case r < 3 && len(keys) > 0:
			k = keys[rng.IntN(len(keys))] // an update
		case r == 3:
			k = hashKey{rng.Uint64()<<12 | visitedMinSlots - 1, rng.Uint64()} // crowd the last home slot
		case r == 4 && step%1000 == 0:
			k = hashKey{}
		default:
			k = hashKey{rng.Uint64(), rng.Uint64()}
		}
		v := visit{sleep: rng.Uint64()}
		if withDepths {
			v.depth = rng.Int32N(100)
		}
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] = v
		s.put(k, v)
		if got, ok := s.get(k); !ok || got != v {
			t.Fatalf("depths %v step %d: get after put = %v %v, want %v", withDepths, step, got, ok, v)
		}
		absent := hashKey{rng.Uint64(), rng.Uint64()}
		if _, inMap := m[absent]; !inMap {
			if _, ok := s.get(absent); ok {
				t.Fatalf("depths %v step %d: an absent key is found", withDepths, step)
			}
		}
	}
	if s.Len() != len(m) {
		t.Fatalf("depths %v: %d entries, map has %d", withDepths, s.Len(), len(m))
	}
	seen := 0
	s.each(func(k hashKey, v visit) {
		seen++
		if w, ok := m[k]; !ok || w != v {
			t.Fatalf("depths %v: entry %v = %v, map has %v %v", withDepths, k, v, w, ok)
		}
	})
	if seen != len(m) || len(s.slots) <= visitedMinSlots {
		t.Fatalf("depths %v: each saw %d of %d entries; table of %d slots never grew", withDepths, seen, len(m), len(s.slots))
	}
	return s
}

package visited

import (
	"math/rand/v2"
	"testing"
)

// TestSetMatchesMap drives a Set and a Go map with the same puts (new keys, updates,
// the all-zero key, keys crowding one home slot so runs wrap around the table's end and Robin Hood
// displacement happens, enough keys to grow the table several times) and checks after every
// step that a lookup of the key agrees, and at the end that both hold exactly the same entries.
func TestSetMatchesMap(t *testing.T) {
	for _, withDepths := range []bool{false, true} {
		testSetMatchesMap(t, withDepths)
	}
}

// TestSetMapped is TestSetMatchesMap with every table past the first in storage of
// its own outside the Go heap (mem_linux.go; elsewhere the same Go slices), so
// growing, reading and freeing mapped tables is exercised.
func TestSetMapped(t *testing.T) {
	defer func(old int) { hugeTableMinBytes = old }(hugeTableMinBytes)
	hugeTableMinBytes = 2 * minSlots * 24
	s := testSetMatchesMap(t, false)
	if mappingSupported && s.mem.mapped == nil {
		t.Fatalf("a table of %d slots is not mapped", len(s.slots))
	}
	s.Free()
	if s.slots != nil || s.count() != 0 {
		t.Fatal("a freed set still has slots")
	}
}

// testSetMatchesMap is TestSetMatchesMap's check, returning the set it filled.
func testSetMatchesMap(t *testing.T, withDepths bool) *Set {
	rng := rand.New(rand.NewPCG(7, 11))
	s := New(withDepths, 0)
	m := make(map[key]Visit)
	var keys []key
	for step := range 40_000 {
		var k key
		switch r := rng.IntN(10); {
		case r < 3 && len(keys) > 0:
			k = keys[rng.IntN(len(keys))] // an update
		case r == 3:
			k = key{rng.Uint64()<<12 | minSlots - 1, rng.Uint64()} // crowd the last home slot
		case r == 4 && step%1000 == 0:
			k = key{}
		default:
			k = key{rng.Uint64(), rng.Uint64()}
		}
		v := Visit{Sleep: rng.Uint64()}
		if withDepths {
			v.Depth = rng.Int32N(100)
		}
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] = v
		s.Put(k, v)
		if got, ok := s.Get(k); !ok || got != v {
			t.Fatalf("depths %v step %d: get after put = %v %v, want %v", withDepths, step, got, ok, v)
		}
		absent := key{rng.Uint64(), rng.Uint64()}
		if _, inMap := m[absent]; !inMap {
			if _, ok := s.Get(absent); ok {
				t.Fatalf("depths %v step %d: an absent key is found", withDepths, step)
			}
		}
	}
	if s.count() != len(m) {
		t.Fatalf("depths %v: %d entries, map has %d", withDepths, s.count(), len(m))
	}
	seen := 0
	s.each(func(k key, v Visit) {
		seen++
		if w, ok := m[k]; !ok || w != v {
			t.Fatalf("depths %v: entry %v = %v, map has %v %v", withDepths, k, v, w, ok)
		}
	})
	if seen != len(m) || len(s.slots) <= minSlots {
		t.Fatalf("depths %v: each saw %d of %d entries; table of %d slots never grew", withDepths, seen, len(m), len(s.slots))
	}
	return s
}

// Package visited is the explorer's visited set: every state's 128-bit hash with the sleep set it
// was expanded with and (in a depth-bounded exploration) the smallest depth it was reached at. It is looked up on
// every transition and holds millions of entries, so it is an open-addressing table rather than
// a Go map: a flat, pointer-free slice of 24-byte slots indexed by the hash's low bits (the key
// is already a uniform hash, so it is not hashed again), linear probing with Robin Hood
// displacement (a slot's entry is never further from its home slot than the entry being looked
// for, so a miss stops early and a lookup touches one or two cache lines even at a load of 7/8).
// Depths live in a parallel slice made only for a bounded exploration. A Go map of the same
// entries costs about 50 bytes an entry and two to three cache misses a lookup; this table
// costs 24/load bytes (27-55) and one miss. On Linux a large table lives outside the Go heap in
// huge pages (mem_linux.go), so that miss is not also a TLB miss; the explorer frees it when
// the exploration ends.
package visited

// Visit is what the explorer keeps of a visited state: the sleep set it was expanded with and the
// smallest depth it was reached at.
type Visit struct {
	Sleep uint64
	Depth int32
}

// Set maps state hashes to visits. The zero value is not usable: New.
type Set struct {
	slots  []visitSlot // len is a power of two; an empty slot has the zero key; in mem
	mem    slotMemory
	depths []int32 // depths[i] is slots[i]'s visit depth; nil when depths are not kept
	mask   uint64  // len(slots)-1
	n      int     // entries in slots (the zero key's entry is in zero)
	// zero is the entry of the all-zero key, which marks empty slots (a hash that is zero in both
	// halves is possible in principle, so it is kept aside rather than ruled out).
	zero    Visit
	hasZero bool
	// mapFrom is the table size from which it is mapped outside the Go heap (0:
	// hugeTableMinBytes).
	mapFrom int
}

// key is a state's 128-bit hash.
type key [2]uint64

// visitSlot is one slot: a state hash and the sleep set of its visit.
type visitSlot struct {
	key   key
	sleep uint64
}

// minSlots is a new table's size.
const minSlots = 1 << 10

// New returns an empty set; withDepths keeps each visit's depth (a bounded exploration reads it;
// an unbounded one stores visits with depth 0). mapFrom is the table size in bytes from which the
// table is mapped outside the Go heap (0: hugeTableMinBytes).
func New(withDepths bool, mapFrom int) *Set {
	s := &Set{mapFrom: mapFrom}
	s.resize(minSlots, withDepths)
	return s
}

// count returns the number of entries (for tests).
func (s *Set) count() int {
	if s.hasZero {
		return s.n + 1
	}
	return s.n
}

// Get returns the visit of the state whose hash is k and whether it is in the set.
func (s *Set) Get(k [2]uint64) (Visit, bool) {
	if key(k) == (key{}) {
		return s.zero, s.hasZero
	}
	i, ok := s.find(key(k))
	if !ok {
		return Visit{}, false
	}
	v := Visit{Sleep: s.slots[i].sleep}
	if s.depths != nil {
		v.Depth = s.depths[i]
	}
	return v, true
}

// find returns the slot holding k and true, or false when k is absent.
func (s *Set) find(k key) (uint64, bool) {
	i := k[0] & s.mask
	for d := uint64(0); ; d++ {
		sl := &s.slots[i]
		if sl.key == k {
			return i, true
		}
		if sl.key == (key{}) || s.dist(i, sl.key) < d {
			return 0, false // an entry this far from home would have displaced this one
		}
		i = (i + 1) & s.mask
	}
}

// dist returns how far slot i is from the home slot of key k.
func (s *Set) dist(i uint64, k key) uint64 { return (i - k[0]) & s.mask }

// Put sets the visit of the state whose hash is k (adding it when absent).
func (s *Set) Put(k [2]uint64, v Visit) {
	if key(k) == (key{}) {
		s.zero, s.hasZero = v, true
		return
	}
	if i, ok := s.find(key(k)); ok {
		s.slots[i].sleep = v.Sleep
		if s.depths != nil {
			s.depths[i] = v.Depth
		}
		return
	}
	if (s.n+1)*8 > len(s.slots)*7 {
		s.resize(2*len(s.slots), s.depths != nil)
	}
	s.insert(visitSlot{key: key(k), sleep: v.Sleep}, v.Depth)
	s.n++
}

// insert places an absent entry, displacing entries closer to their home slot (Robin Hood).
func (s *Set) insert(e visitSlot, depth int32) {
	i := e.key[0] & s.mask
	for d := uint64(0); ; d++ {
		sl := &s.slots[i]
		if sl.key == (key{}) {
			*sl = e
			if s.depths != nil {
				s.depths[i] = depth
			}
			return
		}
		if od := s.dist(i, sl.key); od < d {
			*sl, e = e, *sl
			if s.depths != nil {
				s.depths[i], depth = depth, s.depths[i]
			}
			d = od
		}
		i = (i + 1) & s.mask
	}
}

// resize moves every entry into a table of n slots (a power of two).
func (s *Set) resize(n int, withDepths bool) {
	old, oldDepths, oldMem := s.slots, s.depths, s.mem
	s.mem = newSlotMemory(n, s.mapFrom)
	s.slots, s.mask = s.mem.slots, uint64(n-1)
	s.depths = nil
	if withDepths {
		s.depths = make([]int32, n)
	}
	for i := range old {
		if old[i].key == (key{}) {
			continue
		}
		var depth int32
		if oldDepths != nil {
			depth = oldDepths[i]
		}
		s.insert(old[i], depth)
	}
	oldMem.free()
}

// Free gives the table's storage back: the set must not be used afterwards.
func (s *Set) Free() {
	s.mem.free()
	*s = Set{mapFrom: s.mapFrom}
}

// each calls f with every entry, in no particular order (for tests).
func (s *Set) each(f func(k key, v Visit)) {
	if s.hasZero {
		f(key{}, s.zero)
	}
	for i := range s.slots {
		if s.slots[i].key == (key{}) {
			continue
		}
		v := Visit{Sleep: s.slots[i].sleep}
		if s.depths != nil {
			v.Depth = s.depths[i]
		}
		f(s.slots[i].key, v)
	}
}

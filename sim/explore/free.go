package explore

// freeList holds worlds the search released (their subtrees explored, or never entered), for
// the next clone to reuse the storage of (World.Clone's into): reusing a world spares the
// allocator and the collector most of a transition's garbage. It holds at most freeWorldsMax.
// The zero value is empty; it belongs to one search. A nil freeList holds nothing and takes
// nothing back.
type freeList struct {
	worlds []World
}

// freeWorldsMax bounds a freeList.
const freeWorldsMax = 64

// Release adds w to the list and reports whether it did (not when the list is full). A released
// world must not be read afterwards.
func (l *freeList) Release(w World) bool {
	if l == nil || len(l.worlds) >= freeWorldsMax {
		return false
	}
	l.worlds = append(l.worlds, w)
	return true
}

// Take removes a released world from the list and returns it, or nil when there is none. The
// list keeps no reference to it.
func (l *freeList) Take() World {
	if l == nil || len(l.worlds) == 0 {
		return nil
	}
	n := len(l.worlds)
	w := l.worlds[n-1]
	l.worlds[n-1] = nil
	l.worlds = l.worlds[:n-1]
	return w
}

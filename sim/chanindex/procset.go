package chanindex

import "slices"

// Sets is a family of process sets keyed by a small dense number (a channel, a topic): each a
// sorted list of process numbers without repeats, such as the processes that hold a state for
// one channel, or that declare one topic. A world keeps them so that the choices that weigh a
// channel's or a topic's receivers visit those receivers only, not every process of the world,
// and visit them in process order, as a scan of every process would.
//
// The zero Sets is empty and ready, and changes its lists in place. A Sets made by Persistent
// never writes into memory a copy of it may read: its changes copy what they change. Worlds that
// share their sets by value (the explorer's clones) use one.
type Sets struct {
	of         [][]int32
	persistent bool
}

// Persistent returns an empty Sets whose changes copy what they change.
func Persistent() Sets { return Sets{persistent: true} }

// Clone returns a copy of s that shares no memory with it, for a copy of a world whose original
// goes on changing its own sets in place.
func (s *Sets) Clone() Sets {
	c := Sets{of: make([][]int32, len(s.of)), persistent: s.persistent}
	for k, l := range s.of {
		c.of[k] = slices.Clone(l)
	}
	return c
}

// Of returns the set of key, sorted; nil when it is empty. The caller must not change it.
func (s *Sets) Of(key int) []int32 {
	if key < 0 || key >= len(s.of) {
		return nil
	}
	return s.of[key]
}

// Add puts p in the set of key.
func (s *Sets) Add(key int, p int32) {
	i, ok := slices.BinarySearch(s.Of(key), p)
	if ok {
		return
	}
	s.own(key)
	s.of[key] = slices.Insert(s.of[key], i, p)
}

// Remove takes p out of the set of key.
func (s *Sets) Remove(key int, p int32) {
	i, ok := slices.BinarySearch(s.Of(key), p)
	if !ok {
		return
	}
	s.own(key)
	s.of[key] = slices.Delete(s.of[key], i, i+1)
}

// own makes room for key and, for a persistent Sets, gives it its own copy of the key's outer
// slot and of the key's list before they change.
func (s *Sets) own(key int) {
	if s.persistent {
		s.of = slices.Clone(s.of)
	}
	for key >= len(s.of) {
		s.of = append(s.of, nil)
	}
	if s.persistent {
		s.of[key] = slices.Clone(s.of[key])
	}
}

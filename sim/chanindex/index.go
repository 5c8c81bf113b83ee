// Package chanindex holds Index, the sparse per-channel index a process keeps of its channel
// states: the host's read state of each channel it ever received, and the oracle's view of the
// same pairs.
//
// A world numbers its channels densely, from 0 to the world's channel count, but one process
// only ever receives a few of them. A dense slice indexed by channel number costs every process
// memory in proportion to the highest channel it received, which makes a world's memory grow
// with the square of its size (process i of a generated topology receives channels near 12i).
// Index keeps only the channels present, sorted by channel, in two parallel slices: a lookup is a
// binary search over the keys (contiguous, a few cache lines for the tens of channels a process
// receives), an iteration reads the values in channel order, and a copy costs what the process
// holds, not what the world holds. While every channel it holds is below smallMax (the worlds of
// explorations and of ordinary runs), it also keeps the dense slice, whose lookup is one load:
// the explorer looks channels up on every transition and copies the indexes of the processes
// each transition changes.
package chanindex

import "slices"

// Index maps channel numbers to *T, holding only the channels present. Invariant: keys is sorted
// strictly increasing and vals[i] is the value of keys[i] (never nil). The zero Index is empty
// and ready to use.
//
// An Index is a value over shared backing arrays, like a slice: a copy of it reads the same
// channels. Insert may write into the values' arrays, so only the owner of the storage may call
// it (callers that share an index between worlds copy it with Rebuild first); it never writes
// into the keys' array, which copies made by Rebuild share.
type Index[T any] struct {
	keys []int32
	vals []*T
	// small is the dense view, small[c] the value of channel c or nil, kept while big is unset.
	small []*T
	big   bool // a channel at or above smallMax is present: small is not kept
}

// smallMax bounds the channels of an index that keeps its dense view: at most smallMax pointers.
const smallMax = 1024

// Len is the number of channels present.
func (x Index[T]) Len() int { return len(x.keys) }

// search returns where channel c is, or would be inserted, and whether it is present.
func (x Index[T]) search(c int32) (int, bool) {
	if len(x.keys) <= linearMax {
		for i, k := range x.keys {
			if k >= c {
				return i, k == c
			}
		}
		return len(x.keys), false
	}
	return slices.BinarySearch(x.keys, c)
}

// linearMax is the length up to which search scans instead of bisecting: a scan beats a
// bisection over the few channels most processes hold.
const linearMax = 8

// At returns channel c's value, nil if there is none. Written without calls, so that it inlines:
// the explorer looks channels up on every transition.
func (x Index[T]) At(c int32) *T {
	if uint32(c) < uint32(len(x.small)) {
		return x.small[c]
	}
	lo, hi := 0, len(x.keys)
	for x.big && lo < hi {
		if m := int(uint(lo+hi) >> 1); x.keys[m] < c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if x.big && lo < len(x.keys) && x.keys[lo] == c {
		return x.vals[lo]
	}
	return nil
}

// Insert adds channel c with value v (not nil), which must not be present, keeping the channels
// sorted; it reports the position v took in Values.
func (x *Index[T]) Insert(c int32, v *T) int {
	if v == nil {
		panic("chanindex: Insert of a nil value")
	}
	i, ok := x.search(c)
	if ok {
		panic("chanindex: Insert of a channel already present")
	}
	x.keys = slices.Insert(slices.Clip(x.keys), i, c) // a new array: copies share the keys
	x.vals = slices.Insert(x.vals, i, v)
	switch {
	case x.big:
	case c < 0 || c >= smallMax:
		x.big, x.small = true, nil
	default:
		for int(c) >= len(x.small) {
			x.small = append(x.small, nil)
		}
		x.small[c] = v
	}
	return i
}

// Values returns the values in channel order. The caller must not change the slice.
func (x Index[T]) Values() []*T { return x.vals }

// Rebuild makes x an index over from's channels whose values are vals (vals[i] the value of the
// i-th channel in order, such as a copy of from's), reusing x's storage, whose contents are
// dropped (vals may reuse x.Values' storage). It is how a process copies its channel states to
// storage of its own: the caller copies the values, the index their places. The two indexes share
// the keys, which Insert never changes in place.
func (x *Index[T]) Rebuild(from Index[T], vals []*T) {
	if len(vals) != len(from.keys) {
		panic("chanindex: Rebuild with a value count other than the index's")
	}
	x.keys, x.vals, x.big = from.keys, vals, from.big
	x.small = x.small[:0]
	if !from.big {
		x.small = slices.Grow(x.small, len(from.small))[:len(from.small)]
		clear(x.small)
		for i, c := range x.keys {
			x.small[c] = vals[i]
		}
	}
}

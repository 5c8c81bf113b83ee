package node

import (
	"fmt"
	"slices"
	"strings"
)

// Cause is one entry of a frontier: every cause on Channel at or below Position.
type Cause struct {
	Channel  Channel
	Position Offset
}

// Causes is a frontier: at most one position per channel, held in channel order.
//
// Representation: a slice sorted by channel with unique channels. The wire format lists channels
// in exactly this order, so decode appends without sorting, encode walks the slice once, a
// pointwise-max merge is a linear merge of two sorted slices, and the gate's per-channel lookups
// are binary searches over a contiguous array. Frontiers are small (one entry per reachable
// channel), so this beats a map on every hot path and gives deterministic iteration for free.
//
// The zero value is the empty frontier. Causes values are mutable through pointer methods; a
// Causes obtained from another must be cloned before it is changed independently.
//
// Invariant: pairs is strictly ascending by channel, every channel valid, every position in
// 0..MaxOffset−1 (MaxOffset only inside the engine's fedUpTo, never in a Causes).
type Causes struct {
	pairs []Cause
}

// CausesOf builds a frontier from pairs in any order, keeping the maximum position per channel.
// It panics on an invalid channel or a position outside 0..MaxOffset−1: callers at the edges
// validate first.
func CausesOf(pairs ...Cause) Causes {
	var c Causes
	for _, p := range pairs {
		c.Merge(p.Channel, p.Position)
	}
	return c
}

// Len returns the number of channels the frontier names.
func (c Causes) Len() int { return len(c.pairs) }

// IsEmpty reports whether the frontier names no channel.
func (c Causes) IsEmpty() bool { return len(c.pairs) == 0 }

// Pairs returns the entries in channel order. The slice is shared: callers must not modify it.
func (c Causes) Pairs() []Cause { return c.pairs }

// Lookup returns the position named for ch, if any.
func (c Causes) Lookup(ch Channel) (Offset, bool) {
	if i, ok := c.search(ch); ok {
		return c.pairs[i].Position, true
	}
	return 0, false
}

// search finds ch by binary search; i is its index or its insertion point. The probe compares
// integer keys inline: it is on the merge, lookup and commit paths.
func (c Causes) search(ch Channel) (int, bool) {
	k := keyOf(&ch)
	lo, hi := 0, len(c.pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(&c.pairs[m].Channel).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(c.pairs) && c.pairs[lo].Channel == ch
}

// Merge raises the position named for ch to at least pos, and reports whether the frontier
// changed. It panics on an invalid channel or position (a programming error past the gateway).
func (c *Causes) Merge(ch Channel, pos Offset) bool {
	if !ch.valid() || pos < 0 || pos >= MaxOffset {
		panic(fmt.Sprintf("node: merging invalid cause %v@%d", ch, pos))
	}
	if n := len(c.pairs); n == 0 || keyOf(&c.pairs[n-1].Channel).less(keyOf(&ch)) {
		c.pairs = append(c.pairs, Cause{Channel: ch, Position: pos}) // after every channel: no search
		return true
	}
	i, ok := c.search(ch)
	if ok {
		if c.pairs[i].Position >= pos {
			return false
		}
		c.pairs[i].Position = pos
		return true
	}
	c.pairs = slices.Insert(c.pairs, i, Cause{Channel: ch, Position: pos})
	return true
}

// MergeFrom raises c pointwise to at least other (a pointwise maximum) and reports whether c
// changed. It costs O(len(c)+len(other)), and nothing when other is already covered entry by
// entry without insertions.
func (c *Causes) MergeFrom(other Causes) bool {
	if len(other.pairs) == 0 {
		return false
	}
	// Fast path: every channel of other is already present; raise in place.
	changed := false
	i := 0
	for j := range other.pairs {
		o := &other.pairs[j]
		k := keyOf(&o.Channel)
		for i < len(c.pairs) && keyOf(&c.pairs[i].Channel).less(k) {
			i++
		}
		if i == len(c.pairs) || c.pairs[i].Channel != o.Channel {
			return c.mergeSlow(other) || changed
		}
		if o.Position > c.pairs[i].Position {
			c.pairs[i].Position = o.Position
			changed = true
		}
	}
	return changed
}

// mergeSlow rebuilds the pair slice as the sorted union of c and other.
func (c *Causes) mergeSlow(other Causes) bool {
	merged := make([]Cause, 0, len(c.pairs)+len(other.pairs))
	a, b := c.pairs, other.pairs
	for len(a) > 0 && len(b) > 0 {
		ka, kb := keyOf(&a[0].Channel), keyOf(&b[0].Channel)
		switch {
		case ka.less(kb):
			merged = append(merged, a[0])
			a = a[1:]
		case kb.less(ka):
			merged = append(merged, b[0])
			b = b[1:]
		default:
			merged = append(merged, Cause{Channel: a[0].Channel, Position: max(a[0].Position, b[0].Position)})
			a, b = a[1:], b[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	c.pairs = merged
	return true
}

// Covers reports whether c is at or above other on every channel other names.
func (c Causes) Covers(other Causes) bool {
	for _, o := range other.pairs {
		p, ok := c.Lookup(o.Channel)
		if !ok || p < o.Position {
			return false
		}
	}
	return true
}

// Remove deletes ch from the frontier and reports whether it was present.
func (c *Causes) Remove(ch Channel) bool {
	i, ok := c.search(ch)
	if ok {
		c.pairs = slices.Delete(c.pairs, i, i+1)
	}
	return ok
}

// Equal reports whether two frontiers name the same positions on the same channels.
func (c Causes) Equal(other Causes) bool { return slices.Equal(c.pairs, other.pairs) }

// Clone returns an independent copy.
func (c Causes) Clone() Causes {
	if len(c.pairs) == 0 {
		return Causes{}
	}
	return Causes{pairs: slices.Clone(c.pairs)}
}

// CloneInto returns an independent copy of c whose entries live in room's storage when room has
// the capacity for them (else in new storage, as Clone). The copy's capacity is room's: changing
// it never writes past cap(room) (an insertion beyond reallocates), so a caller can carve rooms
// for many frontiers from one block. room's spare capacity stays with the copy for insertions.
func (c Causes) CloneInto(room []Cause) Causes {
	if cap(room) < len(c.pairs) {
		return c.Clone()
	}
	return Causes{pairs: append(room[:0], c.pairs...)}
}

// Reset empties the frontier, keeping its storage for reuse.
func (c *Causes) Reset() { c.pairs = c.pairs[:0] }

// String renders the frontier as {topic/partition@position, ...} in channel order.
func (c Causes) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range c.pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v@%d", p.Channel, p.Position)
	}
	b.WriteByte('}')
	return b.String()
}

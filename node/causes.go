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
// changed. It costs O(len(c)+len(other)), and allocates only when c lacks channels of other and
// has no room for them (insertMissing).
func (c *Causes) MergeFrom(other Causes) bool {
	// Raise in place the channels c has, and count those it lacks.
	changed, missing := false, 0
	i := 0
	for j := range other.pairs {
		o := &other.pairs[j]
		k := keyOf(&o.Channel)
		for i < len(c.pairs) && keyOf(&c.pairs[i].Channel).less(k) {
			i++
		}
		if i == len(c.pairs) || c.pairs[i].Channel != o.Channel {
			missing++
		} else if o.Position > c.pairs[i].Position {
			c.pairs[i].Position = o.Position
			changed = true
		}
	}
	if missing == 0 {
		return changed
	}
	c.insertMissing(other, len(c.pairs)+missing)
	return true
}

// insertMissing makes c, already at or above other on every channel both name, the sorted union
// of c and other (n entries), merging from the back: in place when c has the capacity and other
// does not share c's array (two slices share one exactly when their last elements within
// capacity are the same: a write could then overwrite an entry of other not yet read); else in a
// new slice with room for both.
func (c *Causes) insertMissing(other Causes, n int) {
	a, b := c.pairs, other.pairs
	out := a[:cap(a)]
	if n > cap(a) || &out[cap(a)-1] == &b[:cap(b)][cap(b)-1] {
		out = make([]Cause, len(a)+len(b))
		copy(out, a)
	}
	i, j := len(a)-1, len(b)-1
	for k := n - 1; i >= 0 && j >= 0; k-- {
		switch ka, kb := keyOf(&a[i].Channel), keyOf(&b[j].Channel); {
		case ka == kb: // a's position is at or above b's already
			out[k], i, j = a[i], i-1, j-1
		case kb.less(ka):
			out[k], i = a[i], i-1
		default:
			out[k], j = b[j], j-1
		}
	}
	copy(out, b[:j+1]) // if b ran out first, a's first entries are in place already
	c.pairs = out[:n]
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

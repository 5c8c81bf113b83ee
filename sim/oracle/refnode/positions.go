package refnode

import "slices"

// Positions maps channels to positions: fedUpTo per channel, a frontier, a delivered past, the
// causes a message carries. It is kept as a slice sorted by channel with one entry per channel,
// so walking it visits channels in channel order — the order SPEC asks for wherever order
// matters (the drain's scan, the wire's listing) — and copying it is one copy. Use its methods;
// the zero value is the empty map.
type Positions []Entry

// Entry is one channel's position.
type Entry struct {
	Channel  Channel
	Position Position
}

// find returns where c is, or would be inserted, and whether it is there (a binary search).
func (p Positions) find(c Channel) (int, bool) {
	k := keyOf(c)
	lo, hi := 0, len(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(p[m].Channel).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(p) && p[lo].Channel == c
}

// Get returns c's position, if p has one.
func (p Positions) Get(c Channel) (Position, bool) {
	if i, ok := p.find(c); ok {
		return p[i].Position, true
	}
	return 0, false
}

// Set sets c's position.
func (p *Positions) Set(c Channel, pos Position) {
	if q := *p; len(q) == 0 || keyOf(q[len(q)-1].Channel).less(keyOf(c)) {
		*p = append(q, Entry{Channel: c, Position: pos}) // after every channel: no search
		return
	}
	i, ok := p.find(c)
	if ok {
		(*p)[i].Position = pos
		return
	}
	*p = slices.Insert(*p, i, Entry{Channel: c, Position: pos})
}

// Raise raises c's position to at least pos (sets it when p has none).
func (p *Positions) Raise(c Channel, pos Position) {
	i, ok := p.find(c)
	switch {
	case !ok:
		*p = slices.Insert(*p, i, Entry{Channel: c, Position: pos})
	case (*p)[i].Position < pos:
		(*p)[i].Position = pos
	}
}

// positionsOf builds a map from entries in any order; a channel named twice keeps the larger
// position.
func positionsOf(entries ...Entry) Positions {
	var p Positions
	for _, e := range entries {
		p.Raise(e.Channel, e.Position)
	}
	return p
}

// Buffer is one channel's hold-back buffer: its held messages in position order. Only the node
// that holds a buffer appends to its messages in place, and a delivery only reslices them; a
// clone of a node and a committed state get views clipped to their length (clipped), so an
// append through a view copies the messages first and never writes where another holder reads.
type Buffer struct {
	Channel  Channel
	Messages []*Message // never changed once held
}

// buffers are the hold-back buffers of a node or state, sorted by channel, none empty.
type buffers []Buffer

func (b buffers) find(c Channel) (int, bool) {
	k := keyOf(c)
	lo, hi := 0, len(b)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(b[m].Channel).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(b) && b[lo].Channel == c
}

// on returns c's held messages (nil when none).
func (b buffers) on(c Channel) []*Message {
	if i, ok := b.find(c); ok {
		return b[i].Messages
	}
	return nil
}

// clipped returns b with every buffer's messages clipped to their length, in a new list.
func (b buffers) clipped() buffers {
	out := make(buffers, len(b))
	for i, x := range b {
		out[i] = Buffer{Channel: x.Channel, Messages: slices.Clip(x.Messages)}
	}
	return out
}

// same reports whether b and c hold the same messages on the same channels. Held messages never
// change and a buffer only loses heads or gains tails, so two views of a channel's buffer with
// the same first message and length hold the same messages.
func (b buffers) same(c buffers) bool {
	if len(b) != len(c) {
		return false
	}
	for i := range b {
		x, y := b[i].Messages, c[i].Messages
		if b[i].Channel != c[i].Channel || len(x) != len(y) || (len(x) > 0 && x[0] != y[0]) {
			return false
		}
	}
	return true
}

// set makes msgs c's buffer (removing it when msgs is empty).
func (b *buffers) set(c Channel, msgs []*Message) {
	i, ok := b.find(c)
	switch {
	case ok && len(msgs) == 0:
		*b = slices.Delete(*b, i, i+1)
	case ok:
		(*b)[i].Messages = msgs
	case len(msgs) > 0:
		*b = slices.Insert(*b, i, Buffer{Channel: c, Messages: msgs})
	}
}

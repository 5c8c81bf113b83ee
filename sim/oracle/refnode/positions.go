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

// find returns where c is, or would be inserted, and whether it is there.
func (p Positions) find(c Channel) (int, bool) {
	return slices.BinarySearchFunc(p, c, func(e Entry, c Channel) int { return compareChannels(e.Channel, c) })
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
	if q := *p; len(q) == 0 || compareChannels(q[len(q)-1].Channel, c) < 0 {
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

// Delete removes c.
func (p *Positions) Delete(c Channel) {
	if i, ok := p.find(c); ok {
		*p = slices.Delete(*p, i, i+1)
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
	return slices.BinarySearchFunc(b, c, func(x Buffer, c Channel) int { return compareChannels(x.Channel, c) })
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

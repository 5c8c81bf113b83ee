package oracle

import (
	"encoding/binary"
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// Comparisons of frontiers the checkers make.

// channelKey is a channel as integers in channel order (node.Channel.Compare's): the topic ID's
// big-endian halves, then the partition: at most three integer compares, which the walks over
// sorted frontiers make inline.
type channelKey struct {
	hi, lo    uint64
	partition node.Partition
}

// keyOf is ch's key; it takes a pointer so that a walk reads the topic ID in place.
func keyOf(ch *node.Channel) channelKey {
	return channelKey{binary.BigEndian.Uint64(ch.Topic[:8]), binary.BigEndian.Uint64(ch.Topic[8:]), ch.Partition}
}

// less reports whether k sorts before m in channel order.
func (k channelKey) less(m channelKey) bool {
	if k.hi != m.hi {
		return k.hi < m.hi
	}
	if k.lo != m.lo {
		return k.lo < m.lo
	}
	return k.partition < m.partition
}

// FirstUncovered returns the first pair of want (channel order) that have does not reach.
func FirstUncovered(have, want node.Causes) (node.Channel, node.Offset, bool) {
	c, ok := firstUncovered(have, want, nil)
	return c.Channel, c.Position, ok
}

// firstUncovered returns the first pair of want (channel order) that have does not reach and
// excused (when not nil) does not excuse, in one walk of both frontiers.
func firstUncovered(have, want node.Causes, excused func(node.Cause) bool) (node.Cause, bool) {
	pairs, i := have.Pairs(), 0
	for j, wanted := 0, want.Pairs(); j < len(wanted); j++ {
		c := &wanted[j]
		k := keyOf(&c.Channel)
		for i < len(pairs) && keyOf(&pairs[i].Channel).less(k) {
			i++
		}
		if i < len(pairs) && pairs[i].Channel == c.Channel && pairs[i].Position >= c.Position {
			continue
		}
		if excused != nil && excused(*c) {
			continue
		}
		return *c, true
	}
	return node.Cause{}, false
}

// TruePos renders the position a frontier names on a channel, or "nothing".
func TruePos(f node.Causes, nc node.Channel) string {
	if pos, ok := f.Lookup(nc); ok {
		return fmt.Sprint(pos)
	}
	return "nothing"
}

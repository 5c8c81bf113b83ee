package oracle

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// Comparisons of frontiers the checkers make.

// LookupFrom finds ch in pairs (sorted by channel) starting at cursor *i, which it advances: a
// walk over a second sorted list in order costs O(len(pairs) + queries) in all.
func LookupFrom(pairs []node.Cause, i *int, ch node.Channel) (node.Offset, bool) {
	for *i < len(pairs) && pairs[*i].Channel.Compare(ch) < 0 {
		*i++
	}
	if *i < len(pairs) && pairs[*i].Channel == ch {
		return pairs[*i].Position, true
	}
	return 0, false
}

// FirstUncovered returns the first pair of want (channel order) that have does not reach.
func FirstUncovered(have, want node.Causes) (node.Channel, node.Offset, bool) {
	c, ok := firstUncovered(have, want, nil)
	return c.Channel, c.Position, ok
}

// firstUncovered returns the first pair of want (channel order) that have does not reach and
// excused (when not nil) does not excuse, in one walk of both frontiers.
func firstUncovered(have, want node.Causes, excused func(node.Cause) bool) (node.Cause, bool) {
	pairs, cur := have.Pairs(), 0
	for _, c := range want.Pairs() {
		if got, ok := LookupFrom(pairs, &cur, c.Channel); ok && got >= c.Position {
			continue
		}
		if excused != nil && excused(c) {
			continue
		}
		return c, true
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

package session

import "github.com/parsleysim/parsleysim/node"

// Meet returns the pointwise minimum of the pasts over the channels every one of them names: a
// channel missing from any past is absent from the meet, so coverage on it fails closed.
//
// A read tier over a collection spanning partitions gates on the meet of the per-partition
// recorded pasts (SPEC §5.3): every partition has then recorded at least the meet, so the meet
// covers a token only when every partition does. Refresh a token from the meet plus the
// contributing partitions' own coordinates, never from a max-merged superset. Meet() of no pasts
// is the empty past (it covers only the empty token), and Meet(p) is p itself.
func Meet(pasts ...CausalPast) CausalPast {
	switch len(pasts) {
	case 0:
		return None()
	case 1:
		return pasts[0]
	}
	meet := pasts[0].frontier().Pairs()
	for _, p := range pasts[1:] {
		meet = meetPairs(meet, p.frontier().Pairs())
	}
	return newPast(node.CausesOf(meet...))
}

// meetPairs returns, in channel order, the channels both sorted pair lists name, each at the
// smaller of its two positions. It never modifies a or b.
func meetPairs(a, b []node.Cause) []node.Cause {
	out := make([]node.Cause, 0, min(len(a), len(b)))
	for len(a) > 0 && len(b) > 0 {
		switch order := a[0].Channel.Compare(b[0].Channel); {
		case order < 0:
			a = a[1:]
		case order > 0:
			b = b[1:]
		default:
			out = append(out, node.Cause{Channel: a[0].Channel, Position: min(a[0].Position, b[0].Position)})
			a, b = a[1:], b[1:]
		}
	}
	return out
}

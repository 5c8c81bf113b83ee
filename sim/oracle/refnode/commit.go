package refnode

import "slices"

// Commit is SPEC §2.3 STEP END: the step's ordering state becomes committed, the version entry
// with the first commit, and every hold still held (whether taken in this step or restored) with
// it. It returns the committed State, which nothing changes afterwards. A node that refused
// commits nothing: it returns nil.
func (n *Node) Commit() *State {
	if n.refusal != nil {
		return nil
	}
	n.version = formatVersion
	last := n.last
	st := &State{Version: n.version, Bindings: n.bindings, Fed: sameOrCopy(last.Fed, n.fed), Held: last.Held,
		Frontier: sameOrCopy(last.Frontier, n.frontier), Past: sameOrCopy(last.Past, n.past), valid: true}
	if !buffers(last.Held).same(n.held) {
		st.Held = n.held.clipped()
	}
	n.last = st
	return st
}

// sameOrCopy returns committed, a committed list, when p names the same positions, else a copy of
// p.
func sameOrCopy(committed, p Positions) Positions {
	if slices.Equal(committed, p) {
		return committed
	}
	return slices.Clone(p)
}

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
	// A list that names the same positions as the last committed one is that one; the others
	// are copied into one allocation (carve, with no spare room: a State is never changed).
	lists := [3]Positions{last.Fed, last.Frontier, last.Past}
	own := [3]Positions{n.fed, n.frontier, n.past}
	var changed [3]bool
	size := 0
	for i := range lists {
		if changed[i] = !slices.Equal(lists[i], own[i]); changed[i] {
			size += len(own[i])
		}
	}
	block := make(Positions, 0, size)
	for i, p := range own {
		if changed[i] {
			lists[i] = carve(&block, p, 0)
		}
	}
	st := &State{Version: n.version, Bindings: n.bindings, Fed: lists[0], Held: last.Held,
		Frontier: lists[1], Past: lists[2], valid: true}
	if !buffers(last.Held).same(n.held) {
		st.Held = n.held.clipped()
	}
	n.last = st
	return st
}

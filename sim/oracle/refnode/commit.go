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
	return &State{Version: n.version, Bindings: n.bindings, Fed: slices.Clone(n.fed), Held: n.held.clipped(),
		Frontier: slices.Clone(n.frontier), Past: slices.Clone(n.past), valid: true}
}

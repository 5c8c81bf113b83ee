package refnode

// Commit is SPEC §2.3 STEP END: the step's ordering state becomes committed, the version entry
// with the first commit, and every hold still held (whether taken in this step or restored) with
// it. It returns the committed State, which nothing changes afterwards. A node that refused
// commits nothing: it returns nil.
func (n *Node) Commit() *State {
	if n.refusal != nil {
		return nil
	}
	n.version = formatVersion
	st := &State{Version: n.version, Bindings: n.bindings, Fed: n.fed, Held: n.held, Frontier: n.frontier, Past: n.past}
	return st.clone()
}

package choose

// Chooser makes every schedule and fault decision of a run: which enabled action fires next,
// which fault, which target. A run is a pure function of its scenario, settings and the answers
// its Chooser gives.
//
// Choose returns an index in [0, len(weights)). weights has at least one entry; an entry of zero
// means that option must not be chosen (at least one entry is non-zero). A random chooser draws in
// proportion to the weights; replay, exhaustive and rapid choosers treat every non-zero option as
// one branch. label names the decision ("action", "crash.target", ...) for traces, rapid labels
// and shrunk reproductions; it never changes the answer of a seeded chooser.
type Chooser interface {
	Choose(label string, weights []uint32) int
}

package sim

import "github.com/parsleysim/parsleysim/sim/spec"

// The explorer's action choice. A swarm run weighs the enabled action kinds (the settings'
// weights, raised by shapeKindWeights); an exploration enumerates every enabled kind whatever its
// weight (stepChooser and the recorder read only which weights are non-zero), so it skips the
// weighing: the boosts only raise weights of kinds already enabled, never enable or disable one.
// And every transition of a state is a step from the same world, offered the same kinds and
// process masks, so they are worked out once per state (stateActions) rather than once per
// transition. TestExploreActionChoiceMatchesRun checks that a state's actions are chooseAction's
// options in every state of a few scopes.

// stateActions are what every step from one state offers: each process's mask (the kinds it is
// an eligible target of) and the enabled action kinds.
type stateActions struct {
	masks   []procMask
	weights [spec.NumActionKinds]uint32 // 1 for an enabled kind, 0 for the others
	enabled bool                        // some kind is enabled
	left    procMask                    // the kinds with budget left (settings weight not 0), by bit
}

// of fills a with w's actions (chooseAction's options, with every enabled kind weighing 1) and
// returns a.
func (a *stateActions) of(w *world) *stateActions {
	w.enabledActions(a)
	return a
}

// actionsAt returns the explorer's stateActions slot for a state at depth d (one per depth: a
// state's actions are read until its transitions are explored).
func (x *explorer) actionsAt(d int) *stateActions {
	for len(x.actions) <= d {
		x.actions = append(x.actions, new(stateActions))
	}
	return x.actions[d]
}

// anyEnabled reports whether some action kind the remaining budget allows is enabled in s, and
// leaves s's actions in its depth's slot (actionsAt) for expand.
func (x *explorer) anyEnabled(s *exState) bool { return x.actionsAt(s.depth).of(s.w).enabled }

package sim

import "github.com/parsleysim/parsleysim/sim/explore"

// The explorer's action choice. A swarm run weighs the enabled action kinds (the settings'
// weights, raised by shapeKindWeights); an exploration enumerates every enabled kind whatever its
// weight (explore.StepChooser and the recorder read only which weights are non-zero), so it skips the
// weighing: the boosts only raise weights of kinds already enabled, never enable or disable one.
// And every transition of a state is a step from the same world, offered the same kinds and
// process masks, so they are worked out once per state (explore.Actions) rather than once per
// transition. TestExploreActionChoiceMatchesRun checks that a state's actions are chooseAction's
// options in every state of a few scopes.

// actionsOf fills a with w's actions (chooseAction's options, with every enabled kind weighing 1)
// and returns a.
func actionsOf(a *explore.Actions, w explore.World) *explore.Actions {
	w.Actions(a)
	return a
}

// actionsAt returns the explorer's actions slot for a state at depth d (one per depth: a
// state's actions are read until its transitions are explored).
func (x *explorer) actionsAt(d int) *explore.Actions {
	for len(x.actions) <= d {
		x.actions = append(x.actions, new(explore.Actions))
	}
	return x.actions[d]
}

// anyEnabled reports whether some action kind the remaining budget allows is enabled in s, and
// leaves s's actions in its depth's slot (actionsAt) for expand.
func (x *explorer) anyEnabled(s *exState) bool { return actionsOf(x.actionsAt(s.depth), s.w).Enabled }

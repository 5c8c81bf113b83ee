package sim

// The explorer's action choice. A swarm run weighs the enabled action kinds (the settings'
// weights, raised by boostDueFaults); an exploration enumerates every enabled kind whatever its
// weight (stepChooser and the recorder read only which weights are non-zero), so it skips the
// weighing: the boosts only raise weights of kinds already enabled, never enable or disable one.
// TestExploreActionChoiceMatchesRun checks that both offer the same kinds in every state of a
// few scopes.

// chooseActionExplore is chooseAction with every enabled kind weighing 1: the same choice among
// the same options, without the swarm's boosts.
func (w *world) chooseActionExplore(masks []procMask) (ActionKind, bool) {
	var any procMask
	for i, p := range w.procs {
		masks[i] = w.maskOf(p)
		any |= masks[i]
	}
	weights := w.kindWeights[:]
	enabled := false
	liveExt := w.liveExternals > 0
	for k := range numActionKinds {
		weights[k] = 0
		if w.set.Weights[k] != 0 && w.kindEnabled(ActionKind(k), any, liveExt) {
			weights[k], enabled = 1, true
		}
	}
	if !enabled {
		return 0, false
	}
	return ActionKind(w.chooser.Choose("action", weights)), true
}

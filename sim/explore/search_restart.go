package explore

import "github.com/parsleysim/parsleysim/sim/spec"

// RESTART_INVISIBILITY in the search: checkRestart runs the check at a sampled share of the
// states the search visits (restartSampled); the search keeps the path's script, which places
// the restart, and reports what the check finds.

// Restart names the clean restart a RESTART_INVISIBILITY violation found in an exploration
// inserted: the process, and the script action of the path (as ReplayPath records it) it
// followed.
type Restart struct {
	Process string `json:"process"`
	After   int    `json:"after"`
}

// enterRoot enters the root, which starts the search's path.
func (x *explorer) enterRoot() {
	root := x.root()
	x.resetPath()
	x.enter(root, 0)
}

// resetPath starts the search's path at the root; clearPath ends it.
func (x *explorer) resetPath() {
	x.pathActions = append(x.pathActions[:0], 0)
	x.pathScript = x.pathScript[:0]
}

func (x *explorer) clearPath() {
	x.pathActions, x.pathScript = x.pathActions[:0], x.pathScript[:0]
}

// pushPath and popPath keep x.pathScript in step with the search: the actions recorded by the
// step into the state entered at depth d+1.
func (x *explorer) pushPath(script []spec.ScriptedAction) {
	x.pathScript = append(x.pathScript, script...)
	x.pathActions = append(x.pathActions, len(x.pathScript))
}

func (x *explorer) popPath() {
	x.pathActions = x.pathActions[:len(x.pathActions)-1]
	x.pathScript = x.pathScript[:x.pathActions[len(x.pathActions)-1]]
}

// restartChecked reports whether the restart check runs at the state with hash key.
func (x *explorer) restartChecked(key HashKey) bool {
	return x.cfg.RestartCheck && restartSampled(key)
}

// checkRestartAt runs the restart check at state s, newly visited, whose hash is key (sampled:
// restartChecked), at the end of the current path. States reached before any action was
// recorded (the root) are not checked.
func (x *explorer) checkRestartAt(s *state, key HashKey) {
	if len(x.pathScript) == 0 {
		return
	}
	after := len(x.pathScript) - 1
	r := checkRestart(s.w, key, s.ids, after, &x.free)
	if !r.Checked {
		return
	}
	x.res.RestartChecks++
	if len(r.Violations) > 0 {
		x.res.restartFailures++
	}
	for _, v := range r.Violations {
		x.reportRestart(v, Restart{Process: r.Process, After: after})
	}
}

// reportRestart reports a restart violation with the current path and the restart it inserted.
func (x *explorer) reportRestart(v spec.Violation, r Restart) {
	n := len(x.res.Violations)
	x.report(v, false, nil)
	if len(x.res.Violations) > n {
		x.res.Violations[n].Restart = &r
	}
}

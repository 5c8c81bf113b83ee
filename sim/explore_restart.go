package sim

import (
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// RESTART_INVISIBILITY in an exploration (check_restart.go has the criterion). At a sampled
// share of the distinct states the search visits (one in 64, chosen by the state's hash:
// restartSampleShift), one process that is running with its step committed there is restarted
// cleanly on a copy of the state's world, and both the copy and another copy without the restart
// run the liveness phase and the end checks: every process must deliver the same sequence in
// both, and the run with the restart must break nothing.
//
// The restart then goes to quiescence; no fault of the scope follows it (a sweep's check and a
// scenario file's replay the rest of a script after the restart). Faults before it are covered:
// the sampled states lie at every depth, after every kind of fault the scope has.
//
// The check is a function of the state alone: which states are checked is decided by their hash,
// the process by the hash among the restartable ones, and what follows the restart is the
// liveness phase, which depends only on the state (two worlds with equal hashes behave alike from
// there on: world_hash.go). So the violations it finds do not depend on the path that first
// reached a state, which in a parallel exploration is a matter of timing (explore_parallel.go):
// a complete exploration finds the same ones with any number of workers. A violation is reported
// with the path the search was on, the restart inserted after its last action, which is how a
// counterexample file (expect restart-invisible) and a sweep's check replay it.
//
// A sampled share, not every state: each check costs two copies and two liveness phases; one in
// 64 makes checks of the order of a scope's terminal states in number and keeps their cost a small part
// of an exploration's.

// restartSampleShift selects the checked states: those whose hash's top 64-restartSampleShift
// bits are zero, one in 64.
const restartSampleShift = 58

// ExploreRestart names the clean restart a RESTART_INVISIBILITY violation found in an
// exploration inserted: the process, and the script action of the path (as ReplayPath records
// it) it followed.
type ExploreRestart struct {
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
func (x *explorer) restartChecked(key hashKey) bool {
	return x.restartOn && key[0]>>restartSampleShift == 0
}

// checkRestartAt runs the restart check at state s, newly visited, whose hash is key (sampled:
// restartChecked), at the end of the current path. States reached before any action was
// recorded (the root) and states where no process can be restarted cleanly are not checked.
func (x *explorer) checkRestartAt(s *exState, key hashKey) {
	if len(x.pathScript) == 0 {
		return
	}
	w, n := s.w, 0
	for i := range w.Processes() {
		if w.Restartable(i) {
			n++
		}
	}
	if n == 0 {
		return
	}
	k := int(key[1] % uint64(n))
	p := 0
	for i := range w.Processes() {
		if w.Restartable(i) {
			if k == 0 {
				p = i
				break
			}
			k--
		}
	}
	base, c := w.EndCopy(x.takeFree(), s.ids), w.EndCopy(x.takeFree(), s.ids)
	defer x.release(&exState{w: base})
	defer x.release(&exState{w: c})
	c.Restart(p)
	base.Finish()
	c.Finish()
	x.res.RestartChecks++
	if len(base.Violations()) > 0 {
		return // the liveness phase without the restart breaks something: the terminal states report it
	}
	name := c.ProcessName(p)
	baseSeq, seq := base.Deliveries(), c.Deliveries()
	after := len(x.pathScript) - 1
	vs := oracle.CompareDeliveries(baseSeq, seq, name, after, after)
	for _, v := range c.Violations() {
		vs = append(vs, oracle.RestartViolation(v, name, after, after))
	}
	if len(vs) > 0 {
		x.res.restartFailures++
	}
	for _, v := range vs {
		x.reportRestart(v, ExploreRestart{Process: name, After: after})
	}
}

// reportRestart reports a restart violation with the current path and the restart it inserted.
func (x *explorer) reportRestart(v spec.Violation, r ExploreRestart) {
	n := len(x.res.Violations)
	x.report(v, false, nil)
	if len(x.res.Violations) > n {
		x.res.Violations[n].Restart = &r
	}
}

package sim

import (
	"hash/fnv"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// RESTART_INVISIBILITY in an exploration (check_restart.go has the criterion). At every distinct
// terminal state whose end-of-run checks pass, the path that first reached it is run once more
// from one of its states with a clean restart inserted: a copy of the state's world (the states
// of the current path are alive while the search is below them) restarts one process that is
// running with its step committed there, replays the path's recorded actions from that state on
// as a script, and runs the liveness phase and the end checks. Every process must deliver what
// it delivers at the terminal state after its own liveness phase, in the same order, and the
// run with the restart must break nothing.
//
// One point per terminal state, chosen from the path's answers and the seed (not from the
// search order or a hash seed): every (state, restartable process) pair of the path is a
// candidate, the terminal state included. So the check costs one replay of part of a path per
// distinct terminal state, whatever the number of states; results/explore.md has the measured
// share. A reduced search explores fewer paths than there are, so this samples the pairs of
// (path, restart point); it is not a proof over all of them, as the rest of the exploration is.

// ExploreRestart names the clean restart a RESTART_INVISIBILITY violation found in an
// exploration inserted: the process, and the script action of the path (as ReplayPath records
// it) it followed.
type ExploreRestart struct {
	Process string `json:"process"`
	After   int    `json:"after"`
}

// pathState is one state of the path the search is on: its world (alive while the search is
// below it) and the number of script actions recorded by the steps up to it.
type pathState struct {
	s       *exState
	actions int
}

// enterRoot enters the root, which starts the search's path.
func (x *explorer) enterRoot() {
	root := x.root()
	x.resetPath(root)
	x.enter(root, 0)
}

// resetPath starts the search's path at root; clearPath ends it.
func (x *explorer) resetPath(root *exState) {
	x.pathStates = append(x.pathStates[:0], pathState{s: root})
	x.pathScript = x.pathScript[:0]
}

func (x *explorer) clearPath() {
	clear(x.pathStates)
	x.pathStates, x.pathScript = x.pathStates[:0], x.pathScript[:0]
}

// pushPath and popPath keep x.pathStates in step with the search: the state entered at depth
// d+1 after the step whose actions are script.
func (x *explorer) pushPath(s *exState, script []ScriptedAction) {
	x.pathScript = append(x.pathScript, script...)
	x.pathStates = append(x.pathStates, pathState{s: s, actions: len(x.pathScript)})
}

func (x *explorer) popPath() {
	x.pathStates = x.pathStates[:len(x.pathStates)-1]
	x.pathScript = x.pathScript[:x.pathStates[len(x.pathStates)-1].actions]
}

// restartCandidate picks the restart point of the terminal state at the end of the current path:
// the index in x.pathStates and the process, or ok false when no state of the path after the
// first action has a restartable process.
func (x *explorer) restartCandidate() (at int, p int, ok bool) {
	n := 0
	for _, ps := range x.pathStates {
		if ps.actions == 0 {
			continue
		}
		for _, q := range ps.s.w.procs {
			if restartable(q) {
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	put(x.set.Seed)
	for _, step := range x.path {
		put(uint64(len(step)))
		for _, a := range step {
			put(uint64(a))
		}
	}
	k := int(h.Sum64() % uint64(n))
	for i, ps := range x.pathStates {
		if ps.actions == 0 {
			continue
		}
		for j, q := range ps.s.w.procs {
			if restartable(q) {
				if k == 0 {
					return i, j, true
				}
				k--
			}
		}
	}
	panic("sim: restartCandidate lost its count")
}

// restartCopy returns a copy of the world of path state i with process p restarted cleanly
// (nil when the check does not apply), before the terminal state's world is consumed.
func (x *explorer) restartCopy(i, p int) *world {
	ps := x.pathStates[i]
	c := ps.s.w.cloneInto(nil, ps.s.ids, choose.NewReplay(nil))
	c.ownAll()
	c.violations = nil
	c.cleanRestart(c.procs[p])
	return c
}

// checkRestart runs the restart check of the terminal state at the end of the current path, whose
// world base has been through the liveness phase and the end checks without a violation; c is
// the copy restartCopy made of path state at with process p restarted.
func (x *explorer) checkRestart(base, c *world, at, p int) {
	ps := x.pathStates[at]
	name := c.procs[p].spec.Name
	for i := range x.pathScript[ps.actions:] {
		a := &x.pathScript[ps.actions+i]
		c.runScripted(ps.actions+i, a)
	}
	c.stats.SafetySteps = c.step
	c.livenessPhase()
	c.checkLiveness()
	c.checkCausalOrderLifetime()
	x.res.RestartChecks++
	baseSeq, seq := make([][]uint64, len(base.procs)), make([][]uint64, len(c.procs))
	for i := range base.procs {
		baseSeq[i], seq[i] = base.procs[i].o.deliverySequence(), c.procs[i].o.deliverySequence()
	}
	after := ps.actions - 1
	vs := compareDeliveries(baseSeq, seq, name, after, after)
	for _, v := range c.violations {
		vs = append(vs, restartViolation(v, name, after, after))
	}
	for _, v := range vs {
		x.reportRestart(v, ExploreRestart{Process: name, After: after})
	}
}

// reportRestart reports a restart violation with the current path and the restart it inserted.
func (x *explorer) reportRestart(v spec.Violation, r ExploreRestart) {
	n := len(x.res.Violations)
	x.report(v, true, nil)
	if len(x.res.Violations) > n {
		x.res.Violations[n].Restart = &r
	}
}

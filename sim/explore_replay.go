package sim

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/choose"
)

// Replaying an explored path: the root state, then each step's answers in order, in place on
// one world (no clone), so a path found on clones of clones can be checked against a straight
// run. With the script recorded it becomes a scenario file (the scenarios package writes it).

// ReplayPath runs path from the root of scn's exploration under opts and returns the world's
// result (liveness phase and end checks included) and the script of the steps taken. An answer
// that does not fit its decision is an error naming the step.
func ReplayPath(scn *Scenario, opts ExploreOptions, path [][]int) (*Result, []ScriptedAction, error) {
	x := newExplorer(scn, opts)
	s := x.root()
	var script []ScriptedAction
	for i, answers := range path {
		rc := choose.NewReplay(answers)
		if !x.anyEnabled(s) {
			return nil, nil, fmt.Errorf("replay: step %d: nothing is enabled", i+1)
		}
		s.w.chooser = choose.NewRecorder(rc)
		masks := make([]procMask, len(s.w.procs))
		k, _ := s.w.chooseAction(masks)
		s.w.step++
		s.w.do(k, masks)
		x.charge(s, k)
		if err := rc.Err(); err != nil || rc.Remaining() > 0 {
			return nil, nil, fmt.Errorf("replay: step %d: the answers %v do not fit (%v)", i+1, answers, err)
		}
		script = append(script, s.w.script...)
		s.w.script = s.w.script[:0]
	}
	w := s.w
	w.stats.SafetySteps = w.step
	w.livenessPhase()
	w.checkLiveness()
	w.checkCausalOrderLifetime()
	return w.result(), script, nil
}

// ExploreHash returns the canonical hash of the state path leads to (for tests: a state reached
// through clones must hash like the same state reached in place).
func exploreHashAfter(scn *Scenario, opts ExploreOptions, path [][]int, h *stateHasher) hashKey {
	x := newExplorer(scn, opts)
	x.hasher = h
	s := x.root()
	for _, answers := range path {
		s.w.chooser = choose.NewRecorder(choose.NewReplay(answers))
		masks := make([]procMask, len(s.w.procs))
		k, _ := s.w.chooseAction(masks)
		s.w.step++
		s.w.do(k, masks)
		x.charge(s, k)
		s.w.script = s.w.script[:0]
	}
	return x.hash(s)
}

package explore

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Replaying an explored path: the root state, then each step's answers in order, in place on
// one world (no clone), so a path found on clones of clones can be checked against a straight
// run. With the script recorded it becomes a scenario file (the scenarios package writes it).

// ReplayPath runs path from the root of cfg's exploration and returns the world's result
// (liveness phase and end checks included) and the script of the steps taken. An answer that
// does not fit its decision is an error naming the step.
func ReplayPath(cfg Config, path [][]int) (*spec.Result, []spec.ScriptedAction, error) {
	x := &explorer{cfg: cfg}
	s := x.root()
	var script []spec.ScriptedAction
	for i, answers := range path {
		if err := x.replayStep(s, answers); err != nil {
			return nil, nil, fmt.Errorf("replay: step %d: %w", i+1, err)
		}
		script = s.w.TakeScript(script)
	}
	s.w.Finish()
	return s.w.Result(), script, nil
}

// replayStep takes one step of an explored path in place on s's world, answering the step's
// decisions with answers, and charges it to s's budget.
func (x *explorer) replayStep(s *state, answers []int) error {
	if !x.anyEnabled(s) {
		return fmt.Errorf("nothing is enabled")
	}
	rc := choose.NewReplay(answers)
	k := s.w.Replay(rc)
	x.charge(s, k)
	if err := rc.Err(); err != nil || rc.Remaining() > 0 {
		return fmt.Errorf("the answers %v do not fit (%v)", answers, err)
	}
	return nil
}

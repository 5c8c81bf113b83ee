package explore

import (
	"fmt"
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// fakeWorld is a World without a simulator: processes that each deliver a fixed sequence, some
// restartable, and a bug that a restart of the process named buggy shows (its restarted run
// delivers one record less). It counts the worlds made, so reuse of released ones is visible.
type fakeWorld struct {
	restartable []bool
	buggy       int // the process whose restart changes its deliveries; -1: none
	restarted   int // the process restarted, -1: none
	brokenEnd   bool
	finished    bool
	violations  []spec.Violation
	made        *int // worlds allocated, shared by every copy
	ids         rand.PCG
}

func newFakeWorld(restartable []bool, buggy int) *fakeWorld {
	return &fakeWorld{restartable: restartable, buggy: buggy, restarted: -1, made: new(int)}
}

func (w *fakeWorld) copyInto(into World, ids *rand.PCG) *fakeWorld {
	c, _ := into.(*fakeWorld)
	if c == nil {
		c = new(fakeWorld)
		*w.made++
	}
	*c = *w
	c.ids = *ids
	c.violations = nil
	return c
}

func (w *fakeWorld) Clone(into World, ids *rand.PCG, _ choose.Chooser) World {
	return w.copyInto(into, ids)
}
func (w *fakeWorld) EndCopy(into World, ids *rand.PCG) World { return w.copyInto(into, ids) }
func (w *fakeWorld) IDs() *rand.PCG                          { return &w.ids }
func (w *fakeWorld) Actions(a *Actions)                      { *a = Actions{} }
func (w *fakeWorld) Step([]uint32, []Mask) spec.ActionKind   { panic("fakeWorld: no steps") }
func (w *fakeWorld) Replay(choose.Chooser) spec.ActionKind   { panic("fakeWorld: no steps") }
func (w *fakeWorld) TakeScript(dst []spec.ScriptedAction) []spec.ScriptedAction {
	return dst
}
func (w *fakeWorld) Violations() []spec.Violation           { return w.violations }
func (w *fakeWorld) Settings() *swarm.Settings              { return nil }
func (w *fakeWorld) SetSettings(*swarm.Settings)            {}
func (w *fakeWorld) Result() *spec.Result                   { return nil }
func (w *fakeWorld) Processes() int                         { return len(w.restartable) }
func (w *fakeWorld) Restartable(i int) bool                 { return w.restartable[i] }
func (w *fakeWorld) Restart(i int)                          { w.restarted = i }
func (w *fakeWorld) ProcessName(i int) string               { return fmt.Sprintf("p%d", i) }
func (w *fakeWorld) LocalTransition() (TransitionKey, bool) { return TransitionKey{}, false }

func (w *fakeWorld) Finish() {
	w.finished = true
	if w.brokenEnd {
		w.violations = append(w.violations, spec.Violation{Criterion: spec.CritLiveness, Process: 0, Detail: "stuck"})
	}
}

func (w *fakeWorld) Deliveries() [][]uint64 {
	out := make([][]uint64, len(w.restartable))
	for i := range out {
		out[i] = []uint64{1, 2, 3}
		if i == w.buggy && w.restarted == i {
			out[i] = out[i][:2]
		}
	}
	return out
}

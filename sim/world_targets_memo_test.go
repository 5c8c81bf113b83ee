package sim

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// FaultTargetsChecked runs scn under seed's settings with a memo of fault targets that keeps
// every fail-closed kind, and before every action choice compares faultHasTarget with the scan
// over the whole world the memo replaces (anyFaultTarget with targetCond). It returns how many
// answers it compared and how many were true, or the first disagreement.
func FaultTargetsChecked(scn *spec.Scenario, seed uint64) (checks, yes int, err error) {
	set := swarm.ExpandSettings(seed)
	var w *world
	check := func(label string) {
		if err != nil || label != "action" {
			return
		}
		if w.step == len(w.procs) { // the first choice: a memo of every kind, all stale
			w.targets = targets.New(len(w.procs), len(w.topics), 1<<len(swarm.FailClosedKinds)-1,
				1<<slices.Index(swarm.FailClosedKinds, spec.ActProduceCorrupt), w.targetsOf)
		}
		for _, k := range swarm.FailClosedKinds {
			memo := w.faultHasTarget(k)
			scan := w.anyFaultTarget(k, func(p *proc, t int) bool { return targetCond(k, p, t) })
			if memo != scan {
				err = fmt.Errorf("seed %d step %d: %v: the memo says %v, the scan %v", seed, w.step, k, memo, scan)
				return
			}
			checks++
			if scan {
				yes++
			}
		}
	}
	w = newWorld(scn, &set, labelChooser{choose.NewRandom(seed), check}, &RunOptions{})
	w.run()
	return checks, yes, err
}

// labelChooser calls check with each choice's label before making it.
type labelChooser struct {
	choose.Chooser
	check func(label string)
}

func (c labelChooser) Choose(label string, weights []uint32) int {
	c.check(label)
	return c.Chooser.Choose(label, weights)
}

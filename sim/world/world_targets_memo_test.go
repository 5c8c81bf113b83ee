package world

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// FaultTargetsChecked runs scn under seed's settings with a memo of fault targets that keeps
// every fail-closed kind, and before every action choice compares faultHasTarget with the scan
// of the whole world (anyFaultTarget with targetCond). It returns how many answers it compared
// and how many were true, or the first disagreement.
func FaultTargetsChecked(scn *spec.Scenario, seed uint64) (checks, yes int, err error) {
	everyKind := func(w *World) {
		w.targets = targets.New(len(w.procs), len(w.topics), 1<<len(swarm.FailClosedKinds)-1, // a memo of every kind, all stale
			1<<slices.Index(swarm.FailClosedKinds, spec.ActProduceCorrupt), w.targetsOf, w.maskAt, w.declaredOf, w.factsOf)
	}
	err = beforeEachAction(scn, seed, everyKind, func(w *World) error {
		for _, k := range swarm.FailClosedKinds {
			memo := w.faultHasTarget(k)
			scan := w.anyFaultTarget(k, func(p *proc, t int) bool { return targetCond(k, p, t) })
			if memo != scan {
				return fmt.Errorf("seed %d step %d: %v: the memo says %v, the scan %v", seed, w.step, k, memo, scan)
			}
			checks++
			if scan {
				yes++
			}
		}
		return nil
	})
	return checks, yes, err
}

// ExternalWeightsChecked runs scn under seed's settings and before every action choice compares
// the weights chooseExternal offers a plain and a stamped produce, the latter naming no record and
// each record chooseObserved may name, with externalWeight's scan of every declarer. It returns
// how many weights it compared and how many were above 1, or the first disagreement.
func ExternalWeightsChecked(scn *spec.Scenario, seed uint64) (checks, above int, err error) {
	err = beforeEachAction(scn, seed, nil, func(w *World) error {
		obs := []uint64{0}
		for i := range min(w.recentN, recentRing) {
			obs = append(obs, w.recent[(w.recentN-1-i)%recentRing])
		}
		for _, k := range []spec.ActionKind{spec.ActProducePlain, spec.ActProduceStamped} {
			for _, r := range shape.LaggingRecords(w.shapeRun(), obs) {
				got := shape.ExternalWeights(w.shapeRun(), k, r, make([]uint32, len(w.topics)))
				for t := range w.topics {
					want := uint32(0)
					if w.topics[t].spec.External && w.topics[t].inc >= 0 {
						want = shape.ExternalWeight(w.shapeRun(), k, t, r)
					}
					if got[t] != want {
						return fmt.Errorf("seed %d step %d: %v naming %d: topic %d weighs %d, the scan %d", seed, w.step, k, r, t, got[t], want)
					}
					checks++
					if want > 1 {
						above++
					}
				}
			}
		}
		return nil
	})
	return checks, above, err
}

// beforeEachAction runs scn under seed's settings, with prepare (when not nil) setting the new
// world up first, and calls check with the world before every action choice until check returns
// an error, which it returns: the harness of the checks that hold a memo to the scan it answers
// for.
func beforeEachAction(scn *spec.Scenario, seed uint64, prepare func(w *World), check func(w *World) error) error {
	set := swarm.ExpandSettings(seed)
	var w *World
	var err error
	w = newWorld(scn, &set, labelChooser{choose.NewRandom(seed), func(label string) {
		if err == nil && label == "action" {
			err = check(w)
		}
	}}, &RunOptions{})
	if prepare != nil {
		prepare(w)
	}
	w.run()
	return err
}

// labelChooser calls check with each choice's label before making it, whichever form the choice
// takes.
type labelChooser struct {
	choose.Chooser
	check func(label string)
}

func (c labelChooser) Choose(label string, weights []uint32) int {
	c.check(label)
	return c.Chooser.Choose(label, weights)
}

// ChooseFrom checks label and answers from o through the inner chooser's ChooseFrom, so the
// seeded draw from Options (not the list written out) is what the run takes.
func (c labelChooser) ChooseFrom(label string, o choose.Options) int {
	c.check(label)
	return c.Chooser.(interface {
		ChooseFrom(string, choose.Options) int
	}).ChooseFrom(label, o)
}

// MasksChecked runs scn under seed's settings and before every action choice compares each
// process's mask as the memo keeps it (targets.Masks) with maskOf, and each kind's index with the
// processes whose mask has it, in process order. It returns how many masks it compared and how
// many of them were not empty, or the first disagreement. It also holds identityReport's remembered
// answer to the one computed afresh.
func MasksChecked(scn *spec.Scenario, seed uint64) (checks, set int, err error) {
	err = beforeEachAction(scn, seed, nil, func(w *World) error {
		dead, recreated := w.identityReport()
		w.identity.at = [2]int{-1, -1}
		if d, r := w.identityReport(); !slices.Equal(d, dead) || !slices.Equal(r, recreated) {
			return fmt.Errorf("seed %d step %d: identity report remembered as %v and %v, computed as %v and %v", seed, w.step, dead, recreated, d, r)
		}
		m := w.targets.Masks()
		var members [spec.NumActionKinds][]int
		for i, p := range w.procs {
			got, want := explore.Mask(0), w.maskOf(p)
			for k := range spec.NumActionKinds {
				got |= explore.Mask(m.Kind(int(k)).Weight(i)) << k
			}
			if got != want {
				return fmt.Errorf("seed %d step %d: process %d: the memo's mask is %b, maskOf %b", seed, w.step, i, got, want)
			}
			for k := range members {
				if want&(1<<k) != 0 {
					members[k] = append(members[k], i)
				}
			}
			checks++
			if want != 0 {
				set++
			}
		}
		for k := range members {
			of := m.Kind(k)
			if of.Count() != len(members[k]) {
				return fmt.Errorf("seed %d step %d: %v: the index counts %d processes, the masks %d", seed, w.step, spec.ActionKind(k), of.Count(), len(members[k]))
			}
			for r, i := range members[k] {
				if got := of.Find(uint64(r)); got != i {
					return fmt.Errorf("seed %d step %d: %v: the index's process %d is %d, the masks' %d", seed, w.step, spec.ActionKind(k), r, got, i)
				}
			}
		}
		return nil
	})
	return checks, set, err
}

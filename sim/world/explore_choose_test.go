package world

import (
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestExploreActionChoiceMatchesRun explores the states of a few scopes (every fault kind the
// explorer budgets, sabotage that makes processes fail) and checks in each that the state's
// actions (explore.Actions, what the explorer's steps choose from) offer exactly the kinds and
// process masks chooseAction offers, and lead to the same kind when a chooser takes the first
// option. It fails when the explorer's choice drops or adds a kind (for instance if it ignored
// the budget's weights or a kind's enabledness).
func TestExploreActionChoiceMatchesRun(t *testing.T) {
	for _, c := range []struct {
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
	}{
		{referenceScope(), "msgs=2,crash=1,delete=1,truncate=1", node.SabotageNone},
		{chainScope(), "msgs=1,stop=1,redeclare=1,recreate=1,rewind=1", node.SabotageNone},
		{chainScope(), "msgs=2,stamped=1,corrupt=1,migrate=1,zombie=1", node.SabotageDropHeld},
	} {
		checked, offered := 0, 0
		limit := 3000
		if raceEnabled {
			limit = 500 // sequential: the plain run walks the 3000
		}
		opts := exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab}
		visitStates(c.scn, opts, limit, func(w *World, _ explore.HashKey, _ []byte, _ explore.Hasher) {
			run := actionOptions(w, w.chooseAction)
			exp := actionOptions(w, func(masks []explore.Mask) (spec.ActionKind, bool) {
				acts := new(explore.Actions)
				w.Actions(acts)
				copy(masks, acts.Masks)
				if !acts.Enabled {
					return 0, false
				}
				return spec.ActionKind(w.chooser.Choose("action", acts.Weights[:])), true
			})
			if run.kind != exp.kind || run.ok != exp.ok || !slices.Equal(run.opts, exp.opts) ||
				!slices.Equal(run.masks, exp.masks) {
				t.Fatalf("%s %s: state %d: chooseAction offers %+v, chooseActionExplore %+v", c.scn.Name, c.budget, checked, run, exp)
			}
			checked++
			offered += len(run.opts)
		})
		if checked < 300 || offered < checked {
			t.Fatalf("%s %s: only %d states checked, %d kinds offered", c.scn.Name, c.budget, checked, offered)
		}
	}
}

// actionChoice is what an action choice offered and picked.
type actionChoice struct {
	kind  spec.ActionKind
	ok    bool
	opts  []int // the kinds offered, when more than one (the recorder asks only then)
	masks []explore.Mask
}

// actionOptions runs pick (w's chooseAction, or the explorer's choice) with a chooser that takes
// the first option and records the options offered.
func actionOptions(w *World, pick func([]explore.Mask) (spec.ActionKind, bool)) actionChoice {
	saved := w.chooser
	first := &firstOption{}
	w.chooser = choose.NewRecorder(first)
	defer func() { w.chooser = saved }()
	masks := make([]explore.Mask, len(w.procs))
	k, ok := pick(masks)
	return actionChoice{kind: k, ok: ok, opts: first.opts, masks: masks}
}

// firstOption is a Chooser that answers the first non-zero option and remembers the options.
type firstOption struct{ opts []int }

func (c *firstOption) Choose(label string, weights []uint32) int {
	c.opts = c.opts[:0]
	for i, wt := range weights {
		if wt != 0 {
			c.opts = append(c.opts, i)
		}
	}
	return c.opts[0]
}

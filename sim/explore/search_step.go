package explore

import (
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Enumerating the transitions of one state. A transition is one complete sequence of the
// Chooser's answers for one scheduler step. The step is run on a clone of the state's world with
// a StepChooser: it answers the forced prefix, then the first enabled option of every further
// decision, and remembers every other enabled option as a new prefix to run. Each run is one
// transition; together they are every answer sequence of the step (decisions with one enabled
// option are answered by the world's recorder without asking, so they never branch).
//
// A state's actions (World.Actions: each process's mask and the enabled kinds, every enabled
// kind weighing 1) are worked out once per state and offered to each of its transitions: every
// transition of a state is a step from the same world.

// transition is one step from a state.
type transition struct {
	choices []int // the step's answers (the path element)
	next    state // the state it leads to
	// id is the transition's identity for the reduction (-1: none, it is never asleep).
	id               int
	violationsBefore int
	// script is what the step recorded (in storage the slot reuses).
	script []spec.ScriptedAction
}

// bit returns the transition's sleep-set bit (0 when it has none).
func (t *transition) bit() uint64 {
	if t.id < 0 {
		return 0
	}
	return 1 << t.id
}

// span is a prefix or a transition's answers in explorer.arena: arena[from:to].
type span struct{ from, to int }

// eachSuccessorFrom calls visit with each transition of s (whose actions are acts) that is not
// asleep (sleep) and, on a revisit (only non-zero), is among only; restricted by filter, when
// not nil, to a persistent set; as soon as it is computed, until visit returns false. prefixes,
// when not nil, are run (in queue order: the last runs first) instead of the empty prefix: the
// rest of an enumeration begun elsewhere. Computing a transition only when it is visited keeps
// one successor world per depth alive instead of every sibling's, which the garbage collector
// would otherwise scan over and over.
//
// Nothing here allocates per transition once the explorer's buffers have grown: the prefixes
// still to run (queue) and the answers of the transitions on the current path live in one
// stack-like arena that a state's expansion truncates back to where it found it, and each depth
// has one transition slot (transitionAt). visit must not keep t or t.choices after it returns
// (report copies the path).
func (x *explorer) eachSuccessorFrom(s *state, acts *Actions, sleep, only uint64, filter *Filter, prefixes [][]int,
	visit func(t *transition) bool) {
	qbase, abase := len(x.queue), len(x.arena)
	defer func() { x.queue, x.arena = x.queue[:qbase], x.arena[:abase] }()
	if prefixes == nil {
		x.queue = append(x.queue, span{abase, abase}) // the empty prefix
	}
	for _, pre := range prefixes {
		at := len(x.arena)
		x.arena = append(x.arena, pre...)
		x.queue = append(x.queue, span{at, len(x.arena)})
	}
	t := x.transitionAt(s.depth)
	c := &x.chooser
	for len(x.queue) > qbase {
		sp := x.queue[len(x.queue)-1]
		x.queue = x.queue[:len(x.queue)-1]
		c.Reset(x.arena[sp.from:sp.to], filter)
		x.step(s, acts, c, t)
		for i := range c.Alternatives() {
			at := len(x.arena)
			x.arena = append(x.arena, c.Alternative(i)...)
			x.queue = append(x.queue, span{at, len(x.arena)})
		}
		at := len(x.arena)
		x.arena = append(x.arena, c.Answers()...)
		t.choices = x.arena[at:len(x.arena):len(x.arena)]
		if at == len(x.arena) {
			t.choices = nil // a step that made no decision has no answers
		}
		b := t.bit()
		if b&sleep != 0 || (only != 0 && b&only == 0) {
			x.release(&t.next)
			continue
		}
		more := visit(t)
		x.release(&t.next)
		if !more {
			return
		}
	}
}

// transitionAt returns the explorer's transition slot for steps from a state at depth d (one per
// depth: a state's transitions are visited one at a time, each before the next is computed).
func (x *explorer) transitionAt(d int) *transition {
	for len(x.slots) <= d {
		x.slots = append(x.slots, new(transition))
	}
	return x.slots[d]
}

// release hands the world of state s, which the explorer is done with (its subtree is explored,
// or it was never entered), to the next step to clone into (World.Clone). Nothing refers to
// it afterwards: its successors were released before it, the visited set and the results hold
// hashes and copies, and the world's hash caches hold only what live worlds share (a clone
// recycles only the storage its released world made, which no live world reads).
func (x *explorer) release(s *state) {
	if x.free.Release(s.w) {
		s.w = nil
	}
}

// step runs one scheduler step on a clone of s's world (whose actions are acts), answering
// through c, and makes t that transition (its choices are set by the caller). The clone draws
// topic IDs from its own copy of s's ID stream.
func (x *explorer) step(s *state, acts *Actions, c *StepChooser, t *transition) {
	w := s.w.Clone(x.free.Take(), s.ids, c)
	*t = transition{next: state{w: w, ids: w.IDs(), spent: s.spent, depth: s.depth + 1}, id: -1,
		violationsBefore: len(w.Violations()), script: t.script[:0]}
	n := w.Processes()
	if cap(x.masks) < n {
		x.masks = make([]Mask, n)
	}
	masks := x.masks[:n]
	copy(masks, acts.Masks) // a copy: the state's masks are read by each of its transitions
	if !acts.Enabled {
		panic("explore: a step with nothing enabled")
	}
	k := w.Step(acts.Weights[:], masks)
	x.charge(&t.next, k)
	if x.por != nil {
		if k, ok := w.LocalTransition(); ok {
			t.id = x.por.ID(k)
		}
	}
	t.script = w.TakeScript(t.script)
}

// charge records one action of kind k in state t (whose world gets settings with the kind off
// when its budget runs out, so the kind is off from then on).
func (x *explorer) charge(t *state, k spec.ActionKind) {
	if t.spent.Charge(x.cfg.Budget, k) {
		t.w.SetSettings(x.offSettings.Without(t.w.Settings(), k))
	}
}

// actionsAt returns the explorer's actions slot for a state at depth d (one per depth: a
// state's actions are read until its transitions are explored).
func (x *explorer) actionsAt(d int) *Actions {
	for len(x.actions) <= d {
		x.actions = append(x.actions, new(Actions))
	}
	return x.actions[d]
}

// anyEnabled reports whether some action kind the remaining budget allows is enabled in s, and
// leaves s's actions in its depth's slot (actionsAt) for expand.
func (x *explorer) anyEnabled(s *state) bool {
	a := x.actionsAt(s.depth)
	s.w.Actions(a)
	return a.Enabled
}

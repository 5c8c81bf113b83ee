package sim

import "slices"

// Enumerating the transitions of one state. A transition is one complete sequence of the
// Chooser's answers for one scheduler step. The step is run on a clone of the state's world with
// a stepChooser: it answers the forced prefix, then the first enabled option of every further
// decision, and remembers every other enabled option as a new prefix to run. Each run is one
// transition; together they are every answer sequence of the step (decisions with one enabled
// option are answered by the run's recorder without asking, so they never branch).

// transition is one step from a state.
type transition struct {
	choices []int    // the step's answers (the path element)
	next    *exState // the state it leads to
	// id is the transition's identity for the reduction (-1: none, it is never asleep).
	id               int
	violationsBefore int
}

// bit returns the transition's sleep-set bit (0 when it has none).
func (t *transition) bit() uint64 {
	if t.id < 0 {
		return 0
	}
	return 1 << t.id
}

// stepChooser answers one step's decisions: a forced prefix, then the first enabled option,
// collecting the other enabled options as prefixes still to run.
type stepChooser struct {
	filter  *porFilter // the persistent set's restriction (explore_persistent.go); nil: none
	prefix  []int
	answers []int
	alts    [][]int
}

// Choose implements Chooser.
func (c *stepChooser) Choose(label string, weights []uint32) int {
	i := len(c.answers)
	if i < len(c.prefix) {
		c.answers = append(c.answers, c.prefix[i])
		return c.prefix[i]
	}
	if c.filter != nil {
		weights = c.filter.apply(label, weights)
	}
	a := -1
	for j, wt := range weights {
		switch {
		case wt == 0:
		case a < 0:
			a = j
		default:
			c.alts = append(c.alts, append(slices.Clone(c.answers), j))
		}
	}
	c.answers = append(c.answers, a)
	return a
}

// successors returns the transitions of s that are not asleep (sleep) and, on a revisit (only
// non-zero), those among only.
func (x *explorer) successors(s *exState, sleep, only uint64) []transition {
	var out []transition
	x.keepWorlds = true // the caller keeps the successors: none may be recycled
	defer func() { x.keepWorlds = false }()
	x.eachSuccessor(s, sleep, only, nil, func(t *transition) bool {
		out = append(out, *t)
		return true
	})
	return out
}

// eachSuccessor calls visit with each transition successors would return (restricted by filter,
// when not nil, to a persistent set), in the same order, as
// soon as it is computed, until visit returns false. Computing a transition only when it is
// visited keeps one successor world per depth alive instead of every sibling's, which the
// garbage collector would otherwise scan over and over.
func (x *explorer) eachSuccessor(s *exState, sleep, only uint64, filter *porFilter, visit func(t *transition) bool) {
	queue := [][]int{nil}
	for len(queue) > 0 {
		prefix := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		c := &stepChooser{prefix: prefix, filter: filter}
		t := x.step(s, c)
		queue = append(queue, c.alts...)
		b := t.bit()
		if b&sleep != 0 || (only != 0 && b&only == 0) {
			x.release(t.next)
			continue
		}
		more := visit(&t)
		x.release(t.next)
		if !more {
			return
		}
	}
}

// release hands the world of state s, which the explorer is done with (its subtree is explored,
// or it was never entered), to the next step to clone into (world.cloneInto). Nothing refers to
// it afterwards: its successors were released before it, the visited set and the results hold
// hashes and copies, and the hash caches hold engines and committed states, which a clone
// shares and never recycles.
func (x *explorer) release(s *exState) {
	if !x.keepWorlds && len(x.free) < freeWorldsMax {
		x.free = append(x.free, s.w)
		s.w = nil
	}
}

// freeWorldsMax bounds the explorer's pool of released worlds.
const freeWorldsMax = 64

// takeFree returns a released world to clone into, or nil.
func (x *explorer) takeFree() *world {
	n := len(x.free)
	if n == 0 {
		return nil
	}
	w := x.free[n-1]
	x.free[n-1] = nil
	x.free = x.free[:n-1]
	return w
}

// step runs one scheduler step on a clone of s's world, answering through c.
func (x *explorer) step(s *exState, c *stepChooser) transition {
	ids := *s.ids
	w := s.w.cloneInto(x.takeFree(), &ids, c)
	next := &exState{w: w, ids: &ids, spent: s.spent, depth: s.depth + 1}
	t := transition{next: next, id: -1, violationsBefore: len(w.violations)}
	if cap(x.masks) < len(w.procs) {
		x.masks = make([]procMask, len(w.procs))
	}
	masks := x.masks[:len(w.procs)]
	k, ok := w.chooseAction(masks)
	if !ok {
		panic("sim: explore: a step with nothing enabled")
	}
	w.step++
	w.do(k, masks)
	x.charge(next, k)
	t.choices = c.answers
	if x.por != nil {
		t.id = x.por.id(w)
	}
	w.script = w.script[:0]
	return t
}

package sim

import (
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The tests' view of an exploration's states: a walker that builds an exploration's root and
// steps its worlds as package explore's search does (a clone per transition, every answer
// sequence of the step, the budget charged), without reduction and never recycling a world, so
// tests of the world (its clones, hashes, persistent sets, action tables) can visit the states
// an exploration visits; and a hasher that records which states an exploration reached.

// exState is one state of a walk: a world, its ID stream, the budget it has spent, its depth.
type exState struct {
	w     explore.World
	ids   *rand.PCG
	spent explore.Spent
	depth int
}

// transition is one step from a state: the step's answers, the state it leads to, and whether
// the step found a violation (the search does not continue such a path).
type transition struct {
	choices  []int
	next     exState
	violated bool
}

// stateWalker walks the states of the exploration of one scenario under one set of options.
type stateWalker struct {
	cfg    explore.Config
	hasher *stateHasher
	pers   *persistentSets // nil unless the options reduce and persistent sets apply
	set    swarm.Settings
	off    explore.SettingsOff
	path   [][]int // the walk's current path, for messages
}

func newWalker(scn *spec.Scenario, opts ExploreOptions) *stateWalker {
	x := &stateWalker{cfg: exploreConfig(scn, opts), set: ExploreSettings(opts)}
	x.hasher = x.cfg.Hasher().(*stateHasher)
	if x.cfg.Persistent != nil {
		x.pers, _ = x.cfg.Persistent().(*persistentSets)
	}
	return x
}

// root returns the exploration's root state.
func (x *stateWalker) root() *exState {
	w, ids := x.cfg.Root()
	return &exState{w: w, ids: ids}
}

// hash returns s's canonical hash with its spent budget, as the search hashes it.
func (x *stateWalker) hash(s *exState) explore.HashKey {
	return x.hasher.Hash(s.w, s.spent.Append(nil))
}

// actions returns s's actions.
func (x *stateWalker) actions(s *exState) *explore.Actions {
	a := new(explore.Actions)
	s.w.Actions(a)
	return a
}

// anyEnabled reports whether some action kind the remaining budget allows is enabled in s.
func (x *stateWalker) anyEnabled(s *exState) bool { return x.actions(s).Enabled }

// successors returns every transition from s, each on a clone of s's world, s unchanged.
func (x *stateWalker) successors(s *exState) []transition {
	acts := x.actions(s)
	var out []transition
	var c explore.StepChooser
	queue := [][]int{nil}
	for len(queue) > 0 {
		pre := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		c.Reset(pre, nil)
		w := s.w.Clone(nil, s.ids, &c)
		before := len(w.Violations())
		next := exState{w: w, ids: w.IDs(), spent: s.spent, depth: s.depth + 1}
		x.charge(&next, w.Step(acts.Weights[:], slices.Clone(acts.Masks)))
		w.TakeScript(nil)
		for i := range c.Alternatives() {
			queue = append(queue, slices.Clone(c.Alternative(i)))
		}
		out = append(out, transition{choices: slices.Clone(c.Answers()), next: next, violated: len(w.Violations()) > before})
	}
	return out
}

// charge records one action of kind k in s, turning the kind off when its budget runs out.
func (x *stateWalker) charge(s *exState, k spec.ActionKind) {
	if s.spent.Charge(x.cfg.Budget, k) {
		s.w.SetSettings(x.off.Without(s.w.Settings(), k))
	}
}

// replayTo returns the state path leads to from the root, each step taken in place on one world
// (as ReplayPath takes it).
func (x *stateWalker) replayTo(path [][]int) *exState {
	s := x.root()
	for _, answers := range path {
		rc := choose.NewReplay(answers)
		x.charge(s, s.w.Replay(rc))
		if err := rc.Err(); err != nil || rc.Remaining() > 0 {
			panic("sim: the answers do not fit a step of the path")
		}
		s.w.TakeScript(nil)
	}
	return s
}

// walkStates visits distinct states of x's exploration depth first from its root, following
// every successor unreduced, until limit visits were counted or no state is left. visit says
// whether the visit counts and whether to follow s's successors.
func walkStates(x *stateWalker, limit int, visit func(s *exState) (counted, expand bool)) {
	seen := make(map[explore.HashKey]bool)
	stack := []*exState{x.root()}
	for n := 0; len(stack) > 0 && n < limit; {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k := x.hash(s); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		counted, expand := visit(s)
		if counted {
			n++
		}
		if expand {
			for _, tr := range x.successors(s) {
				stack = append(stack, &tr.next)
			}
		}
	}
}

// stateRecorder records the states an exploration hashed: it wraps the hashers the exploration
// makes, and every state hashed with nothing enabled is a terminal state (the search hashes each
// state it reaches before anything else, and the explorations of the tests have no depth
// bound). With also set, each terminal state is hashed with it too (into termsAlso).
type stateRecorder struct {
	mu        sync.Mutex
	states    map[explore.HashKey]bool
	terminals map[explore.HashKey]bool
	termsAlso map[explore.HashKey]bool
	also      func() explore.Hasher
}

func newStateRecorder() *stateRecorder {
	return &stateRecorder{states: map[explore.HashKey]bool{}, terminals: map[explore.HashKey]bool{},
		termsAlso: map[explore.HashKey]bool{}}
}

// wrap makes cfg's hashers record into r.
func (r *stateRecorder) wrap(cfg *explore.Config) {
	inner := cfg.Hasher
	cfg.Hasher = func() explore.Hasher {
		h := &recordingHasher{r: r, inner: inner()}
		if r.also != nil {
			h.also = r.also()
		}
		return h
	}
}

// recordingHasher is one search's hasher under a stateRecorder.
type recordingHasher struct {
	r     *stateRecorder
	inner explore.Hasher
	also  explore.Hasher
	acts  explore.Actions
}

func (h *recordingHasher) Hash(w explore.World, extra []byte) explore.HashKey {
	k := h.inner.Hash(w, extra)
	w.Actions(&h.acts)
	var a explore.HashKey
	terminal := !h.acts.Enabled
	if terminal && h.also != nil {
		a = h.also.Hash(w, extra)
	}
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.states[k] = true
	if terminal {
		h.r.terminals[k] = true
		if h.also != nil {
			h.r.termsAlso[a] = true
		}
	}
	return k
}

// exploreRecorded explores scn under opts (its configuration and the recorder changed by adjust
// first, when not nil) and returns the result and the states it hashed.
func exploreRecorded(scn *spec.Scenario, opts ExploreOptions, adjust func(cfg *explore.Config, r *stateRecorder)) (ExploreResult, *stateRecorder) {
	cfg := exploreConfig(scn, opts)
	r := newStateRecorder()
	if adjust != nil {
		adjust(&cfg, r)
	}
	r.wrap(&cfg)
	return explore.Explore(cfg), r
}

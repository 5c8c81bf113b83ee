package world

import (
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The tests' view of an exploration's states: the search itself (explore.Explore on the
// configuration sim's entry points build), observed through the two places every state passes:
// the hasher, which the search asks for the hash of each state it enters before anything else,
// and the world's end (World.Finish), which the search runs on exactly the states it counts as
// terminal (nothing enabled within the budget, or the depth bound reached) and, besides them,
// only on the restart check's end copies (World.EndCopy), which the observer does not follow.

// stateRecorder records the states an exploration hashed and those it ended as terminal. With
// also set, each terminal state is hashed with it too (into termsAlso); with visit set, it is
// called once with each distinct state the search enters, its hash, the hash's extra part (the
// budget spent) and the searching hasher, before the search goes on from it.
type stateRecorder struct {
	mu        sync.Mutex
	states    map[explore.HashKey]bool
	terminals map[explore.HashKey]bool
	termsAlso map[explore.HashKey]bool
	also      func() explore.Hasher
	visit     func(w *World, k explore.HashKey, extra []byte, h explore.Hasher)
	// noRecycle makes the exploration's worlds never reuse a released world (testHooks.noRecycle).
	noRecycle bool
	// last is each world's latest hash and the extra part it was hashed with: the search ends a
	// terminal state right after hashing it, in the goroutine that hashed it.
	last map[*World]lastHash
}

type lastHash struct {
	key   explore.HashKey
	extra []byte
}

func newStateRecorder() *stateRecorder {
	return &stateRecorder{states: map[explore.HashKey]bool{}, terminals: map[explore.HashKey]bool{},
		termsAlso: map[explore.HashKey]bool{}, last: map[*World]lastHash{}}
}

// wrap makes cfg's hashers record into r, and the worlds of cfg's exploration tell r when the
// search ends one (testHooks.finishing, which a world's clones share and its end copies drop).
func (r *stateRecorder) wrap(cfg *explore.Config) {
	inner := cfg.Hasher
	cfg.Hasher = func() explore.Hasher { return &recordingHasher{r: r, inner: inner()} }
	root := cfg.Root
	cfg.Root = func() (explore.World, *rand.PCG) {
		w, ids := root()
		hooks := testHooks{}
		if hw := w.(*World).hooks; hw != nil {
			hooks = *hw
		}
		hooks.finishing, hooks.noRecycle = r.finishing, r.noRecycle
		w.(*World).hooks = &hooks
		return w, ids
	}
}

// finishing records terminal state w as the search hashed it.
func (r *stateRecorder) finishing(w *World) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.last[w]
	if !ok {
		panic("world: the search ended a state it never hashed")
	}
	r.terminals[l.key] = true
	if r.also != nil {
		r.termsAlso[r.also().Hash(w, l.extra)] = true
	}
}

// recordingHasher is one search's hasher under a stateRecorder.
type recordingHasher struct {
	r     *stateRecorder
	inner explore.Hasher
}

func (h *recordingHasher) Hash(w explore.World, extra []byte) explore.HashKey {
	k := h.inner.Hash(w, extra)
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.last[w.(*World)] = lastHash{k, slices.Clone(extra)}
	if !h.r.states[k] {
		h.r.states[k] = true
		if h.r.visit != nil {
			h.r.visit(w.(*World), k, extra, h.inner)
		}
	}
	return k
}

// exploreRecorded explores scn under opts (its configuration and the recorder changed by adjust
// first, when not nil) and returns the result and the states it hashed.
func exploreRecorded(scn *spec.Scenario, opts exploreOptions, adjust func(cfg *explore.Config, r *stateRecorder)) (explore.Result, *stateRecorder) {
	cfg := exploreConfig(scn, opts)
	r := newStateRecorder()
	if adjust != nil {
		adjust(&cfg, r)
	}
	r.wrap(&cfg)
	return explore.Explore(cfg), r
}

// visitStates explores scn under opts, stopping after limit states, and calls visit with each
// distinct state the search enters (see stateRecorder.visit).
func visitStates(scn *spec.Scenario, opts exploreOptions, limit int, visit func(w *World, k explore.HashKey, extra []byte, h explore.Hasher)) explore.Result {
	opts.MaxStates = limit
	res, _ := exploreRecorded(scn, opts, func(_ *explore.Config, r *stateRecorder) { r.visit = visit })
	return res
}

package sim

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The explorer's seam: what an exploration does to a world. The explorer's search (package
// explore: the sequential, parallel, sharded, shortest-path and replaying searches and the
// restart check) touches a world only through explore.World, which *world implements here;
// behind it the world keeps its host, its oracle, its substrate and the copy-on-write state a
// clone shares.
// Three services the search asks of a world are about the world's meaning, so they are on the
// world's side and read its insides: the canonical hash (explore.Hasher, implemented by
// stateHasher: world_hash*.go, explore_canonical.go), the dependencies that make a persistent
// set (explore.Persistent, implemented by persistentSets: explore_persistent*.go) and the
// identity of a local transition, which sleep sets put to sleep (LocalTransition).

var _ explore.World = (*world)(nil)

// newExploredWorld returns the root of an exploration: the world of scn under set with every
// process started, its script empty.
func newExploredWorld(scn *spec.Scenario, set *swarm.Settings, opts *RunOptions) *world {
	w := newWorld(scn, set, choose.NewReplay(nil), opts)
	w.startAll()
	w.script = nil
	return w
}

// released returns the world a released explore.World is, for w's clone to reuse, or nil (none,
// or w's hooks say to reuse none).
func (w *world) released(into explore.World) *world {
	if into == nil || (w.hooks != nil && w.hooks.noRecycle) {
		return nil
	}
	return into.(*world)
}

func (w *world) Clone(into explore.World, ids *rand.PCG, ch choose.Chooser) explore.World {
	return w.cloneInto(w.released(into), ids, ch)
}

func (w *world) EndCopy(into explore.World, ids *rand.PCG) explore.World {
	c := w.cloneInto(w.released(into), ids, choose.NewReplay(nil))
	if c.hooks != nil && c.hooks.finishing != nil {
		h := *c.hooks
		h.finishing = nil
		c.hooks = &h
	}
	c.ownAll()
	c.or.ClearViolations()
	return c
}

func (w *world) IDs() *rand.PCG { return &w.idsPCG }

// Actions: chooseAction's options, with every enabled kind weighing 1. A swarm run weighs the
// enabled action kinds (the settings' weights, raised by shapeKindWeights); an exploration
// enumerates every enabled kind whatever its weight (explore.StepChooser and the recorder read
// only which weights are non-zero), so this skips the weighing: the boosts only raise weights of
// kinds already enabled, never enable or disable one. TestExploreActionChoiceMatchesRun checks
// that a state's actions are chooseAction's options in every state of a few scopes.
func (w *world) Actions(a *explore.Actions) {
	if cap(a.Masks) < len(w.procs) {
		a.Masks = make([]explore.Mask, len(w.procs))
	}
	a.Masks = a.Masks[:len(w.procs)]
	var any explore.Mask
	for i, p := range w.procs {
		a.Masks[i] = w.maskOf(p)
		any |= a.Masks[i]
	}
	a.Enabled, a.Left = false, 0
	liveExt := w.liveExternals > 0
	for k := range spec.NumActionKinds {
		a.Weights[k] = 0
		if w.set.Weights[k] == 0 {
			continue
		}
		a.Left |= 1 << k
		if w.kindEnabled(spec.ActionKind(k), any, liveExt) {
			a.Weights[k], a.Enabled = 1, true
		}
	}
}

func (w *world) Step(weights []uint32, masks []explore.Mask) spec.ActionKind {
	k := spec.ActionKind(w.chooser.Choose("action", weights))
	w.step++
	w.do(k, masks)
	return k
}

func (w *world) Replay(ch choose.Chooser) spec.ActionKind {
	w.chooser = choose.NewRecorder(ch)
	k, _ := w.scheduledStep(make([]explore.Mask, len(w.procs)))
	return k
}

func (w *world) TakeScript(dst []spec.ScriptedAction) []spec.ScriptedAction {
	dst = append(dst, w.script...)
	w.script = w.script[:0]
	return dst
}

func (w *world) Violations() []spec.Violation    { return w.or.Violations() }
func (w *world) Settings() *swarm.Settings       { return w.set }
func (w *world) SetSettings(set *swarm.Settings) { w.set = set }
func (w *world) Result() *spec.Result            { return w.result() }
func (w *world) Processes() int                  { return len(w.procs) }
func (w *world) Restartable(i int) bool          { return restartable(w.procs[i]) }
func (w *world) Restart(i int)                   { w.cleanRestart(w.procs[i]) }
func (w *world) ProcessName(i int) string        { return w.procs[i].spec.Name }

func (w *world) Finish() {
	if w.hooks != nil && w.hooks.finishing != nil {
		w.hooks.finishing(w)
	}
	w.finish()
}

// Hash implements explore.Hasher for the worlds of this package.
func (h *stateHasher) Hash(w explore.World, extra []byte) explore.HashKey {
	return h.hash(w.(*world), extra)
}

// Filter implements explore.Persistent for the worlds of this package.
func (ps *persistentSets) Filter(w explore.World, acts *explore.Actions, into *explore.Filter) *explore.Filter {
	return w.(*world).persistentFilter(ps, acts, into)
}

func (w *world) LocalTransition() (explore.TransitionKey, bool) {
	if len(w.script) != 1 {
		return explore.TransitionKey{}, false
	}
	a := &w.script[0]
	if a.Kind != spec.ActFeed && a.Kind != spec.ActDrain && a.Kind != spec.ActCommit {
		return explore.TransitionKey{}, false
	}
	k := explore.TransitionKey{Kind: a.Kind, Proc: w.procByName(a.Process).idx, Topic: -1}
	if a.Kind == spec.ActFeed {
		k.Topic = w.topicByName[a.Topic]
	}
	return k, true
}

func (w *world) Deliveries() [][]uint64 {
	out := make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		out[i] = p.o.DeliverySequence()
	}
	return out
}

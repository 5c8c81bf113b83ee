package world

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world/streams"
)

// The explorer's seam: what an exploration does to a world. The explorer's search (package
// explore: the sequential, parallel, sharded, shortest-path and replaying searches and the
// restart check) touches a world only through explore.World, which *World implements here;
// behind it the world keeps its host, its oracle, its substrate and the copy-on-write state a
// clone shares.
// Three services the search asks of a world are about the world's meaning, so they are on the
// world's side and read its insides: the canonical hash (explore.Hasher: package canon's, over
// the views of explore_hash.go), the persistent sets (explore.Persistent:
// package persistent's, over the view of explore_persistent.go) and the
// identity of a local transition, which sleep sets put to sleep (LocalTransition).

var _ explore.World = (*World)(nil)

// ExploreRoot returns the root of an exploration of scn under set (package explore's Config.Root)
// with opts' sabotage and disabled criteria: the world with every process started, as a run
// begins, its script empty, and the topic-ID stream its clones continue from. Its durations and
// payloads are constant (streams.Explore), so they never branch, and its topic IDs follow the
// seed's ID stream, cloned with each world, so a path's k-th incarnation has the ID a plain run of
// the same seed gives it. It records its script and journals its engines' calls (RunOptions'
// explored), which cloning and hashing it needs.
func ExploreRoot(scn *spec.Scenario, set swarm.Settings, opts RunOptions) (*World, *rand.PCG) {
	ds, ids := streams.Explore(set.Seed)
	opts.streams, opts.RecordScript, opts.explored = ds, true, true
	w := newWorld(scn, &set, choose.NewReplay(nil), &opts)
	w.Start()
	w.script = nil
	return w, ids
}

// released returns the world a released explore.World is, for w's clone to reuse, or nil (none,
// or w's hooks say to reuse none).
func (w *World) released(into explore.World) *World {
	if into == nil || (w.hooks != nil && w.hooks.noRecycle) {
		return nil
	}
	return into.(*World)
}

// Clone implements explore.World: a copy-on-write copy (world_clone*.go) that steps on its own.
func (w *World) Clone(into explore.World, ids *rand.PCG, ch choose.Chooser) explore.World {
	return w.cloneInto(w.released(into), ids, ch)
}

// EndCopy implements explore.World: a copy that owns every part it shares and has found no
// violation yet, for the restart check to run to its end.
func (w *World) EndCopy(into explore.World, ids *rand.PCG) explore.World {
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

// IDs implements explore.World: the world's own copy of the topic-ID stream.
func (w *World) IDs() *rand.PCG { return &w.idsPCG }

// Actions implements explore.World: chooseAction's options, with every enabled kind weighing 1.
// A swarm run weighs the enabled action kinds (the settings' weights, raised by
// shape.KindWeights); an exploration enumerates every enabled kind whatever its weight
// (explore.StepChooser and the recorder read only which weights are non-zero), so this skips the
// weighing: the boosts only raise weights of kinds already enabled, never enable or disable one.
// TestExploreActionChoiceMatchesRun checks that a state's actions are chooseAction's options in
// every state of a few scopes.
func (w *World) Actions(a *explore.Actions) {
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
	on := uint32(any) | w.worldKinds()
	for k := range spec.NumActionKinds {
		a.Weights[k] = 0
		if w.set.Weights[k] == 0 {
			continue
		}
		a.Left |= 1 << k
		if on&(1<<k) != 0 {
			a.Weights[k], a.Enabled = 1, true
		}
	}
}

// Step implements explore.World: one step offering the kinds of weights and the processes of
// masks, decided by the world's chooser.
func (w *World) Step(weights []uint32, masks []explore.Mask) spec.ActionKind {
	k := spec.ActionKind(w.chooser.Choose("action", weights))
	w.step++
	w.do(k, masks)
	return k
}

// Replay implements explore.World: one step as a run takes it (scheduledStep), answered by ch.
func (w *World) Replay(ch choose.Chooser) spec.ActionKind {
	w.chooser = choose.NewRecorder(ch)
	k, _ := w.scheduledStep(make([]explore.Mask, len(w.procs)))
	return k
}

// TakeScript implements explore.World: the actions recorded since the last call.
func (w *World) TakeScript(dst []spec.ScriptedAction) []spec.ScriptedAction {
	dst = append(dst, w.script...)
	w.script = w.script[:0]
	return dst
}

// Violations implements explore.World: the violations the oracle found so far.
func (w *World) Violations() []spec.Violation { return w.or.Violations() }

// Settings implements explore.World: the run's settings.
func (w *World) Settings() *swarm.Settings { return w.set }

// SetSettings implements explore.World: the settings the rest of the run uses.
func (w *World) SetSettings(set *swarm.Settings) { w.set = set }

// Processes implements explore.World: the number of processes.
func (w *World) Processes() int { return len(w.procs) }

// Restartable implements explore.World: whether process i can take a clean restart now.
func (w *World) Restartable(i int) bool { return restartable(w.procs[i]) }

// Restart implements explore.World: a clean restart of process i.
func (w *World) Restart(i int) { w.cleanRestart(w.procs[i]) }

// ProcessName implements explore.World: process i's scenario name.
func (w *World) ProcessName(i int) string { return w.procs[i].spec.Name }

// LocalTransition implements explore.World: the step just taken as a sleep-set transition (a
// feed, drain or commit of one process), read from the one action it recorded.
func (w *World) LocalTransition() (explore.TransitionKey, bool) {
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

// Deliveries implements explore.World: every process's committed first deliveries, in order.
func (w *World) Deliveries() [][]uint64 {
	out := make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		out[i] = p.o.DeliverySequence()
	}
	return out
}

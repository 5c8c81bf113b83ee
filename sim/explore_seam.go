package sim

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The explorer's seam: what an exploration does to a world. The explorer's search (explore.go,
// explore_step.go, the parallel, sharded, shortest-path and replaying searches and the restart
// check) touches a world only through these methods; behind them the world keeps its host, its
// oracle, its substrate and the copy-on-write state a clone shares. Three services the search
// asks of a world are about the world's meaning, so they are on the world's side and read its
// insides: the canonical hash (stateHasher: world_hash*.go, explore_canonical.go), the
// dependencies that make a persistent set (persistentSets' rules: explore_persistent*.go) and
// the identity of a local transition, which sleep sets put to sleep (localTransition).
//
// exploredWorld lists the seam; *world is its one implementation.
type exploredWorld interface {
	// cloneInto returns a copy that steps on its own: topic IDs continue from ids, decisions are
	// answered by ch, and the storage of into (a world the explorer released), when not nil, is
	// reused (world_clone.go).
	cloneInto(into *world, ids *rand.PCG, ch choose.Chooser) *world
	// endCopy is a copy to run to its end (the restart check's): it owns every part it shares
	// with w, and has found no violation yet.
	endCopy(into *world, ids *rand.PCG) *world
	// idStream is the world's own copy of the topic-ID stream (a clone's, set by cloneInto).
	idStream() *rand.PCG
	// enabledActions fills a with what every step from the world offers.
	enabledActions(a *stateActions)
	// exploreStep takes one scheduler step offering the kinds of weights (1 for enabled) and the
	// processes of masks (its scratch), decided by the world's chooser, and returns its kind.
	exploreStep(weights []uint32, masks []procMask) spec.ActionKind
	// replayStep takes one step as a run takes it (scheduledStep: the run's weights), answered
	// by ch, and returns its kind.
	replayStep(ch choose.Chooser) spec.ActionKind
	// takeScript appends the actions recorded since the last call to dst and forgets them.
	takeScript(dst []spec.ScriptedAction) []spec.ScriptedAction
	// violationsFound are the violations found so far, in order.
	violationsFound() []spec.Violation
	// withSettings switches the world to settings set (the explorer's copy with a spent budget's
	// kind off); settings returns them.
	settings() *swarm.Settings
	withSettings(set *swarm.Settings)
	// finish runs the liveness phase and the end-of-run checks (run.go); result is the run's
	// result.
	finish()
	result() *spec.Result
	// processCount is the number of processes; restartable says whether process i can be
	// restarted cleanly now, and cleanRestartOf restarts it; processName names it.
	processCount() int
	restartableProc(i int) bool
	cleanRestartOf(i int)
	processName(i int) string
	// deliverySequences are every process's committed first deliveries in order.
	deliverySequences() [][]uint64
	// canonicalHash is the world's canonical hash by h (world_hash.go), extra appended to its
	// encoding.
	canonicalHash(h *stateHasher, extra []byte) hashKey
	// persistentFilter restricts the world's actions acts to a persistent set of ps, written into
	// into, or returns nil for every enabled transition (explore_persistent.go).
	persistentFilter(ps *persistentSets, acts *stateActions, into *porFilter) *porFilter
	// localTransition is the identity of the step just taken when it is a local transition (a
	// feed, drain or commit), which sleep sets put to sleep (explore_por.go).
	localTransition() (porKey, bool)
}

var _ exploredWorld = (*world)(nil)

// newExploredWorld returns the root of an exploration: the world of scn under set with every
// process started, its script empty.
func newExploredWorld(scn *spec.Scenario, set *swarm.Settings, opts *RunOptions) *world {
	w := newWorld(scn, set, choose.NewReplay(nil), opts)
	w.startAll()
	w.script = nil
	return w
}

func (w *world) endCopy(into *world, ids *rand.PCG) *world {
	c := w.cloneInto(into, ids, choose.NewReplay(nil))
	c.ownAll()
	c.or.ClearViolations()
	return c
}

func (w *world) idStream() *rand.PCG { return &w.idsPCG }

// enabledActions: chooseAction's options, with every enabled kind weighing 1.
func (w *world) enabledActions(a *stateActions) {
	if cap(a.masks) < len(w.procs) {
		a.masks = make([]procMask, len(w.procs))
	}
	a.masks = a.masks[:len(w.procs)]
	var any procMask
	for i, p := range w.procs {
		a.masks[i] = w.maskOf(p)
		any |= a.masks[i]
	}
	a.enabled, a.left = false, 0
	liveExt := w.liveExternals > 0
	for k := range spec.NumActionKinds {
		a.weights[k] = 0
		if w.set.Weights[k] == 0 {
			continue
		}
		a.left |= 1 << k
		if w.kindEnabled(spec.ActionKind(k), any, liveExt) {
			a.weights[k], a.enabled = 1, true
		}
	}
}

func (w *world) exploreStep(weights []uint32, masks []procMask) spec.ActionKind {
	k := spec.ActionKind(w.chooser.Choose("action", weights))
	w.step++
	w.do(k, masks)
	return k
}

func (w *world) replayStep(ch choose.Chooser) spec.ActionKind {
	w.chooser = choose.NewRecorder(ch)
	k, _ := w.scheduledStep(make([]procMask, len(w.procs)))
	return k
}

func (w *world) takeScript(dst []spec.ScriptedAction) []spec.ScriptedAction {
	dst = append(dst, w.script...)
	w.script = w.script[:0]
	return dst
}

func (w *world) violationsFound() []spec.Violation { return w.or.Violations() }
func (w *world) settings() *swarm.Settings         { return w.set }
func (w *world) withSettings(set *swarm.Settings)  { w.set = set }
func (w *world) processCount() int                 { return len(w.procs) }
func (w *world) restartableProc(i int) bool        { return restartable(w.procs[i]) }
func (w *world) cleanRestartOf(i int)              { w.cleanRestart(w.procs[i]) }
func (w *world) processName(i int) string          { return w.procs[i].spec.Name }

func (w *world) canonicalHash(h *stateHasher, extra []byte) hashKey { return h.hash(w, extra) }

func (w *world) localTransition() (porKey, bool) {
	if len(w.script) != 1 {
		return porKey{}, false
	}
	a := &w.script[0]
	if a.Kind != spec.ActFeed && a.Kind != spec.ActDrain && a.Kind != spec.ActCommit {
		return porKey{}, false
	}
	k := porKey{kind: a.Kind, proc: w.procByName(a.Process).idx, topic: -1}
	if a.Kind == spec.ActFeed {
		k.topic = w.topicByName[a.Topic]
	}
	return k, true
}

func (w *world) deliverySequences() [][]uint64 {
	out := make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		out[i] = p.o.DeliverySequence()
	}
	return out
}

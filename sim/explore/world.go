// Package explore is the exhaustive explorer: the search over every schedule of a small scope
// and its side of the seam with the explored world. A world is a state between two scheduler
// steps; the search clones it, reads what its next step may do, takes one step on each clone,
// and hashes the result to deduplicate. It drives worlds through the World interface and
// exchanges small values with them (enabled actions, process masks, the persistent-set filter,
// the identity of a local transition, the canonical hash). What a world's state means is behind
// two interfaces: its canonical encoding is the world's business (Hasher), and which of its
// transitions depend on which is package explore/persistent's rules over a read-only view the
// world gives them (Persistent); the search sees only hashes, action tables and filters.
// Config says how to build an exploration's root and these services; package sim builds it from
// a scenario with package world's root and services, under Settings (settings.go): the run
// settings an exploration's worlds take.
//
// The search (search*.go): depth-first with deduplication by hash and the state-caching
// correction (Explore), the restart check at a sampled share of the states (search_restart.go;
// its sampling in restart.go), a parallel search whose workers share the visited set and give
// each other work (search_parallel.go; what they share in parallel.go), a sharded one whose
// shards explore the subtrees below a cut (search_shard.go; the cut in shard.go), the shortest
// path to a violation by iterative deepening (Shortest) and the replay of a path in place
// (ReplayPath).
// Its parts: the sleep sets' table of local transitions and their independence (SleepTable),
// the chooser that enumerates a state's transitions one answer sequence at a time
// (StepChooser), the budget a path has spent (spent.go), the released worlds a clone
// reuses (free.go); three are packages of their own: the visited set (explore/visited), a
// scope's budget (explore/budget) and the persistent sets' rules (explore/persistent).
package explore

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// World is one explored state: a world between two scheduler steps, with every process, its
// substrate and its oracle. The search never reads a world's insides; it copies worlds, asks what
// a step may do, takes steps and collects what the world recorded and found.
type World interface {
	// Clone returns a copy that steps on its own: its topic IDs continue from ids (the copy gets
	// its own copy of the stream, IDs), its decisions are answered by ch, and the storage of into
	// (a world the search released, or nil) is reused. A released world must be one this world's
	// implementation made, and nothing may read it afterwards.
	Clone(into World, ids *rand.PCG, ch choose.Chooser) World
	// EndCopy is a copy to run to its end (the restart check's): it owns every part it shares
	// with the original, and has found no violation yet. into is reused as in Clone.
	EndCopy(into World, ids *rand.PCG) World
	// IDs is the world's own copy of the topic-ID stream.
	IDs() *rand.PCG
	// Actions fills a with what every step from the world offers.
	Actions(a *Actions)
	// Step takes one scheduler step offering the kinds of weights (1 for enabled) and the
	// processes of masks (scratch the step may change), decided by the world's chooser, and
	// returns the step's kind.
	Step(weights []uint32, masks []Mask) spec.ActionKind
	// Replay takes one step as a run takes it (the run's weights), answered by ch, and returns
	// its kind.
	Replay(ch choose.Chooser) spec.ActionKind
	// TakeScript appends the actions recorded since the last call to dst and forgets them.
	TakeScript(dst []spec.ScriptedAction) []spec.ScriptedAction
	// Violations are the violations found so far, in order.
	Violations() []spec.Violation
	// Settings are the world's run settings; SetSettings switches them (the search's copy with a
	// spent budget's kind off). Settings are never changed in place.
	Settings() *swarm.Settings
	SetSettings(set *swarm.Settings)
	// Finish runs the liveness phase and the end-of-run checks; Result is the run's result.
	Finish()
	Result() *spec.Result
	// Processes is the number of processes; Restartable says whether process i can be restarted
	// cleanly now, Restart restarts it so, and ProcessName names it.
	Processes() int
	Restartable(i int) bool
	Restart(i int)
	ProcessName(i int) string
	// Deliveries are every process's committed first deliveries, in order.
	Deliveries() [][]uint64
	// LocalTransition is the identity of the step just taken when it is a local transition (a
	// feed, drain or commit of one process), which sleep sets put to sleep; false for any other.
	LocalTransition() (TransitionKey, bool)
}

// Hasher gives a world its canonical hash: equal hashes for worlds that behave alike from here
// on. extra (the search's own part of the state: the budget spent) is hashed with the world. A
// Hasher is used by one goroutine at a time.
type Hasher interface {
	Hash(w World, extra []byte) HashKey
}

// Persistent restricts a state's transitions to a persistent set. Filter returns into, written
// with the set of w (whose actions are acts), or nil when every enabled transition is to be
// explored. A Persistent is used by one goroutine at a time.
type Persistent interface {
	Filter(w World, acts *Actions, into *Filter) *Filter
}

// HashKey is a 128-bit canonical state hash: two independently keyed 64-bit hashes.
type HashKey [2]uint64

// Mask is a set of action kinds, by bit: the kinds a process is an eligible target of, or the
// kinds with budget left.
type Mask uint32

// Actions are what every step from one state offers: each process's mask (the kinds it is an
// eligible target of) and the enabled action kinds.
type Actions struct {
	Masks   []Mask
	Weights [spec.NumActionKinds]uint32 // 1 for an enabled kind, 0 for the others
	Enabled bool                        // some kind is enabled
	Left    Mask                        // the kinds with budget left
}

// TransitionKey identifies a local transition across states: its kind, its process and, for a
// feed, its topic (-1 otherwise).
type TransitionKey struct {
	Kind  spec.ActionKind
	Proc  int
	Topic int
}

// Filter restricts one state's transitions: per decision label, the options allowed (by index;
// options 64 and up never are). A decision whose label has no rule is not restricted.
type Filter struct {
	rules []filterRule
	buf   []uint32
}

// filterRule is one label's allowed options.
type filterRule struct {
	label   string
	allowed uint64
}

// Reset empties f of its rules (its buffers are kept).
func (f *Filter) Reset() { f.rules = f.rules[:0] }

// Allow restricts the decision labelled label to the options in allowed. The first rule of a
// label is the one applied.
func (f *Filter) Allow(label string, allowed uint64) {
	f.rules = append(f.rules, filterRule{label, allowed})
}

// Apply returns weights with the options f excludes from the decision labelled label zeroed (in a
// buffer of f's; weights itself is left alone), or weights when f has no rule for label.
func (f *Filter) Apply(label string, weights []uint32) []uint32 {
	for _, r := range f.rules {
		if r.label != label {
			continue
		}
		f.buf = append(f.buf[:0], weights...)
		for i := range f.buf {
			if i >= 64 || r.allowed&(1<<i) == 0 {
				f.buf[i] = 0
			}
		}
		return f.buf
	}
	return weights
}

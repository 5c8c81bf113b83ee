package explore

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Sleep sets (Godefroid 1996, ch. 5): which local transitions are independent, the sleep set a
// transition leads to, and why the world's independent transitions commute.
//
// Independence. Two transitions are independent when they are local transitions (feed, drain or
// commit) of two different processes whose topic footprints are disjoint. A process's footprint
// is every topic it receives or sends to (all partitions, all incarnations; every topic when
// redeclarations are in the budget, since one may add any topic to it). Every other transition
// is dependent on every transition. What the search does with them: a transition t explored from
// s before u, and independent of u, is put to sleep in s·u, since s·u·t = s·t·u is reached from
// s·t. Sleep sets prune transitions, not states; persistent sets (package persistent) prune
// states, and the two combine.
//
// Why the world's independent transitions commute (t·u and u·t from the same state reach states
// with equal canonical hashes, find the same violations, and neither enables or disables the
// other). A feed, drain or commit of p reads and writes only: p's host, oracle and engine (and,
// when p is a projector, its own projection: package tiers); the substrate logs, transactions
// and group offsets of p's channels (footprint topics); the shared message table (it appends p's emissions: uids then differ by order, but the canonical state names a
// message by channel and position); the stamped producers' ring (a commit adds p's emissions:
// hashed as a set until it wraps — scopes with stamped producers must stay under 16 committed
// records for the argument to hold, which the catalogue does); and the virtual clock and stats,
// which are not state. The checks those transitions run read p's state, the immutable pasts of
// messages, and channel liveness and positions on p's own received channels; the exceptions
// (STRUCT12's "assigned" test on a channel outside p's footprint, STRUCT15's liveness test)
// read what only dependent transitions change, or positions p's emission names on a foreign
// channel, which are at most what p has seen in fed headers and so are assigned already. A
// transition is enabled by p's own flags and the last stable offset of p's received channels,
// which only a commit of a sender to those topics moves — a process whose footprint shares the
// topic, hence dependent. So with disjoint footprints the two orders agree on state, on the
// violations (criterion and process) and on enabledness.
//
// Why sleep sets are sound here. A transition t is put to sleep in state s·u only when t was
// explored from s before u and is independent of u; then s·u·t = s·t·u, which the exploration
// reaches from s·t. So every reachable state is still visited (sleep sets prune transitions, not
// states), hence every terminal state, and every violation a pruned transition would find is
// found on the commuted path (same violations). With state caching a state may first be visited
// with a larger sleep set than a later path to it has; the correction re-expands the transitions
// that were asleep then and are awake now, and keeps the intersection (package explore's
// search). Package world's TestExploreReductionIsSound checks on small scopes that reduced and unreduced
// exploration reach the same terminal states and find the same verdicts.

// SleepTable interns local transitions (at most 64: a sleep set is a bitset) and knows which
// are independent. When every possible local transition fits (processes times topics plus two
// is at most 64), they are all interned up front in a fixed order, so the table is never written
// afterwards and the workers of a parallel exploration share it; otherwise they are interned as
// they first occur, up to 64, and the table belongs to one search.
type SleepTable struct {
	fixed     bool     // every local transition was interned up front
	footprint []uint64 // per process: bitmask of topics
	ids       map[TransitionKey]int
	keys      []TransitionKey
	indep     []uint64 // per id: the ids independent of it
}

// NewSleepTable returns the table of scn's local transitions under set (whose redeclarations, if
// any are allowed, make every footprint every topic).
func NewSleepTable(scn *spec.Scenario, set *swarm.Settings) *SleepTable {
	t := &SleepTable{ids: make(map[TransitionKey]int)}
	topic := make(map[string]int, len(scn.Topics))
	for i, tp := range scn.Topics {
		topic[tp.Name] = i
	}
	all := uint64(1)<<min(len(scn.Topics), 63) - 1
	if len(scn.Topics) >= 64 {
		all = ^uint64(0)
	}
	for _, p := range scn.Processes {
		var f uint64
		for _, n := range append(append([]string(nil), p.Receives...), p.Sends...) {
			f |= 1 << (topic[n] % 64)
		}
		if set.Weights[spec.ActRedeclare] > 0 {
			f = all
		}
		t.footprint = append(t.footprint, f)
	}
	if len(scn.Processes)*(len(scn.Topics)+2) <= 64 {
		for proc := range scn.Processes {
			t.intern(TransitionKey{Kind: spec.ActDrain, Proc: proc, Topic: -1})
			t.intern(TransitionKey{Kind: spec.ActCommit, Proc: proc, Topic: -1})
			for topic := range scn.Topics {
				t.intern(TransitionKey{Kind: spec.ActFeed, Proc: proc, Topic: topic})
			}
		}
		t.fixed = true
	}
	return t
}

// Fixed reports whether every local transition was interned up front, so the table is read-only
// and may be shared by goroutines.
func (t *SleepTable) Fixed() bool { return t.fixed }

// ID returns the identity of local transition k, or -1 when the table is full (a transition
// without an identity is never put to sleep).
func (t *SleepTable) ID(k TransitionKey) int {
	if id, ok := t.ids[k]; ok {
		return id
	}
	if t.fixed || len(t.keys) == 64 {
		return -1
	}
	return t.intern(k)
}

// intern gives key k the next identity and records its independence of the keys before it.
func (t *SleepTable) intern(k TransitionKey) int {
	id := len(t.keys)
	t.ids[k] = id
	t.keys = append(t.keys, k)
	t.indep = append(t.indep, 0)
	for j, o := range t.keys[:id] {
		if o.Proc != k.Proc && t.footprint[o.Proc]&t.footprint[k.Proc] == 0 {
			t.indep[id] |= 1 << j
			t.indep[j] |= 1 << id
		}
	}
	return id
}

// ChildSleep returns the sleep set of the state the transition with identity id leads to, given
// the sleep set of its source with every transition explored from it before this one added
// (sleep): the sleeping transitions independent of it. A transition without an identity (-1)
// leads to an empty sleep set.
func (t *SleepTable) ChildSleep(sleep uint64, id int) uint64 {
	if id < 0 {
		return 0
	}
	return sleep & t.indep[id]
}

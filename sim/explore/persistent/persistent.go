// Package persistent computes the explorer's persistent sets of a world's states, as strong
// stubborn sets (Valmari; Godefroid 1996, ch. 4): at each state the explorer expands only the
// enabled transitions of a set of "actors" closed under a dependency relation, instead of every
// enabled transition. Unlike sleep sets (package explore's SleepTable), this cuts states, not only
// transitions. It reads a world through View, the questions its rules ask of one state, and
// answers with a Selection, which the world turns into the search's filter; the actors' topology
// (who sends and receives what) is the scenario's.
//
// Actors: each process (its feeds, drain, commit, start and crash); per external topic, its
// producer (plain produces to it), its deletion; per topic, its truncation (delete-records on its
// channels). Any other kind with budget left (stops, rewinds, recreations, redeclarations, stamped
// or corrupt produces, transactions, migrations, zombies, retention, sessions), an open external
// transaction, or a truncation step with no channel to truncate makes the state fully expanded.
//
// The set S grown from a seed actor must satisfy, for every state reachable from s by
// transitions of actors outside S:
//
//	D1: for t of an actor in S and u1…un of actors outside it, if s −u1…un·t→ s' then
//	    s −t·u1…un→ s', every step finding the same violations;
//	D2: some enabled transition of S (the key) stays enabled along every such path.
//
// D1 is closed by the rules of deps.go: actor B joins when one of its
// transitions u, followed by one t of an actor in S, cannot be moved behind t (t·u not executable,
// another state, other violations), or when B can enable a disabled transition of a process in S.
// The rules lean on one fact: actors outside S cannot change the state of actors in S, so a
// transition of S behaves after any outside path as it would now. What each transition reads and
// writes (package world's actions, host and faults, and package oracle):
//
//   - A feed of p on channel c reads p, the committed record at p's read position below c's last
//     stable offset (LSO) — entries below the LSO never change — and message pasts (immutable);
//     it writes p. If no committed record lies in [read position, LSO) it is a skip: the read
//     position jumps to the LSO, so it does not commute with what moves the LSO. A feed disabled
//     because the read position reached the LSO is enabled only by what moves it. Either way the
//     LSO's writers (the topic's producer, its senders) join. A feed below the log start refuses.
//   - A drain of p reads p and its engine and appends p's emissions to its sent topics inside a
//     transaction, above the LSO (no reader sees them before the commit). It moves an LSO only by
//     refusing after an emission (the step aborts), which drainSafe rules out when no handler is
//     custom and no frontier can reach the metadata budget (swarm.Settings.FrontierFitsBudget).
//   - A commit of p moves the LSO of the topics its open transaction wrote (markers; emissions
//     become committed). A crash, and a feed or drain that refuses, abort an open transaction:
//     also LSO moves. Without an open transaction none of them touches a topic. The receivers of
//     a topic whose LSO p may move join when they might meet a skip there before p acts: when a
//     non-committed entry (marker, aborted or open record) lies between the lowest position they
//     could read from and the LSO, or another writer might add one. Appends and markers conflict
//     with the topic's other writers (positions would be assigned in another order).
//   - A start of p reads p's committed state and group offsets, its channels' log starts
//     (truncation) and the identity report (deletion of any topic upstream of p: the engine
//     prunes dead channels); H2 reads committed records below the start position, stable.
//   - A produce appends a committed record to an external topic: it moves the LSO (receivers that
//     might meet a skip there join: only aborted or open transactions leave such entries) and the
//     high watermark, a truncation candidate.
//   - A truncation of topic t reads the positions of t's receivers and the high watermark and LSO
//     its writers move (its candidates), and raises the log start fetches and starts read: t's
//     receivers, senders and producer join, and the deletions that roll one of them back.
//   - Deleting T rolls back and restarts T's receivers (aborting their transactions), disables
//     produces to T and truncations of T, and changes the liveness that S1, S9 and STRUCT15 read
//     and the identity report every later start reads: T's producer, every process T is
//     upstream of (its records can reach that process's true past), T's truncation and those of
//     topics the rolled-back receivers touch join.
//
// Shared budgets need no rule: two crashes (truncations, deletions, produces of the last message)
// never run one after the other, so D1 holds vacuously for them, and with budget to spare they
// commute. They matter for D2 only: a feed, drain, commit or start of a process in S is a key
// (only the process itself and the deletion of a topic it receives, which is in S, can disable
// it); a produce is one only when every producer and its topic's deletion are in S, a deletion
// only when every deletion is (hasKey, budgetGroups). Checks run by a transition read only what
// it reads (the acting process, immutable message pasts and payloads, committed records below
// the LSO, channel liveness); STRUCT12's "assigned" test reads the length of a channel a sent
// header names, which is at most a position the sender has seen, assigned already. So
// reordered transitions find the same violations.
//
// Why it is sound. The explored graph is finite and acyclic: the budget bounds produces and
// faults; between them feeds advance read positions up to LSOs that only budgeted actions
// move, drains empty the engine, commits clear the dirty flag, and a start ends a down period
// that only a budgeted crash begins (a refusal is final). From a state s, every maximal path w
// contains a transition of S: otherwise the key stays enabled along w (D2) and w does not end in
// a terminal state. Let t be the first one, w = u·t·v; by D1, t·u·v is a path to the same
// terminal state with the same violations, and the search explores t from s. By induction on
// the length of the longest path from s, the reduced search reaches every terminal state the
// full search reaches without a violation on the way; applied to a path ending in a violating
// transition, the same argument shows the reduced search finds a violation whenever the full
// search does. It may report fewer (criterion, process) pairs when two violations compete on one
// path; the verdict and the set of clean terminal states are the same. Sleep sets combine with
// stubborn sets as usual: a state's sleeping transitions are removed from its set. A depth bound
// breaks the argument (a reordered path crosses the bound at other states), so the sets are off
// when MaxDepth is set, as they are for shortest counterexamples (explore.Shortest).
//
// Package world's TestExploreReductionIsSound compares reduced and unreduced explorations on
// small scopes (the same terminal states and verdicts); TestPersistentSetRuleIsChecked shows the
// comparison failing when one rule is left out.
package persistent

import (
	"math/bits"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Sets computes the persistent sets of one exploration's states: the actor numbering and the
// topology, fixed by the scenario, and the scratch of the computation. One search uses it at a
// time.
type Sets struct {
	nProcs int
	// env, trunc and del are per topic the actor producing to it, truncating it and deleting
	// it (-1 where there is none: internal topics are neither produced to nor deleted).
	env, trunc, del []int
	nActors         int
	topicOf         []int    // per actor above the processes: its topic
	receivers       [][]int  // per topic: the processes declaring it
	senders         [][]int  // per topic: the processes sending to it
	sends           [][]int  // per process: the topics it sends to
	parts           []int    // per topic: its partitions
	recvTopics      []uint64 // per process: the topics it declares
	upstream        []uint64 // per process: topics whose records can reach its true past
	drainSafe       bool     // no drain can refuse
	tweaks          Tweaks
	// st is the state Select is working on, as View.Read gives it, and kindsLeft its kinds with
	// budget left (its actions' Left).
	st        State
	kindsLeft explore.Mask
	// memo holds each actor's deps in the state Select is working on (memoKnown says which are
	// there): the closures from every enabled actor meet the same actors, and the world does not
	// change while they are built.
	memo      []uint64
	memoKnown uint64
	counts    []int // Select's scratch
	recv      []Position
}

// Tweaks change the computation for the tests that check it (package world's): LeaveOutSkipRule
// leaves out the dependency of a skip on an LSO move, to show that the soundness comparison can
// fail; NoMemo works every actor's dependencies out afresh, to compare with the memo.
type Tweaks struct {
	LeaveOutSkipRule, NoMemo bool
}

// New returns the persistent sets of scn's states under set, or nil when they do not apply:
// sessions, redeclarations (they change who receives what), or more than 64 actors.
func New(scn *spec.Scenario, set *swarm.Settings, tweaks Tweaks) *Sets {
	n := len(scn.Processes)
	if scn.Session != nil || set.Weights[spec.ActRedeclare] > 0 || n+3*len(scn.Topics) > 64 {
		return nil
	}
	ps := &Sets{nProcs: n, nActors: n, drainSafe: true, tweaks: tweaks}
	topic := make(map[string]int, len(scn.Topics))
	newActor := func(t int) int {
		ps.topicOf = append(ps.topicOf, t)
		ps.nActors++
		return ps.nActors - 1
	}
	for i, t := range scn.Topics {
		topic[t.Name] = i
		env, del := -1, -1
		if t.External {
			env, del = newActor(i), newActor(i)
		}
		ps.env, ps.del = append(ps.env, env), append(ps.del, del)
		ps.trunc = append(ps.trunc, newActor(i))
		ps.parts = append(ps.parts, t.Partitions)
	}
	ps.receivers = make([][]int, len(scn.Topics))
	ps.senders = make([][]int, len(scn.Topics))
	ps.sends = make([][]int, n)
	for i, p := range scn.Processes {
		var r uint64
		for _, name := range p.Receives {
			ps.receivers[topic[name]] = append(ps.receivers[topic[name]], i)
			r |= 1 << topic[name]
		}
		ps.recvTopics = append(ps.recvTopics, r)
		for _, name := range p.Sends {
			ps.senders[topic[name]] = append(ps.senders[topic[name]], i)
			ps.sends[i] = append(ps.sends[i], topic[name])
		}
		if p.Handler != nil {
			ps.drainSafe = false
		}
	}
	ps.upstream = upstreamTopics(scn, topic)
	if !set.FrontierFitsBudget(scn) {
		ps.drainSafe = false
	}
	return ps
}

// upstreamTopics returns, per process, the topics whose records can reach its true past: what
// it receives, and what the senders of those topics have upstream (a fixpoint).
func upstreamTopics(scn *spec.Scenario, topic map[string]int) []uint64 {
	up := make([]uint64, len(scn.Processes))
	for i, p := range scn.Processes {
		for _, name := range p.Receives {
			up[i] |= 1 << topic[name]
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range scn.Processes {
			for j, q := range scn.Processes {
				for _, name := range q.Sends {
					if up[i]&(1<<topic[name]) != 0 && up[i]|up[j] != up[i] {
						up[i] |= up[j]
						changed = true
					}
				}
			}
		}
	}
	return up
}

// left reports whether kind k may still run in the state being worked on (budget left; free
// kinds always).
func (ps *Sets) left(k spec.ActionKind) bool { return ps.kindsLeft&(1<<k) != 0 }

// localKindsMask are the kinds a persistent set may leave out; any other kind with budget left
// makes a state fully expanded. procKindsMask are the process kinds that belong to a process
// actor; keyKindsMask those no other actor's transition can disable (but a deletion of a
// received topic, which joins the set).
const (
	localKindsMask = explore.Mask(1<<spec.ActFeed | 1<<spec.ActDrain | 1<<spec.ActCommit | 1<<spec.ActStart | 1<<spec.ActCrash |
		1<<spec.ActProducePlain | 1<<spec.ActDeleteRecords | 1<<spec.ActDeleteTopic | 1<<spec.ActTxnClose)
	procKindsMask = explore.Mask(1<<spec.ActFeed | 1<<spec.ActDrain | 1<<spec.ActCommit | 1<<spec.ActStart | 1<<spec.ActCrash)
	keyKindsMask  = explore.Mask(1<<spec.ActFeed | 1<<spec.ActDrain | 1<<spec.ActCommit | 1<<spec.ActStart)
)

// Select returns the persistent set of the state v shows, whose actions are acts, as the choices
// it allows; false means the state is expanded whole.
func (ps *Sets) Select(v View, acts *explore.Actions) (Selection, bool) {
	if acts.Left&^localKindsMask != 0 { // decided by acts alone: the state need not be read
		return Selection{}, false
	}
	ps.kindsLeft = acts.Left
	v.Read(&ps.st)
	if ps.st.ExternalTxnOpen || len(ps.st.Channels) > 64 {
		return Selection{}, false
	}
	counts, ok := ps.enabledCounts(v, acts, ps.counts[:0])
	ps.counts = counts
	if !ok {
		return Selection{}, false
	}
	var enabled uint64
	total := 0
	for a, n := range counts {
		if n > 0 {
			enabled |= 1 << a
			total += n
		}
	}
	best, bestN := uint64(0), total
	keys := ps.keysOf(v, acts, enabled)
	ps.memoKnown = 0 // a new state
	defer func() { ps.memoKnown = 0 }()
	for a := range ps.nActors {
		if enabled&(1<<a) == 0 {
			continue
		}
		set := ps.closure(v, a)
		if !ps.hasKey(&keys, set) {
			set = ps.closure2(v, set|ps.budgetGroups(&keys, set))
			if !ps.hasKey(&keys, set) {
				continue
			}
		}
		n := 0
		for b := set & enabled; b != 0; b &= b - 1 {
			n += counts[bits.TrailingZeros64(b)]
		}
		if n < bestN {
			best, bestN = set, n
		}
	}
	if best == 0 {
		return Selection{}, false
	}
	return ps.selection(acts, best&enabled), true
}

// feedable reports whether process position r has something at or past its read position to
// fetch.
func (ps *Sets) feedable(r *Position) bool {
	ch := &ps.st.Channels[r.Chan]
	return ch.Alive && r.ReadPos < ch.LSO
}

// enabledCounts returns, per actor, how many enabled transitions it has (a truncation counts as
// one), and false when truncation is left but no channel can be truncated (the step truncates
// nothing: a transition of no actor). acts are v's actions; the counts are written into counts'
// storage.
func (ps *Sets) enabledCounts(v View, acts *explore.Actions, counts []int) ([]int, bool) {
	counts = append(counts[:0], make([]int, ps.nActors)...)
	kinds := acts.Left & procKindsMask
	for i := range ps.nProcs {
		m := acts.Masks[i] & kinds
		counts[i] = bits.OnesCount32(uint32(m &^ (1 << spec.ActFeed)))
		if m&(1<<spec.ActFeed) != 0 {
			ps.recv = v.Received(i, ps.recv[:0])
			for k := range ps.recv {
				if ps.feedable(&ps.recv[k]) {
					counts[i]++
				}
			}
		}
	}
	for t := range ps.env {
		live := ps.st.live(t)
		if ps.env[t] >= 0 && live && ps.left(spec.ActProducePlain) {
			counts[ps.env[t]] = ps.parts[t]
		}
		if ps.del[t] >= 0 && live && ps.left(spec.ActDeleteTopic) {
			counts[ps.del[t]] = 1
		}
	}
	if ps.left(spec.ActDeleteRecords) {
		any := false
		for c := range len(ps.st.Channels) {
			if ps.st.Channels[c].Alive && v.HasEntries(int32(c)) {
				counts[ps.trunc[ps.st.Channels[c].Topic]] = 1
				any = true
			}
		}
		if !any {
			return nil, false
		}
	}
	return counts, true
}

// closure returns the actors reachable from seed through deps (a bitmask).
func (ps *Sets) closure(v View, seed int) uint64 {
	return ps.closure2(v, 1<<seed)
}

// closure2 returns the actors reachable from the actors in set through deps (a worklist of
// actors as a bitmask: those added whose deps are not in yet).
func (ps *Sets) closure2(v View, set uint64) uint64 {
	for work := set; work != 0; {
		a := bits.TrailingZeros64(work)
		work &^= 1 << a
		d := ps.deps(v, a) &^ set
		set |= d
		work |= d
	}
	return set
}

// deps returns the actors that must join a persistent set containing actor a, from the memo
// when Select has worked them out for this state already.
func (ps *Sets) deps(v View, a int) uint64 {
	if ps.memoKnown&(1<<a) != 0 && !ps.tweaks.NoMemo {
		return ps.memo[a]
	}
	d := ps.depsOf(v, a)
	if !ps.tweaks.NoMemo {
		if len(ps.memo) < ps.nActors {
			ps.memo = make([]uint64, ps.nActors)
		}
		ps.memo[a] = d
		ps.memoKnown |= 1 << a
	}
	return d
}

// depsOf works out deps.
func (ps *Sets) depsOf(v View, a int) uint64 {
	if a < ps.nProcs {
		return ps.procDeps(v, a)
	}
	t := ps.topicOf[a-ps.nProcs]
	switch a {
	case ps.env[t]:
		return ps.envDeps(v, t)
	case ps.trunc[t]:
		return ps.truncDeps(v, t)
	}
	return ps.delDeps(v, t)
}

// stateKeys is what budgetGroups and hasKey read of one state, worked out once per state
// (Select tries a set per enabled actor): the enabled actors, the processes with a key kind
// enabled, the enabled producers and deletions, and whether deletions have budget left.
type stateKeys struct {
	enabled, keyProcs, envs, dels uint64
	delLeft                       bool
}

// keysOf returns v's stateKeys (acts are its actions, enabled its enabled actors).
func (ps *Sets) keysOf(v View, acts *explore.Actions, enabled uint64) stateKeys {
	k := stateKeys{enabled: enabled, delLeft: acts.Left&(1<<spec.ActDeleteTopic) != 0}
	kinds := acts.Left & keyKindsMask
	for i := range ps.nProcs {
		if acts.Masks[i]&kinds != 0 {
			k.keyProcs |= 1 << i
		}
	}
	for t := range ps.env {
		if ps.env[t] >= 0 {
			k.envs |= enabled & (1 << ps.env[t])
			k.dels |= enabled & (1 << ps.del[t])
		}
	}
	return k
}

// budgetGroups returns, for a set without a key transition, the actors that share a budget with
// an enabled actor in it: every enabled producer when it has one (and their deletions while the
// budget lasts), every enabled deletion when it has one.
func (ps *Sets) budgetGroups(k *stateKeys, set uint64) uint64 {
	var out uint64
	if set&k.envs != 0 {
		out |= k.envs
		if k.delLeft {
			out |= k.dels
		}
	}
	if set&k.dels != 0 {
		out |= k.dels
	}
	return out
}

// hasKey reports whether set (closed) has a key transition: an enabled transition no sequence of
// transitions of actors outside the set can disable. A feed, drain, commit or start of a process
// in the set is one (only the process itself and the deletion of a topic it receives, which is
// in the set, can disable them); a produce is one when every producer and the deletion of its
// topic are in the set (they share the budget); a deletion when every deletion is.
func (ps *Sets) hasKey(k *stateKeys, set uint64) bool {
	if set&k.keyProcs != 0 {
		return true
	}
	for t, env := range ps.env {
		if env < 0 {
			continue
		}
		if set&(1<<env)&k.enabled != 0 && k.envs&^set == 0 && (!k.delLeft || set&(1<<ps.del[t]) != 0) {
			return true
		}
		if set&(1<<ps.del[t])&k.enabled != 0 && k.dels&^set == 0 {
			return true
		}
	}
	return false
}

// selection returns the choices the enabled actors in set allow, in the state whose actions are
// acts.
func (ps *Sets) selection(acts *explore.Actions, set uint64) Selection {
	s := Selection{Procs: set & (1<<ps.nProcs - 1)}
	left := acts.Left & procKindsMask
	for i := range ps.nProcs {
		if s.Procs&(1<<i) != 0 {
			s.Kinds |= uint64(acts.Masks[i] & left)
		}
	}
	for t := range ps.env {
		if ps.env[t] >= 0 && set&(1<<ps.env[t]) != 0 {
			s.Produce |= 1 << t
			s.Kinds |= 1 << spec.ActProducePlain
		}
		if ps.del[t] >= 0 && set&(1<<ps.del[t]) != 0 {
			s.Delete |= 1 << t
			s.Kinds |= 1 << spec.ActDeleteTopic
		}
	}
	for c := range len(ps.st.Channels) {
		if set&(1<<ps.trunc[ps.st.Channels[c].Topic]) != 0 {
			s.Truncate |= 1 << c
			s.Kinds |= 1 << spec.ActDeleteRecords
		}
	}
	return s
}

package canon

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The explorer's abstractions of a process's state. First, an open step is encoded as what a
// rollback would restore (oracle.Oracle.AppendProc). Second, a rollback-free process
// (worldRollbackFree and ProcView.RollbackFree: no fault is left that could roll it back, restart it
// or read its positions as truncation candidates, and none of its feeds or drains can refuse) is
// encoded without its committed data — group offsets, committed ordering state, committed
// positions, firstFixed — and without its step's rollback target: only a restart, a rollback or
// a truncation reads them, and none can happen any more. The commit points of such a process
// then no longer multiply the states (results/explore.md has the counts). The staged criteria,
// the step's emissions and its corrupt record stay: a commit reads them. The abstraction is
// decided on the world (budgets, logs) at every hash; the encoding it chooses depends on the
// process alone and is cached like the full one (Hasher.appendProc).
//
// A process p is rollback-free (its step can never be rolled back and p never restarted) when
// worldRollbackFree && ProcView.RollbackFree: p is running, no fault that rolls back, restarts or
// truncates is left, and no feed or drain of p can refuse (no unread corrupt record, no read
// position below the log start, no custom handler, no frontier can reach the metadata budget, no
// sabotage). Then what p has committed so far (group offsets, committed ordering state, committed
// positions) and what a rollback would restore are dead: only a restart, a rollback or a
// truncation's candidates would read them.
//
// Third, a process that failed closed never acts again, and nothing reads its state any more but
// the lifetime S1 check at the end (liveness waives it; truncation and produce targeting skip
// it). It is encoded as failed plus whether that check finds an inversion in its deliveries
// (appendFailed), so the ways it got there stop multiplying the states.

// worldActorsRollbackFree is the part of worldRollbackFree that reads the world's options and
// actors: no sabotage, no sessions, no open external transaction.
func worldActorsRollbackFree(s *State) bool {
	return !s.Sabotaged && s.Sessions == nil && !s.ExtOpen
}

// settingsRollbackFree is the part of worldRollbackFree that reads only the scenario and the
// settings: no kind left that could roll back, restart or refuse, no frontier can reach the
// metadata budget.
func settingsRollbackFree(scn *spec.Scenario, set *swarm.Settings) bool {
	for k := range spec.NumActionKinds {
		if set.Weights[k] > 0 && !rollbackFreeKinds[k] { // budget left
			return false
		}
	}
	return set.FrontierFitsBudget(scn)
}

// rollbackFreeMemo memoizes settingsRollbackFree for a hasher, which asks at every hash. A world's
// settings are never changed in place (the explorer makes a new one when a budget runs
// out), so the answer is a function of the pointers; the memo holds them, so their addresses are
// not reused. last is the pair asked last: a state's successors mostly share their settings.
type rollbackFreeMemo struct {
	last rollbackFreeEntry
	seen map[rollbackFreeKey]bool
}

// rollbackFreeKey is a (scenario, settings) pair of rollbackFreeMemo.
type rollbackFreeKey struct {
	scn *spec.Scenario
	set *swarm.Settings
}

// rollbackFreeEntry is a pair and its answer.
type rollbackFreeEntry struct {
	rollbackFreeKey
	free bool
}

// worldRollbackFree is the part of being rollback-free that reads only the world, the same for
// every process of a state (the hash decides it once per state): worldActorsRollbackFree and
// settingsRollbackFree, the latter memoized.
func (h *Hasher) worldRollbackFree(s *State) bool {
	if !worldActorsRollbackFree(s) {
		return false
	}
	m, key := &h.scratch.free, rollbackFreeKey{s.Scenario, s.Settings}
	if m.last.rollbackFreeKey == key && !h.Verify {
		return m.last.free
	}
	free, ok := m.seen[key]
	if !ok || h.Verify {
		fresh := settingsRollbackFree(s.Scenario, s.Settings)
		if ok && fresh != free {
			panic("canon: the memoized rollback-free answer of a world's settings is stale: settings changed in place")
		}
		free = fresh
		if m.seen == nil {
			m.seen = make(map[rollbackFreeKey]bool)
		}
		m.seen[key] = free
	}
	m.last = rollbackFreeEntry{key, free}
	return free
}

// rollbackFreeKinds are the kinds that never roll back, restart or refuse a process by
// themselves (a plain produce adds a headerless record; a txn close ends nothing of a process).
var rollbackFreeKinds = [spec.NumActionKinds]bool{spec.ActFeed: true, spec.ActDrain: true, spec.ActCommit: true, spec.ActStart: true,
	spec.ActProducePlain: true, spec.ActTxnClose: true}

// appendFailed appends the canonical encoding of a failed process, whose state is ps.
func appendFailed(b []byte, s *State, ps *ProcState) []byte {
	b = append(b, 0xFE)
	if s.Oracle.HasInversion(ps.Oracle) {
		return append(b, 1)
	}
	return append(b, 0)
}

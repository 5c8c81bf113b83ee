package explore

import (
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// RESTART_INVISIBILITY in an exploration (package world's check_restart.go has the criterion). At a sampled
// share of the distinct states the search visits (one in 64, chosen by the state's hash:
// restartSampleShift), one process that is running with its step committed there is restarted
// cleanly on a copy of the state's world, and both the copy and another copy without the restart
// run the liveness phase and the end checks: every process must deliver the same sequence in
// both, and the run with the restart must break nothing.
//
// The restart then goes to quiescence; no fault of the scope follows it (a sweep's check and a
// scenario file's replay the rest of a script after the restart). Faults before it are covered:
// the sampled states lie at every depth, after every kind of fault the scope has.
//
// The check is a function of the state alone: which states are checked is decided by their hash,
// the process by the hash among the restartable ones, and what follows the restart is the
// liveness phase, which depends only on the state (two worlds with equal hashes behave alike from
// there on). So the violations it finds do not depend on the path that first
// reached a state, which in a parallel exploration is a matter of timing:
// a complete exploration finds the same ones with any number of workers. A violation is reported
// with the path the search was on, the restart inserted after its last action, which is how a
// counterexample file (expect restart-invisible) and a sweep's check replay it.
//
// A sampled share, not every state: each check costs two copies and two liveness phases; one in
// 64 makes checks of the order of a scope's terminal states in number and keeps their cost a small part
// of an exploration's.

// restartSampleShift selects the checked states: those whose hash's top 64-restartSampleShift
// bits are zero, one in 64.
const restartSampleShift = 58

// restartSampled reports whether the restart check runs at the state whose hash is key.
func restartSampled(key HashKey) bool { return key[0]>>restartSampleShift == 0 }

// restartOutcome is what one restart check found: whether a process could be restarted cleanly
// (Checked), which one, and the violations.
type restartOutcome struct {
	Checked    bool
	Process    string
	Violations []spec.Violation
}

// checkRestart runs the restart check at w, a state whose hash is key and whose topic IDs
// continue from ids, reached by a path whose script's last action is the after-th: one of the
// processes that can be restarted cleanly, chosen by key, is restarted on a copy of w, and that
// copy and another without the restart run to their end. Their deliveries must agree, and the
// copy with the restart must find no violation. When the copy without the restart finds one, the
// check reports nothing (the terminal states report it). The copies' storage comes from free and
// goes back to it (nil: neither).
func checkRestart(w World, key HashKey, ids *rand.PCG, after int, free *freeList) restartOutcome {
	n := 0
	for i := range w.Processes() {
		if w.Restartable(i) {
			n++
		}
	}
	if n == 0 {
		return restartOutcome{}
	}
	k := int(key[1] % uint64(n))
	p := 0
	for i := range w.Processes() {
		if w.Restartable(i) {
			if k == 0 {
				p = i
				break
			}
			k--
		}
	}
	base, c := w.EndCopy(free.Take(), ids), w.EndCopy(free.Take(), ids)
	defer free.Release(base)
	defer free.Release(c)
	c.Restart(p)
	base.Finish()
	c.Finish()
	name := c.ProcessName(p)
	out := restartOutcome{Checked: true, Process: name}
	if len(base.Violations()) > 0 {
		return out
	}
	out.Violations = oracle.CompareDeliveries(base.Deliveries(), c.Deliveries(), name, after, after)
	for _, v := range c.Violations() {
		out.Violations = append(out.Violations, oracle.RestartViolation(v, name, after, after))
	}
	return out
}

package sim

// RESTART_INVISIBILITY (SPEC §6.1, §9.25): a
// restart that keeps the received-channel set is not observable in what is delivered or its
// order. Metamorphic: the same committed script runs twice, as given and with a clean restart
// (stop, then start) of one process inserted right after one of its commits — so both runs have
// the same committed history — and every process must make the same committed deliveries in the
// same order in both runs.

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// restartPoint asks a scripted run for a clean restart of process proc after script action after
// (when the process is running then).
type restartPoint struct {
	proc  string
	after int
}

// maybeRestart performs the requested clean restart after script action i.
func (w *world) maybeRestart(i int) {
	rp := w.opts.restart
	if rp == nil || rp.after != i {
		return
	}
	p := w.procByName(rp.proc)
	if p.status != procRunning || p.stepDirty {
		return // only a restart after a commit keeps the committed history unchanged
	}
	w.step++
	w.action = spec.ActStop
	p.stop()
	w.step++
	w.action = spec.ActStart
	p.start(true)
}

// CheckRestartInvisibility runs scn (which must have a Script) with and without a clean restart of
// process proc after script action after (a no-op unless proc is running with its step
// committed then), and returns a RESTART_INVISIBILITY violation for each
// process whose committed delivery sequence differs, naming the first difference.
func CheckRestartInvisibility(scn *Scenario, set Settings, opts RunOptions, proc string, after int) []Violation {
	if len(scn.Script) == 0 {
		panic("sim: CheckRestartInvisibility needs a scripted scenario")
	}
	if !opts.reports(CritRestartInvisibility) {
		return nil
	}
	opts.Sinks = nil
	base := Run(scn, set, NewRandomChooser(set.Seed), opts)
	opts.restart = &restartPoint{proc: proc, after: after}
	restarted := Run(scn, set, NewRandomChooser(set.Seed), opts)
	var out []Violation
	for i := range base.Deliveries {
		a, b := base.Deliveries[i], restarted.Deliveries[i]
		if slices.Equal(a, b) {
			continue
		}
		j := 0
		for j < len(a) && j < len(b) && a[j] == b[j] {
			j++
		}
		out = append(out, Violation{Criterion: CritRestartInvisibility, Step: after, Process: i, Detail: fmt.Sprintf(
			"a clean restart of %s after script action %d changes delivery %d: %s without it, %s with it (%d vs %d deliveries)",
			proc, after, j, uidAt(a, j), uidAt(b, j), len(a), len(b))})
	}
	return out
}

// uidAt renders the j-th uid of seq, or "nothing".
func uidAt(seq []uint64, j int) string {
	if j < len(seq) {
		return fmt.Sprintf("m%d", seq[j])
	}
	return "nothing"
}

package oracle

// RESTART_INVISIBILITY's judgement of a run with a clean restart inserted against the run
// without it (the runs themselves are the simulator's: sim/world/check_restart.go, and package
// explore's search, sim/explore/search_restart.go).

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// CompareDeliveries returns a RESTART_INVISIBILITY violation for each process whose delivery
// sequence differs between base and restarted (proc was restarted after script action at, drawn
// at after), naming the first difference.
func CompareDeliveries(base, restarted [][]uint64, proc string, after, at int) []spec.Violation {
	var out []spec.Violation
	for i := range base {
		a, b := base[i], restarted[i]
		if slices.Equal(a, b) {
			continue
		}
		j := 0
		for j < len(a) && j < len(b) && a[j] == b[j] {
			j++
		}
		out = append(out, spec.Violation{Criterion: spec.CritRestartInvisibility, Step: at, Process: i, Detail: fmt.Sprintf(
			"a clean restart of %s after script action %d%s changes delivery %d: %s without it, %s with it (%d vs %d deliveries)",
			proc, at, drawnAt(after, at), j, uidAt(a, j), uidAt(b, j), len(a), len(b))})
	}
	return out
}

// drawnAt says where a restart that moved to a later point was drawn.
func drawnAt(after, at int) string {
	if after == at {
		return ""
	}
	return fmt.Sprintf(" (drawn at %d)", after)
}

// uidAt renders the j-th uid of seq, or "nothing".
func uidAt(seq []uint64, j int) string {
	if j < len(seq) {
		return fmt.Sprintf("m%d", seq[j])
	}
	return "nothing"
}

// RestartViolation reports violation v, found in a run with a clean restart of proc after script
// action at (drawn at after), as a RESTART_INVISIBILITY violation naming it.
func RestartViolation(v spec.Violation, proc string, after, at int) spec.Violation {
	return spec.Violation{Criterion: spec.CritRestartInvisibility, Step: v.Step, Process: v.Process, Msgs: v.Msgs,
		Detail: fmt.Sprintf("a clean restart of %s after script action %d%s makes the run break %s: %s",
			proc, at, drawnAt(after, at), v.Criterion, v.Detail)}
}

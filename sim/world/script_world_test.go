package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/world/script"
)

// TestScriptStatus: scriptWorld.Status converts a process's status by value, so the two enums
// must agree; a reordered procStatus fails here instead of letting a script start a running
// process or feed a stopped one.
func TestScriptStatus(t *testing.T) {
	for st, want := range map[procStatus]script.Status{procDown: script.Down, procRunning: script.Running} {
		if got := script.Status(st); got != want {
			t.Errorf("process status %d reads as script status %d, want %d", st, got, want)
		}
	}
	if got := script.Status(procFailed); got == script.Down || got == script.Running {
		t.Errorf("a failed process reads as script status %d, down or running", got)
	}
}

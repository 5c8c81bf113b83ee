package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// TestShapeStatus: shapeView.Status converts a process's status by value, so the two enums must
// agree; a reordered procStatus fails here instead of misleading every target rule.
func TestShapeStatus(t *testing.T) {
	for st, want := range map[procStatus]shape.Status{procRunning: shape.Running, procFailed: shape.Failed} {
		if got := shape.Status(st); got != want {
			t.Errorf("process status %d reads as shape status %d, want %d", st, got, want)
		}
	}
	if got := shape.Status(procDown); got == shape.Running || got == shape.Failed {
		t.Errorf("a down process reads as shape status %d, running or failed", got)
	}
}

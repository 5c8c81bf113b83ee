package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestEntryPointsNameThemselvesOnABadScenario checks that each of sim's entry points, handed a
// scenario that is not valid, panics with a message that starts "sim: " and carries the
// scenario's own error (naming the scenario), as the caller sees it: not a panic from a package
// the caller never called.
func TestEntryPointsNameThemselvesOnABadScenario(t *testing.T) {
	bad := &spec.Scenario{Name: "no-topics"}
	set := swarm.Settings{Seed: 1}
	calls := map[string]func(){
		"Run":                      func() { Run(bad, set, choose.NewRandom(1), RunOptions{}) },
		"RunObserved":              func() { RunObserved(bad, set, choose.NewRandom(1), RunOptions{}) },
		"CheckRestartInvisibility": func() { CheckRestartInvisibility(bad, set, RunOptions{}, "p", 0) },
		"Explore":                  func() { Explore(bad, ExploreOptions{}) },
	}
	for name, call := range calls {
		msg := panicOf(call)
		if !strings.HasPrefix(msg, "sim: ") || !strings.Contains(msg, `"no-topics"`) {
			t.Errorf("%s on an invalid scenario panicked with %q; want a message starting \"sim: \" that names the scenario", name, msg)
		}
	}
}

// panicOf runs f and returns what it panicked with, formatted, or "" if it returned.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

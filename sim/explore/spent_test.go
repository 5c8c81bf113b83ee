package explore

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestSpentChargesTheBudget charges a path against crash=2: the second crash uses the budget up,
// a free kind (feed) is never charged, and the counts are hashed. It also checks that the settings
// with a kind off are made once per (settings, kind), leave the original alone and have only that
// kind off. It fails if a budget ran out early or late, or a world's settings were changed in
// place.
func TestSpentChargesTheBudget(t *testing.T) {
	b, err := budget.Parse("crash=2")
	if err != nil {
		t.Fatal(err)
	}
	var s spent
	if s.Charge(b, spec.ActFeed) || s[spec.ActFeed] != 0 {
		t.Fatal("a free kind was charged")
	}
	if s.Charge(b, spec.ActCrash) {
		t.Fatal("the first of two crashes used the budget up")
	}
	if !s.Charge(b, spec.ActCrash) {
		t.Fatal("the second of two crashes left budget")
	}
	if enc := s.Append([]byte{7}); len(enc) != 1+int(spec.NumActionKinds) || enc[1+int(spec.ActCrash)] != 2 {
		t.Fatalf("encoding %v", enc)
	}
	var set swarm.Settings
	set.Weights[spec.ActCrash], set.Weights[spec.ActFeed] = 3, 4
	var off settingsOff
	a := off.Without(&set, spec.ActCrash)
	if a.Weights[spec.ActCrash] != 0 || a.Weights[spec.ActFeed] != 4 || set.Weights[spec.ActCrash] != 3 {
		t.Fatalf("without crashes: %v from %v", a.Weights, set.Weights)
	}
	if off.Without(&set, spec.ActCrash) != a || off.Without(&set, spec.ActFeed) == a {
		t.Fatal("settings with a kind off are not made once per settings and kind")
	}
}

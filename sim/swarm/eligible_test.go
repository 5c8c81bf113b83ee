package swarm_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestSabotageNeedsCoverTheRegistry: the eligibility rules name registered modes only, and every
// registered mode has one but TREAT_COVERED_FEED_AS_REPLAY, whose guard no host keeping the
// in-order feed reaches.
func TestSabotageNeedsCoverTheRegistry(t *testing.T) {
	for name := range swarm.SabotageRules {
		if _, ok := spec.LookupSabotage(name); !ok {
			t.Errorf("eligibility rule for %s, which is no registered sabotage mode", name)
		}
	}
	for _, m := range spec.SabotageModes() {
		if _, ok := swarm.SabotageNeeds(m.Name); ok == (m.Engine == node.SabotageTreatCoveredFeedAsReplay) {
			t.Errorf("sabotage mode %s: eligibility rule %v", m.Name, ok)
		}
	}
}

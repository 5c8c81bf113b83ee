package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestHeldOnDeadSparesSurvivor stages a held message on a topic that is then deleted: the honest
// engine refuses at the restart, the sabotaged one keeps its receiver running with the hold, and
// that survivor is no target of a crash, stop, migration or zombie (maskOf) while the hold lasts
// when Settings.SpareDeadHoldSurvivors is on (swarm runs), and still one when it is off
// (explorations enumerate every fault).
func TestHeldOnDeadSparesSurvivor(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Position: 0}}},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		{Kind: spec.ActDeleteTopic, Topic: "x"},
	}
	for _, tc := range []struct {
		name     string
		sabotage node.Sabotage
		survives bool
	}{{"honest", node.SabotageNone, false}, {"DELIVER_PAST_DEAD_HOLDS", node.SabotageDeliverPastDeadHolds, true}} {
		var w *World
		runWithWorld(twoInputs(script...), RunOptions{Sabotage: tc.sabotage}, &w)
		p := w.procs[0]
		if got := p.heldOnDead(); got != tc.survives {
			t.Fatalf("%s: heldOnDead = %v (status %v), want %v", tc.name, got, p.status, tc.survives)
		}
		const faults = explore.Mask(1<<spec.ActCrash | 1<<spec.ActStop | 1<<spec.ActMigrate | 1<<spec.ActZombie)
		if m := w.maskOf(p); tc.survives && m&faults != faults {
			t.Fatalf("%s: without SpareDeadHoldSurvivors (explorations) the survivor is no target of %b", tc.name, faults&^m)
		}
		w.set.SpareDeadHoldSurvivors = true // as in swarm runs
		if m := w.maskOf(p); tc.survives && m&faults != 0 {
			t.Fatalf("%s: the survivor is a target of %b", tc.name, m&faults)
		}
	}
}

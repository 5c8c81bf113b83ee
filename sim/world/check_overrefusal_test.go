package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestBudgetRefusalAtTheBoundaryIsInjected: with the metadata budget at exactly one cause's
// header, p1 forwards a@0 to m stamped with that one cause (it fits), and p2's delivery of m@0
// adds m's coordinate to its frontier, two causes, over the budget: the refusal is the budget's,
// not an over-refusal, though the oracle's bound had not yet taken in the refused delivery.
func TestBudgetRefusalAtTheBoundaryIsInjected(t *testing.T) {
	scn := diamondScenario()
	scn.Processes[1].Receives = []string{"mid"}
	scn.MetadataBudgetBytes = 28 // version, topic count, topic ID, partition count, partition, position
	scn.Script = []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
		act(spec.ActFeed, "p2", "mid"), act(spec.ActDrain, "p2", ""),
	}
	res := runScripted(scn, RunOptions{}, false)
	if res.Verdict != "pass" || res.Stats.Refusals["METADATA_BUDGET_EXCEEDED"] != 1 || res.Stats.Sent != 1 {
		t.Fatalf("verdict %s, refusals %v, %d sent: %v; want p1's one-cause stamp sent and p2's delivery refused",
			res.Verdict, res.Stats.Refusals, res.Stats.Sent, res.Violations)
	}
}

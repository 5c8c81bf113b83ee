package scenarios

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestDrawnMetadataBudgetRefuses: the seeds whose settings draw a tight metadata budget hand it
// to every engine and to the oracle, so some engines refuse METADATA_BUDGET_EXCEEDED and the run
// still passes (the oracle judges each refusal true); the other seeds never refuse for the
// budget (the node's default is out of a run's reach).
func TestDrawnMetadataBudgetRefuses(t *testing.T) {
	reason := string(node.ReasonMetadataBudgetExceeded)
	drawn, refusing := 0, 0
	for seed := uint64(1); seed <= 120; seed++ {
		budget := swarm.ExpandSettings(seed).MetadataBudgetBytes
		if budget == 0 {
			continue
		}
		drawn++
		out := mustRunSeed(t, Spec{}, seed)
		if out.Verdict != "pass" {
			t.Errorf("seed %d (budget %d bytes): %s %v", seed, budget, out.Verdict, out.Violations)
		}
		if out.Stats.Refusals[reason] > 0 {
			refusing++
		}
	}
	if drawn == 0 || refusing == 0 {
		t.Fatalf("seeds 1-120: %d draw a budget, %d of them refuse for it; want some of each", drawn, refusing)
	}
	for _, seed := range []uint64{1, 2, 3} {
		if swarm.ExpandSettings(seed).MetadataBudgetBytes != 0 {
			continue
		}
		if n := mustRunSeed(t, Spec{}, seed).Stats.Refusals[reason]; n > 0 {
			t.Errorf("seed %d draws no budget but refuses %s %d times", seed, reason, n)
		}
	}
}

package world

import (
	"maps"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestShardedExplorationUnion: for shard counts 1 to 5 and split depths chosen or given, the
// shards of an exploration together reach exactly the unsharded exploration's terminal states
// (as their hashers saw them) and
// find its verdict and (criterion, process) pairs; each shard explores at least the top, the sum
// of their states is at least the unsharded count, and every subtree is owned by one shard.
func TestShardedExplorationUnion(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential: the plain run covers it")
	}
	cases := []struct {
		name   string
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
		split  int
	}{
		{"chain IGNORE_CAUSES", chainScope(), "msgs=2", node.SabotageIgnoreCauses, 0},
		{"reference crash", referenceScope(), "msgs=2,crash=1", node.SabotageNone, 0},
		{"reference all faults", referenceScope(), "msgs=1,crash=1,delete=1,truncate=1", node.SabotageNone, 3},
		{"reference DELIVER_PAST_DEAD_HOLDS", referenceScope(), "msgs=2,delete=1", node.SabotageDeliverPastDeadHolds, 0},
		{"pair DROP_HELD", pairScope(), "msgs=1,crash=1", node.SabotageDropHeld, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab, Reduce: true}
			whole, wholeStates := exploreRecorded(c.scn, opts, nil)
			if len(wholeStates.terminals) != whole.TerminalStates {
				t.Fatalf("unsharded: %d terminal states hashed, %d counted", len(wholeStates.terminals), whole.TerminalStates)
			}
			for n := 1; n <= 5; n++ {
				terminals := map[explore.HashKey]bool{}
				pairs := map[string]bool{}
				verdict, states, owned := "pass", 0, 0
				for i := 1; i <= n; i++ {
					o := opts
					o.Shard, o.Shards, o.SplitDepth = i, n, c.split
					r, rStates := exploreRecorded(c.scn, o, nil)
					if !r.Complete || r.SplitDepth == 0 || (c.split > 0 && r.SplitDepth != c.split) {
						t.Fatalf("n %d shard %d: complete %v, split depth %d", n, i, r.Complete, r.SplitDepth)
					}
					maps.Copy(terminals, rStates.terminals)
					for _, v := range r.Violations {
						pairs[verdictSet(explore.Result{Violations: []explore.Violation{v}})] = true
					}
					if r.Verdict != "pass" {
						verdict = r.Verdict
					}
					states += r.States
					owned += r.OwnSubtrees
					if owned > r.Subtrees || r.States == 0 {
						t.Fatalf("n %d shard %d: %d states, %d subtrees owned of %d", n, i, r.States, owned, r.Subtrees)
					}
				}
				if len(terminals) != whole.TerminalStates {
					t.Fatalf("n %d: %d terminal states in the union, %d unsharded", n, len(terminals), whole.TerminalStates)
				}
				for k := range wholeStates.terminals {
					if !terminals[k] {
						t.Fatalf("n %d: a terminal state of the unsharded exploration is missing from the shards", n)
					}
				}
				if verdict != whole.Verdict || len(pairs) != len(whole.Violations) {
					t.Fatalf("n %d: verdict %s with %d pairs, unsharded %s with %s", n, verdict, len(pairs), whole.Verdict, verdictSet(whole))
				}
				for _, v := range whole.Violations {
					if !pairs[verdictSet(explore.Result{Violations: []explore.Violation{v}})] {
						t.Fatalf("n %d: the shards miss %s/%d", n, v.Criterion, v.Process)
					}
				}
				if states < whole.States {
					t.Fatalf("n %d: the shards explored %d states, fewer than the unsharded %d", n, states, whole.States)
				}
				t.Logf("n %d: %d states over the shards, %.2fx the unsharded %d", n, states, float64(states)/float64(whole.States), whole.States)
			}
		})
	}
}

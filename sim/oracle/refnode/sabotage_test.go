package refnode_test

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"pgregory.net/rapid"
)

// sabotageSequences is how many generated sequences a sabotage mode gets to show itself.
const sabotageSequences = 3000

// Every engine sabotage mode changes one rule; the model, which keeps the rule, must disagree
// with the sabotaged engine on some generated sequence — except a mode whose change no compared
// output can show (unobservable below), which must never disagree.
func TestModelCatchesEverySabotageMode(t *testing.T) {
	for _, mode := range node.SabotageModes() {
		t.Run(mode.String(), func(t *testing.T) {
			gen := rapid.Custom(func(rt *rapid.T) string { return (&pair{t: rt, sabotage: mode}).run() })
			why, exempt := unobservable[mode]
			for seed := range sabotageSequences {
				failure := gen.Example(seed)
				switch {
				case failure != "" && exempt:
					t.Fatalf("%v was said to be unobservable (%s), but seed %d disagreed: %s", mode, why, seed, failure)
				case failure != "":
					t.Logf("seed %d: %s", seed, failure)
					return
				}
			}
			if !exempt {
				t.Fatalf("the model agreed with the engine under %v on %d sequences", mode, sabotageSequences)
			}
		})
	}
}

// unobservable names the sabotage modes no compared output can show, and why.
var unobservable = map[node.Sabotage]string{
	// COVERED_POSITION_FED guards a state no sequence of calls reaches: within an execution
	// fedUpTo rises above the session floor only by a receipt, and any later feed at or below
	// that receipt's position is refused by the in-execution order check first.
	node.SabotageTreatCoveredFeedAsReplay: "the guarded condition is unreachable through the engine's calls",
}

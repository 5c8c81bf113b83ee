package sim

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// heldAcrossRestart holds x@0 (waiting for in@0) in p, then releases it with in@0; a clean restart
// after the commit of the hold must not change p's deliveries.
var heldAcrossRestart = []ScriptedAction{
	{Kind: spec.ActProducePlain, Topic: "x", Causes: []CauseRef{{Topic: "in", Position: 0}}},
	act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	{Kind: spec.ActProducePlain, Topic: "in"},
	act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
}

func TestCheckRestartInvisibility(t *testing.T) {
	set := Settings{Seed: 1, LivenessStepsMax: 1000}
	if vs := CheckRestartInvisibility(twoInputs(heldAcrossRestart...), set, RunOptions{}, "p", 3); len(vs) != 0 {
		t.Fatalf("honest engine: %v", vs)
	}
	vs := CheckRestartInvisibility(twoInputs(heldAcrossRestart...), set, RunOptions{Sabotage: node.SabotageDropHeld}, "p", 3)
	if len(vs) == 0 || vs[0].Criterion != CritRestartInvisibility || vs[0].Process != 0 {
		t.Fatalf("DROP_HELD: %v", vs)
	}
}

// TestRestartInvisibilityOnRecordedRuns records honest random runs as scripts and inserts a clean
// restart of each process halfway: no delivery sequence may change.
func TestRestartInvisibilityOnRecordedRuns(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 40; seed++ {
		set := ExpandSettings(seed)
		res := Run(diamondScenario(), set, NewRandomChooser(seed), RunOptions{RecordScript: true})
		if res.Verdict != "pass" || len(res.Script) == 0 {
			t.Fatalf("seed %d: %v (script %d actions)", seed, res.Violations, len(res.Script))
		}
		scn := diamondScenario()
		scn.Script = res.Script
		for _, p := range scn.Processes {
			for _, after := range commitsOf(res.Script, p.Name, 3) {
				if vs := CheckRestartInvisibility(scn, set, RunOptions{}, p.Name, after); len(vs) != 0 {
					t.Fatalf("seed %d: %v", seed, vs)
				}
				checked++
			}
		}
	}
	t.Logf("%d restart points checked", checked)
}

// commitsOf returns the indexes of up to n commits of process name in script, spread out.
func commitsOf(script []ScriptedAction, name string, n int) []int {
	var all []int
	for i, a := range script {
		if a.Kind == spec.ActCommit && a.Process == name {
			all = append(all, i)
		}
	}
	if len(all) <= n {
		return all
	}
	out := make([]int, n)
	for i := range out {
		out[i] = all[i*len(all)/n]
	}
	return out
}

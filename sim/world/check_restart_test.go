package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// heldAcrossRestart holds x@0 (waiting for in@0) in p, then releases it with in@0; a clean restart
// after the commit of the hold must not change p's deliveries.
var heldAcrossRestart = []spec.ScriptedAction{
	{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Position: 0}}},
	act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	{Kind: spec.ActProducePlain, Topic: "in"},
	act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
}

func TestCheckRestartInvisibility(t *testing.T) {
	set := swarm.Settings{Seed: 1, LivenessStepsMax: 1000}
	if vs := checkRestartInvisibility(twoInputs(heldAcrossRestart...), set, RunOptions{}, "p", 3); len(vs) != 0 {
		t.Fatalf("honest engine: %v", vs)
	}
	vs := checkRestartInvisibility(twoInputs(heldAcrossRestart...), set, RunOptions{Sabotage: node.SabotageDropHeld}, "p", 3)
	if len(vs) == 0 || vs[0].Criterion != spec.CritRestartInvisibility || vs[0].Process != 0 {
		t.Fatalf("DROP_HELD: %v", vs)
	}
}

// TestRestartInvisibilityOnRecordedRuns records honest random runs as scripts and inserts a clean
// restart of each process halfway: no delivery sequence may change.
func TestRestartInvisibilityOnRecordedRuns(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 40; seed++ {
		set := swarm.ExpandSettings(seed)
		res := runWhole(diamondScenario(), set, choose.NewRandom(seed), RunOptions{RecordScript: true})
		if res.Verdict != "pass" || len(res.Script) == 0 {
			t.Fatalf("seed %d: %v (script %d actions)", seed, res.Violations, len(res.Script))
		}
		scn := diamondScenario()
		scn.Script = res.Script
		for _, p := range scn.Processes {
			for _, after := range commitsOf(res.Script, p.Name, 3) {
				if vs := checkRestartInvisibility(scn, set, RunOptions{}, p.Name, after); len(vs) != 0 {
					t.Fatalf("seed %d: %v", seed, vs)
				}
				checked++
			}
		}
	}
	t.Logf("%d restart points checked", checked)
}

// commitsOf returns the indexes of up to n commits of process name in script, spread out.
func commitsOf(script []spec.ScriptedAction, name string, n int) []int {
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

// TestRestartCheckCatchesExecutionPartitioner shows the restart check in ordinary runs catching a
// host bug no other criterion sees: a partitioner that mixes the execution number into the
// partition of an emission (as a partitioner seeded per producer instance would). Every run is
// legal on its own — each execution routes consistently, the receivers' engines agree with their
// reference nodes — but a clean restart sends the later emissions to another partition of mid,
// so p2, which receives mid's partition 0 only, delivers another sequence.
func TestRestartCheckCatchesExecutionPartitioner(t *testing.T) {
	scn := diamondScenario()
	scn.Topics[1].Partitions = 2
	hooks := &testHooks{partition: func(p, execution int, key []byte, parts int) int {
		return int((spec.KeyHash(key) + uint32(execution)) % uint32(parts))
	}}
	caught, checked := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		set := swarm.ExpandSettings(seed)
		set.RestartCheck = swarm.RestartCheck{On: true, AtPermille: int(seed * 37 % 400)}
		honest := runWhole(scn, set, choose.NewRandom(seed), RunOptions{})
		if honest.Verdict != "pass" {
			t.Fatalf("seed %d, honest partitioner: %v", seed, honest.Violations)
		}
		checked += honest.Stats.RestartChecks
		set.RestartCheck = swarm.RestartCheck{}
		if res := runWhole(scn, set, choose.NewRandom(seed), RunOptions{hooks: hooks}); res.Verdict != "pass" {
			t.Fatalf("seed %d, without the restart check: %v (only the restart check may see this bug)", seed, res.Violations)
		}
		set.RestartCheck = swarm.RestartCheck{On: true, AtPermille: int(seed * 37 % 400)}
		res := runWhole(scn, set, choose.NewRandom(seed), RunOptions{hooks: hooks})
		for _, v := range res.Violations {
			if v.Criterion != spec.CritRestartInvisibility {
				t.Fatalf("seed %d: %v", seed, v)
			}
		}
		if res.Verdict != "pass" {
			caught++
		}
	}
	t.Logf("%d of 40 seeds caught, %d honest checks made", caught, checked)
	if checked < 30 || caught < 5 {
		t.Fatalf("%d of 40 seeds caught, %d honest checks made", caught, checked)
	}
}

// TestRestartCheckFiresInSweepAndExplore shows the execution partitioner of
// TestRestartCheckCatchesExecutionPartitioner caught as the sweep and the explorer run, with
// nothing switched on or off: a sweep over seeds whose swarm settings draw the restart check
// (RestartCheckSharePct of them) and an exhaustive exploration, each finding RESTART_INVISIBILITY
// and no other criterion.
func TestRestartCheckFiresInSweepAndExplore(t *testing.T) {
	hooks := &testHooks{partition: func(p, execution int, key []byte, parts int) int {
		return int((spec.KeyHash(key) + uint32(execution)) % uint32(parts))
	}}
	scn := diamondScenario()
	scn.Topics[1].Partitions = 2
	caught, checked := 0, 0
	for seed := uint64(1); seed <= 400; seed++ {
		set := swarm.ExpandSettings(seed)
		res := runWhole(scn, set, choose.NewRandom(seed), RunOptions{hooks: hooks})
		checked += res.Stats.RestartChecks
		for _, v := range res.Violations {
			if v.Criterion != spec.CritRestartInvisibility {
				t.Fatalf("seed %d: %v (only the restart check may see this bug)", seed, v)
			}
		}
		if res.Verdict != "pass" {
			caught++
		}
	}
	t.Logf("sweep: %d of 400 seeds caught, %d restart checks made", caught, checked)
	if caught == 0 {
		t.Errorf("sweep: no seed caught (%d restart checks made)", checked)
	}

	chain := chainScope()
	chain.Topics[1].Partitions = 2
	opts := exploreOptions{Budget: mustBudget(t, "msgs=2"), StopAtFirst: true, hooks: hooks}
	res := exploreScope(chain, opts)
	t.Log(res)
	if res.Verdict != "violation" || res.Violations[0].Criterion != spec.CritRestartInvisibility || res.Violations[0].Restart == nil {
		t.Fatalf("explore: %v", res)
	}
	opts.NoRestartCheck = true
	if res := exploreScope(chain, opts); res.Verdict != "pass" {
		t.Fatalf("explore without the restart check: %v (only the restart check may see this bug)", res.Violations)
	}
}

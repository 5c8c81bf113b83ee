package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// chainScope is a small test scope: p1 forwards ext to mid, p2 receives both.
func chainScope() *Scenario {
	return &Scenario{Name: "chain",
		Topics: []TopicSpec{{Name: "ext", Partitions: 1, External: true}, {Name: "mid", Partitions: 1}},
		Processes: []ProcessSpec{
			{Name: "p1", Receives: []string{"ext"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"ext", "mid"}},
		}}
}

// pairScope has two processes with disjoint topics, so the reduction has work to do.
func pairScope() *Scenario {
	return &Scenario{Name: "pair",
		Topics: []TopicSpec{{Name: "a", Partitions: 1, External: true}, {Name: "b", Partitions: 1, External: true}},
		Processes: []ProcessSpec{
			{Name: "p1", Receives: []string{"a"}},
			{Name: "p2", Receives: []string{"b"}},
		}}
}

func mustBudget(t testing.TB, s string) Budget {
	b, err := ParseBudget(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExploreChainHonestIsClean(t *testing.T) {
	res := Explore(chainScope(), ExploreOptions{Budget: mustBudget(t, "msgs=2,crash=1")})
	t.Log(res)
	if res.Verdict != "pass" || !res.Complete || res.States < 10 || res.TerminalStates < 1 {
		t.Fatalf("honest chain: %v", res)
	}
}

func TestExploreCatchesIgnoreCauses(t *testing.T) {
	res := Explore(chainScope(), ExploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses})
	t.Log(res)
	if res.Verdict != "violation" {
		t.Fatalf("IGNORE_CAUSES not caught: %v", res)
	}
	v := res.Violations[0]
	rr, _, err := ReplayPath(chainScope(), ExploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses}, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Verdict != "violation" {
		t.Fatalf("the reported path does not reproduce: %v", rr.Violations)
	}
}

// TestCloneMatchesStraightRun walks random paths through clones of clones and checks that each
// state hashes like the same path replayed in place on one world, and ends with the same verdict.
func TestCloneMatchesStraightRun(t *testing.T) {
	opts := ExploreOptions{Budget: mustBudget(t, "msgs=3,crash=1,truncate=1,delete=1,stop=1")}
	scn := chainScope()
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		x := newExplorer(scn, opts)
		s := x.root()
		var path [][]int
		for len(path) < 25 && x.anyEnabled(s) {
			succ := x.successors(s, 0, 0)
			tr := succ[rng.IntN(len(succ))]
			path = append(path, tr.choices)
			s = tr.next
		}
		got := x.hash(s)
		want := exploreHashAfter(scn, opts, path, x.hasher)
		if got != want {
			t.Fatalf("seed %d: the state after %d steps through clones hashes differently from a straight run (path %v)", seed, len(path), path)
		}
	}
}

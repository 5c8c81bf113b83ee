package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
	res := Explore(chainScope(), ExploreOptions{Budget: mustBudget(t, "msgs=1,crash=1")})
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

// TestExploreReductionIsSound compares reduced and unreduced exploration on small scopes: the
// same states, the same set of terminal states and the same verdicts (criteria and processes),
// with fewer transitions where processes are independent.
func TestExploreReductionIsSound(t *testing.T) {
	cases := []struct {
		name   string
		scn    *Scenario
		budget string
		sab    node.Sabotage
		fewer  bool
	}{
		{"pair honest", pairScope(), "msgs=2,crash=1", node.SabotageNone, true},
		{"pair DROP_HELD", pairScope(), "msgs=1,crash=1", node.SabotageDropHeld, true},
		{"chain honest", chainScope(), "msgs=1,crash=1", node.SabotageNone, false},
		{"chain IGNORE_CAUSES", chainScope(), "msgs=2", node.SabotageIgnoreCauses, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := ExploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab}
			plain := exploreWithHasher(c.scn, opts)
			opts.Reduce = true
			reduced := exploreWithHasher(c.scn, opts)
			t.Logf("unreduced %v; reduced %v", plain, reduced)
			if plain.States != reduced.States || plain.TerminalStates != reduced.TerminalStates {
				t.Fatalf("states %d vs %d, terminal states %d vs %d", plain.States, reduced.States, plain.TerminalStates, reduced.TerminalStates)
			}
			for k := range plain.terminals {
				if _, ok := reduced.terminals[k]; !ok {
					t.Fatal("a terminal state of the unreduced exploration is missing from the reduced one")
				}
			}
			if a, b := verdictSet(plain), verdictSet(reduced); a != b {
				t.Fatalf("verdicts differ: %q vs %q", a, b)
			}
			if c.fewer && reduced.Transitions >= plain.Transitions {
				t.Fatalf("the reduction explored %d transitions, no fewer than %d", reduced.Transitions, plain.Transitions)
			}
		})
	}
}

// exploreWithHasher explores with one fixed pair of hash seeds, so two explorations' state
// hashes can be compared.
func exploreWithHasher(scn *Scenario, opts ExploreOptions) ExploreResult {
	x := newExplorer(scn, opts)
	x.hasher = fixedHasher(&x.set)
	return x.run()
}

var sharedSeeds *stateHasher

func fixedHasher(set *Settings) *stateHasher {
	h := newStateHasher(set)
	if sharedSeeds == nil {
		sharedSeeds = h
	}
	h.seeds = sharedSeeds.seeds
	return h
}

// verdictSet renders the (criterion, process) pairs found, sorted.
func verdictSet(r ExploreResult) string {
	var keys []string
	for _, v := range r.Violations {
		keys = append(keys, fmt.Sprintf("%s/%d", v.Criterion, v.Process))
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}

// TestShortestViolationIsShortest checks that the shortest path is no longer than the one the
// depth-first exploration found, reproduces, and that no shorter path exists (the bound below
// it is clean for that criterion).
func TestShortestViolationIsShortest(t *testing.T) {
	opts := ExploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses}
	res := Explore(chainScope(), opts)
	if len(res.Violations) == 0 {
		t.Fatal("IGNORE_CAUSES not caught")
	}
	v := res.Violations[0]
	s := ShortestViolation(chainScope(), opts, v)
	t.Logf("depth-first path %d steps, shortest %d steps", v.Depth, s.Depth)
	if s.Depth > v.Depth || s.Criterion != v.Criterion {
		t.Fatalf("shortest %+v is not shorter than %+v", s, v)
	}
	rr, _, err := ReplayPath(chainScope(), opts, s.Path)
	if err != nil || rr.Verdict != "violation" {
		t.Fatalf("the shortest path does not reproduce: %v %v", err, rr)
	}
	o := opts
	o.MaxDepth = s.Depth - 1
	if s.Depth > 1 {
		for _, f := range Explore(chainScope(), o).Violations {
			if f.Criterion == s.Criterion && f.Process == s.Process {
				t.Fatalf("a path of %d steps exists below the shortest %d", f.Depth, s.Depth)
			}
		}
	}
}

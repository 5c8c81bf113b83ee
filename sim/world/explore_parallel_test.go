package world

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestParallelExploreIsDeterministic: with 1, 2 and 8 workers a complete exploration of the
// world reaches the same distinct states and the same terminal states (the same hashes, as the
// workers' hashers saw them) and the same verdict and violations, in the same order, as the
// sequential one; and the canonical shortest counterexample of each violation is the same. Run
// under -race it also checks the workers share nothing unguarded. The scopes include honest and
// sabotaged ones with every fault kind the reference scope has, so the sleep-set correction and
// shared work are exercised (package explore's tests show that work is shared).
func TestParallelExploreIsDeterministic(t *testing.T) {
	cases := []struct {
		name   string
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
		big    bool // skipped under the race detector
	}{
		{"chain IGNORE_CAUSES", chainScope(), "msgs=2", node.SabotageIgnoreCauses, false},
		{"reference crash", referenceScope(), "msgs=2,crash=1", node.SabotageNone, false},
		{"reference all faults", referenceScope(), "msgs=1,crash=1,delete=1,truncate=1", node.SabotageNone, true},
		{"reference DELIVER_PAST_DEAD_HOLDS", referenceScope(), "msgs=2,delete=1", node.SabotageDeliverPastDeadHolds, false},
		{"pair DROP_HELD", pairScope(), "msgs=1,crash=1", node.SabotageDropHeld, false},
	}
	for _, c := range cases {
		if c.big && raceEnabled {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			opts := exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab, Reduce: true}
			want, wantStates := exploreRecorded(c.scn, opts, nil)
			if !want.Complete || want.States == 0 || len(wantStates.states) != want.States {
				t.Fatalf("sequential: %v, complete %v", want, want.Complete)
			}
			wantShortest := shortestOf(c.scn, opts, want)
			for _, n := range []int{1, 2, 8} {
				o := opts
				o.Workers = n
				got, gotStates := exploreRecorded(c.scn, o, nil)
				if !got.Complete || got.States != want.States || got.TerminalStates != want.TerminalStates ||
					got.Verdict != want.Verdict {
					t.Fatalf("%d workers: %v, complete %v; sequential %v", n, got, got.Complete, want)
				}
				if !maps.Equal(gotStates.states, wantStates.states) || !maps.Equal(gotStates.terminals, wantStates.terminals) {
					t.Fatalf("%d workers: %d states, %d terminal, other than the sequential exploration's %d and %d", n,
						len(gotStates.states), len(gotStates.terminals), len(wantStates.states), len(wantStates.terminals))
				}
				if g, w := violationOrder(got), violationOrder(sortedViolations(want)); g != w {
					t.Fatalf("%d workers: violations %s, sequential %s", n, g, w)
				}
				if g := shortestOf(c.scn, opts, got); g != wantShortest {
					t.Fatalf("%d workers: shortest counterexamples %s, sequential %s", n, g, wantShortest)
				}
				t.Logf("%d workers: %d states, %d transitions, max depth %d (sequential %d, %d)", n, got.States,
					got.Transitions, got.MaxDepth, want.Transitions, want.MaxDepth)
			}
		})
	}
}

// TestParallelRestartCheckIsDeterministic: with 1, 2 and 8 workers a complete exploration makes
// the same number of RESTART_INVISIBILITY checks and finds the same violations.
// The bug is a partitioner that mixes the execution number into an emission's partition (a test
// hook), which only the restart check catches; the budgets have no crash, so no execution but
// the restart check's own changes the number, and the scopes' states do not depend on timing.
// When the check re-ran the path that first reached a terminal state, which of a scope's checks
// failed depended on the workers and their timing (chain: 1 to 3 of its 4 terminal states).
func TestParallelRestartCheckIsDeterministic(t *testing.T) {
	hooks := &testHooks{partition: func(p, execution int, key []byte, parts int) int {
		return int((spec.KeyHash(key) + uint32(execution)) % uint32(parts))
	}}
	for _, c := range []struct {
		name   string
		scn    *spec.Scenario
		budget string
	}{{"chain", chainScope(), "msgs=2"}, {"diamond", diamondScenario(), "msgs=2"}} {
		t.Run(c.name, func(t *testing.T) {
			c.scn.Topics[1].Partitions = 2
			opts := exploreOptions{Budget: mustBudget(t, c.budget), Reduce: true, hooks: hooks}
			want := exploreScope(c.scn, opts)
			if !want.Complete || want.RestartChecks == 0 || !slices.ContainsFunc(want.Violations, func(v explore.Violation) bool {
				return v.Criterion == spec.CritRestartInvisibility
			}) {
				t.Fatalf("sequential: %v, complete %v, %d restart checks (want some, and a violation)", want, want.Complete, want.RestartChecks)
			}
			reps := 3
			if raceEnabled {
				reps = 2
			}
			for _, n := range []int{1, 2, 8} {
				for range reps {
					o := opts
					o.Workers = n
					got := exploreScope(c.scn, o)
					if !got.Complete || got.States != want.States || got.RestartChecks != want.RestartChecks ||
						got.Verdict != want.Verdict || violationOrder(got) != violationOrder(sortedViolations(want)) {
						t.Fatalf("%d workers: %v, %d restart checks, violations %s; sequential %v, %d, %s",
							n, got, got.RestartChecks, violationOrder(got), want, want.RestartChecks, violationOrder(want))
					}
				}
			}
			t.Logf("%v; %d restart checks", want, want.RestartChecks)
			// The reported path with the restart after its last action reproduces the violation
			// as a script (what a counterexample file runs), and the path alone does not.
			v := want.Violations[0]
			res, script, err := replayPath(c.scn, opts, v.Path)
			if err != nil || res.Verdict != "pass" || v.Restart == nil || v.Restart.After != len(script)-1 {
				t.Fatalf("replaying %v: %v, %v (restart %+v, %d actions)", v, res, err, v.Restart, len(script))
			}
			scripted := *c.scn
			scripted.Script = script
			if vs := checkRestartInvisibility(&scripted, exploreSettings(opts), RunOptions{hooks: hooks},
				v.Restart.Process, v.Restart.After); len(vs) == 0 {
				t.Fatalf("the script of %v with the restart of %s after action %d breaks nothing", v.Path, v.Restart.Process, v.Restart.After)
			}
		})
	}
}

// TestParallelExploreStops: a capped parallel exploration is incomplete and stops near the cap;
// an interrupted one is incomplete and says so; StopAtFirst stops at a violation.
func TestParallelExploreStops(t *testing.T) {
	opts := exploreOptions{Budget: mustBudget(t, "msgs=1,crash=1,delete=1,truncate=1"), Reduce: true, Workers: 4, MaxStates: 500}
	r := exploreScope(referenceScope(), opts)
	if r.Complete || r.States < 500 || r.States > 500+opts.Workers {
		t.Fatalf("capped at 500: %v, complete %v", r, r.Complete)
	}
	opts.MaxStates = 0
	stop := make(chan struct{})
	close(stop)
	opts.Interrupt = stop
	r = exploreScope(referenceScope(), opts)
	if r.Complete || !r.Interrupted {
		t.Fatalf("interrupted: %v, complete %v, interrupted %v", r, r.Complete, r.Interrupted)
	}
	opts.Workers = 1
	r = exploreScope(referenceScope(), opts)
	if r.Complete || !r.Interrupted || r.States > 1 {
		t.Fatalf("interrupted, one worker: %v, complete %v, interrupted %v", r, r.Complete, r.Interrupted)
	}
	r = exploreScope(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses, Reduce: true, Workers: 4, StopAtFirst: true})
	if r.Verdict != "violation" || len(r.Violations) == 0 {
		t.Fatalf("StopAtFirst: %v", r)
	}
}

// sortedViolations returns r with its violations sorted by criterion and process.
func sortedViolations(r explore.Result) explore.Result {
	r.Violations = slices.Clone(r.Violations)
	slices.SortFunc(r.Violations, func(a, b explore.Violation) int {
		if a.Criterion != b.Criterion {
			return map[bool]int{true: -1, false: 1}[a.Criterion < b.Criterion]
		}
		return a.Process - b.Process
	})
	return r
}

// violationOrder renders r's violations' criteria and processes in order.
func violationOrder(r explore.Result) string {
	s := ""
	for _, v := range r.Violations {
		s += fmt.Sprintf("%s/%d ", v.Criterion, v.Process)
	}
	return s
}

// shortestOf renders the canonical shortest counterexample of each of r's violations, sorted.
func shortestOf(scn *spec.Scenario, opts exploreOptions, r explore.Result) string {
	var out []string
	for _, v := range r.Violations {
		s := shortestViolation(scn, opts, v)
		out = append(out, fmt.Sprintf("%s/%d %d %v", s.Criterion, s.Process, s.Depth, s.Path))
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

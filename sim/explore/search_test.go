package explore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestSearchCountsStates explores counter worlds with and without sleep sets: every combination
// of the counters is a state, the full one the only terminal state, and the sleep sets explore
// fewer transitions (feeds of two processes commute) but every state. It fails if the search
// lost or merged states, or if the sleep sets pruned a state.
func TestSearchCountsStates(t *testing.T) {
	const n, limit = 3, 2
	plain := Explore(counterConfig(n, limit, -1, false, false))
	reduced := Explore(counterConfig(n, limit, -1, false, true))
	for _, r := range []Result{plain, reduced} {
		if r.States != 27 || r.TerminalStates != 1 || !r.Complete || r.Verdict != "pass" || r.MaxDepth != n*limit {
			t.Fatalf("%v, complete %v", r, r.Complete)
		}
	}
	if reduced.Transitions >= plain.Transitions {
		t.Fatalf("sleep sets explored %d transitions, no fewer than %d", reduced.Transitions, plain.Transitions)
	}
}

// TestSearchBounds: a state cap, a depth bound and an interrupt each leave the exploration
// incomplete, and the depth bound counts the states it cut.
func TestSearchBounds(t *testing.T) {
	cfg := counterConfig(3, 2, -1, false, true)
	cfg.MaxStates = 5
	if r := Explore(cfg); r.Complete || r.States != 5 {
		t.Fatalf("capped at 5: %v, complete %v", r, r.Complete)
	}
	cfg.MaxStates, cfg.MaxDepth = 0, 2
	if r := Explore(cfg); r.Complete || r.DepthCut == 0 || r.MaxDepth != 2 || r.States != 10 {
		t.Fatalf("depth 2: %v, complete %v, cut %d", r, r.Complete, r.DepthCut)
	}
	stop := make(chan struct{})
	close(stop)
	cfg.MaxDepth, cfg.Interrupt = 0, stop
	if r := Explore(cfg); r.Complete || !r.Interrupted || r.States != 1 {
		t.Fatalf("interrupted: %v, complete %v", r, r.Complete)
	}
}

// TestSearchReportsViolations: the violation a transition finds is reported once, with a path
// that replays to it; Shortest finds the shortest path to it (process 0 fed to its limit first,
// nothing else); StopAtFirst stops at it.
func TestSearchReportsViolations(t *testing.T) {
	const limit = 2
	cfg := counterConfig(3, limit, -1, true, true)
	r := Explore(cfg)
	if r.Verdict != "violation" || len(r.Violations) != 1 || r.Violations[0].Terminal {
		t.Fatalf("%v: %+v", r, r.Violations)
	}
	v := r.Violations[0]
	if v.Depth != len(v.Path) || v.Depth < limit {
		t.Fatalf("violation at depth %d, path %v", v.Depth, v.Path)
	}
	res, script, err := ReplayPath(cfg, v.Path)
	if err != nil || res.Verdict != "violation" || len(script) != v.Depth {
		t.Fatalf("replaying %v: %v %v, %d actions", v.Path, res, err, len(script))
	}
	s := Shortest(cfg, v)
	if s.Depth != limit || s.Criterion != v.Criterion || s.Process != v.Process {
		t.Fatalf("shortest %+v", s)
	}
	if _, _, err := ReplayPath(cfg, [][]int{{0, 7}}); err == nil {
		t.Fatal("an answer that fits no option replays")
	}
	cfg.StopAtFirst = true
	if r := Explore(cfg); len(r.Violations) != 1 || r.States >= 27 {
		t.Fatalf("StopAtFirst: %v", r)
	}
}

// TestSearchRestartCheck: the restart check runs at the sampled states reached after some step
// (every state of a counter world but the root is sampled, and the checked process is one that
// fed something), and fails where it restarted the buggy process: at some states, not all, each
// failure reported once with the restart it inserted.
func TestSearchRestartCheck(t *testing.T) {
	r := Explore(counterConfig(3, 2, 1, false, false))
	if r.RestartChecks != 26 || r.restartFailures == 0 || r.restartFailures == r.RestartChecks {
		t.Fatalf("%v: %d of %d restart checks failed", r, r.restartFailures, r.RestartChecks)
	}
	if len(r.Violations) != 1 || r.Violations[0].Criterion != spec.CritRestartInvisibility || r.Violations[0].Restart == nil ||
		r.Violations[0].Restart.Process != "p1" || r.Violations[0].Restart.After != r.Violations[0].Depth-1 {
		t.Fatalf("%+v", r.Violations)
	}
	cfg := counterConfig(3, 2, 1, false, false)
	cfg.RestartCheck = false
	if r := Explore(cfg); r.RestartChecks != 0 || r.Verdict != "pass" {
		t.Fatalf("without the restart check: %v", r)
	}
}

// TestParallelSearchIsDeterministic: with 2, 4 and 8 workers an exploration of a counter world
// reaches the same states, terminal states and violations as one worker, makes the same restart
// checks with the same outcomes, and the workers give each other work. Run under -race it also
// checks the workers share nothing unguarded.
func TestParallelSearchIsDeterministic(t *testing.T) {
	cfg := counterConfig(5, 4, 2, true, true)
	want := Explore(cfg)
	// 5^5 states, less those past the violation: process 0 full, process 1 empty (5^3).
	if !want.Complete || want.States != 3000 || want.restartFailures == 0 {
		t.Fatalf("one worker: %v, complete %v, %d restart failures", want, want.Complete, want.restartFailures)
	}
	shared := 0
	for _, n := range []int{2, 4, 8} {
		for range 3 {
			c := cfg
			c.Workers = n
			got := Explore(c)
			if !got.Complete || got.Workers != n || got.States != want.States || got.TerminalStates != want.TerminalStates ||
				got.RestartChecks != want.RestartChecks || got.restartFailures != want.restartFailures ||
				violations(got) != violations(sorted(want)) {
				t.Fatalf("%d workers: %v, %d of %d restart checks failed, %s; one worker %v, %d of %d, %s", n, got,
					got.restartFailures, got.RestartChecks, violations(got), want, want.restartFailures, want.RestartChecks, violations(want))
			}
			for k := range want.terminals {
				if _, ok := got.terminals[k]; !ok {
					t.Fatalf("%d workers: a terminal state of one worker's exploration is missing", n)
				}
			}
			shared += got.shared
		}
	}
	if shared == 0 {
		t.Fatal("no worker gave another work: the shared work was not exercised")
	}
}

// TestShardedSearchUnion: the shards of an exploration of a counter world together reach its
// terminal states and violations, each subtree owned by one shard.
func TestShardedSearchUnion(t *testing.T) {
	cfg := counterConfig(4, 2, -1, true, true)
	whole := Explore(cfg)
	for n := 1; n <= 4; n++ {
		terminals, found, owned := map[HashKey]bool{}, map[string]bool{}, 0
		for i := 1; i <= n; i++ {
			c := cfg
			c.Shard, c.Shards = i, n
			r := Explore(c)
			if !r.Complete || r.SplitDepth == 0 {
				t.Fatalf("shard %d/%d: %v, complete %v, split depth %d", i, n, r, r.Complete, r.SplitDepth)
			}
			for k := range r.terminals {
				terminals[k] = true
			}
			for _, v := range r.Violations {
				found[fmt.Sprintf("%s/%d", v.Criterion, v.Process)] = true
			}
			owned += r.OwnSubtrees
			if owned > r.Subtrees {
				t.Fatalf("shard %d/%d: %d subtrees owned of %d", i, n, owned, r.Subtrees)
			}
		}
		if len(terminals) != whole.TerminalStates || len(found) != len(whole.Violations) {
			t.Fatalf("%d shards: %d terminal states, %d violations; unsharded %v", n, len(terminals), len(found), whole)
		}
	}
}

// sorted returns r with its violations sorted by criterion and process.
func sorted(r Result) Result {
	r.Violations = slices.Clone(r.Violations)
	slices.SortFunc(r.Violations, func(a, b Violation) int {
		if a.Criterion != b.Criterion {
			if a.Criterion < b.Criterion {
				return -1
			}
			return 1
		}
		return a.Process - b.Process
	})
	return r
}

// violations renders r's violations' criteria and processes in order.
func violations(r Result) string {
	s := ""
	for _, v := range r.Violations {
		s += fmt.Sprintf("%s/%d ", v.Criterion, v.Process)
	}
	return s
}

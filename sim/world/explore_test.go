package world

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world/streams"
)

// chainScope is a small test scope: p1 forwards ext to mid, p2 receives both.
func chainScope() *spec.Scenario {
	return &spec.Scenario{Name: "chain",
		Topics: []spec.TopicSpec{{Name: "ext", Partitions: 1, External: true}, {Name: "mid", Partitions: 1}},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"ext"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"ext", "mid"}},
		}}
}

// pairScope has two processes with disjoint topics, so the reduction has work to do.
func pairScope() *spec.Scenario {
	return &spec.Scenario{Name: "pair",
		Topics: []spec.TopicSpec{{Name: "a", Partitions: 1, External: true}, {Name: "b", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"a"}},
			{Name: "p2", Receives: []string{"b"}},
		}}
}

func mustBudget(t testing.TB, s string) budget.Budget {
	b, err := budget.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestExploreChainHonestIsClean(t *testing.T) {
	res := exploreScope(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=1,crash=1")})
	t.Log(res)
	if res.Verdict != "pass" || !res.Complete || res.States < 10 || res.TerminalStates < 1 {
		t.Fatalf("honest chain: %v", res)
	}
}

func TestExploreCatchesIgnoreCauses(t *testing.T) {
	res := exploreScope(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses})
	t.Log(res)
	if res.Verdict != "violation" {
		t.Fatalf("IGNORE_CAUSES not caught: %v", res)
	}
	v := res.Violations[0]
	rr, _, err := replayPath(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses}, v.Path)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Verdict != "violation" {
		t.Fatalf("the reported path does not reproduce: %v", rr.Violations)
	}
}

// TestCloneMatchesStraightRun takes random paths through clones of clones (each step on a clone
// of the state before it, as the explorer takes steps) and checks that each ends in a state that
// hashes like the same path replayed in place on one world (as ReplayPath replays a path), and
// with the same verdict.
func TestCloneMatchesStraightRun(t *testing.T) {
	cfg := exploreConfig(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=3,crash=1,truncate=1,delete=1,stop=1")})
	h := cfg.Hasher()
	acts := new(explore.Actions)
	for seed := uint64(1); seed <= 30; seed++ {
		rng := choose.NewRandom(seed)
		w, ids := cfg.Root()
		var path [][]int
		for w.Actions(acts); len(path) < 25 && acts.Enabled; w.Actions(acts) {
			w = w.Clone(nil, ids, nil)
			ids = w.IDs()
			rec := choose.NewRecorder(rng)
			w.Replay(rec)
			path = append(path, slices.Clone(rec.Choices()))
		}
		straight, _ := cfg.Root()
		for i, answers := range path {
			rc := choose.NewReplay(answers)
			straight.Replay(rc)
			if err := rc.Err(); err != nil || rc.Remaining() > 0 {
				t.Fatalf("seed %d: step %d's answers %v do not fit the straight run (%v)", seed, i+1, answers, err)
			}
		}
		if len(path) < 5 {
			t.Fatalf("seed %d: a path of %d steps", seed, len(path))
		}
		if h.Hash(w, nil) != h.Hash(straight, nil) {
			t.Fatalf("seed %d: the state after %d steps through clones hashes differently from a straight run (path %v)", seed, len(path), path)
		}
		w.Finish()
		straight.Finish()
		if got, want := w.Result().Verdict, straight.Result().Verdict; got != want {
			t.Fatalf("seed %d: through clones the run ends %s, straight %s", seed, got, want)
		}
	}
}

// referenceScope is the topology of the catalogue's reference scope: p1 forwards a to mid, p2
// receives b and mid.
func referenceScope() *spec.Scenario {
	return &spec.Scenario{Name: "reference",
		Topics: []spec.TopicSpec{{Name: "a", Partitions: 1, External: true}, {Name: "b", Partitions: 1, External: true},
			{Name: "mid", Partitions: 1}},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"a"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"b", "mid"}},
		}}
}

// TestExploreReductionIsSound compares reduced (persistent and sleep sets) and unreduced
// exploration on small scopes, every concrete state told apart: the same set of terminal states, the same verdict, no
// (criterion, process) pair the unreduced exploration does not find, and no more states — fewer
// where the reduction has work to do.
func TestExploreReductionIsSound(t *testing.T) {
	cases := []struct {
		name   string
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
		fewer  bool
		// raceBudget, when set, replaces budget under the race detector (raceEnabled), which
		// makes the larger scopes take minutes.
		raceBudget string
	}{
		{"pair honest", pairScope(), "msgs=2,crash=1", node.SabotageNone, true, ""},
		{"pair DROP_HELD", pairScope(), "msgs=1,crash=1", node.SabotageDropHeld, true, ""},
		{"chain honest", chainScope(), "msgs=1,crash=1", node.SabotageNone, true, ""},
		{"chain IGNORE_CAUSES", chainScope(), "msgs=2", node.SabotageIgnoreCauses, false, ""},
		{"reference crash", referenceScope(), "msgs=2,crash=1", node.SabotageNone, true, "msgs=1,crash=1"},
		{"reference delete", referenceScope(), "msgs=2,delete=1", node.SabotageNone, true, "msgs=1,delete=1"},
		{"reference truncate", referenceScope(), "msgs=2,truncate=1", node.SabotageNone, true, "msgs=1,truncate=1"},
		{"reference crash and truncate", referenceScope(), "msgs=2,crash=1,truncate=1", node.SabotageNone, true, "msgs=1,crash=1,truncate=1"},
		{"reference all faults", referenceScope(), "msgs=1,crash=1,delete=1,truncate=1", node.SabotageNone, true, "msgs=1,crash=1,delete=1"},
		{"reference DELIVER_PAST_DEAD_HOLDS", referenceScope(), "msgs=2,delete=1", node.SabotageDeliverPastDeadHolds, false, ""},
		{"reference SKIP_RECEIPT_MERGE", referenceScope(), "msgs=2,crash=1", node.SabotageSkipReceiptMerge, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			budget := c.budget
			if raceEnabled && c.raceBudget != "" {
				budget = c.raceBudget
			}
			opts := exploreOptions{Budget: mustBudget(t, budget), Sabotage: c.sab}
			plain := exploreExact(c.scn, opts, false)
			opts.Reduce = true
			reduced := exploreExact(c.scn, opts, false)
			t.Logf("unreduced %v; reduced %v", plain, reduced)
			if msg := compareReduction(plain, reduced); msg != "" {
				t.Fatal(msg)
			}
			if c.fewer && reduced.States >= plain.States {
				t.Fatalf("the reduction explored %d states, no fewer than %d", reduced.States, plain.States)
			}
		})
	}
}

// compareReduction returns what a reduced exploration got wrong against the unreduced one (""
// for nothing): a terminal state missing or extra, another verdict, a (criterion, process) pair
// the unreduced exploration did not find, more states.
func compareReduction(plain, reduced exactResult) string {
	for k := range plain.terminals {
		if !reduced.terminals[k] {
			return fmt.Sprintf("a terminal state of the unreduced exploration is missing from the reduced one (%d vs %d terminal states)",
				plain.TerminalStates, reduced.TerminalStates)
		}
	}
	if plain.TerminalStates != reduced.TerminalStates {
		return fmt.Sprintf("terminal states %d vs %d", plain.TerminalStates, reduced.TerminalStates)
	}
	if plain.Verdict != reduced.Verdict {
		return fmt.Sprintf("verdict %s vs %s", plain.Verdict, reduced.Verdict)
	}
	all := verdictSet(plain.Result)
	for _, v := range strings.Fields(verdictSet(reduced.Result)) {
		if !slices.Contains(strings.Fields(all), v) {
			return fmt.Sprintf("the reduced exploration found %s, the unreduced one only %q", v, all)
		}
	}
	if reduced.States > plain.States {
		return fmt.Sprintf("the reduction explored %d states, more than %d", reduced.States, plain.States)
	}
	return ""
}

// TestPersistentSetRuleIsChecked shows that TestExploreReductionIsSound can fail: with the rule
// that a receiver which may skip to the LSO depends on the process moving it left out, the
// reduced exploration misses terminal states of the reference topology.
func TestPersistentSetRuleIsChecked(t *testing.T) {
	opts := exploreOptions{Budget: mustBudget(t, "msgs=2,crash=1")}
	plain := exploreExact(referenceScope(), opts, false)
	opts.Reduce = true
	broken := exploreExact(referenceScope(), opts, true)
	t.Logf("unreduced %v; reduced without the rule %v", plain, broken)
	if msg := compareReduction(plain, broken); msg == "" {
		t.Fatal("leaving a dependency out went unnoticed")
	}
}

// exactResult is an exploration's result with the hashes of its terminal states.
type exactResult struct {
	explore.Result
	terminals map[explore.HashKey]bool
}

// exploreExact explores with every concrete state told apart
// (no hash abstraction: the reduction is compared alone), unsound leaving out a persistent-set
// rule.
func exploreExact(scn *spec.Scenario, opts exploreOptions, unsound bool) exactResult {
	opts.persistentTweaks.LeaveOutSkipRule = unsound
	res, r := exploreRecorded(scn, opts, func(cfg *explore.Config, _ *stateRecorder) {
		hasher := cfg.Hasher
		cfg.Hasher = func() explore.Hasher {
			h := hasher().(stateHasher)
			h.Exact = true
			return h
		}
	})
	return exactResult{res, r.terminals}
}

// verdictSet renders the (criterion, process) pairs found, sorted.
func verdictSet(r explore.Result) string {
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
	opts := exploreOptions{Budget: mustBudget(t, "msgs=2"), Sabotage: node.SabotageIgnoreCauses}
	res := exploreScope(chainScope(), opts)
	if len(res.Violations) == 0 {
		t.Fatal("IGNORE_CAUSES not caught")
	}
	v := res.Violations[0]
	s := shortestViolation(chainScope(), opts, v)
	t.Logf("depth-first path %d steps, shortest %d steps", v.Depth, s.Depth)
	if s.Depth > v.Depth || s.Criterion != v.Criterion {
		t.Fatalf("shortest %+v is not shorter than %+v", s, v)
	}
	rr, _, err := replayPath(chainScope(), opts, s.Path)
	if err != nil || rr.Verdict != "violation" {
		t.Fatalf("the shortest path does not reproduce: %v %v", err, rr)
	}
	o := opts
	o.MaxDepth = s.Depth - 1
	if s.Depth > 1 {
		for _, f := range exploreScope(chainScope(), o).Violations {
			if f.Criterion == s.Criterion && f.Process == s.Process {
				t.Fatalf("a path of %d steps exists below the shortest %d", f.Depth, s.Depth)
			}
		}
	}
}

// TestStepHashIsCanonical checks the canonical encoding of an open step (package canon, abstract.go):
// two feeds of one step in either order hash alike, a third feed does not, and a drain that
// delivered nothing hashes like no drain.
func TestStepHashIsCanonical(t *testing.T) {
	scn := &spec.Scenario{Name: "two-inputs",
		Topics:    []spec.TopicSpec{{Name: "x", Partitions: 1, External: true}, {Name: "y", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"x", "y"}}}}
	set := swarm.Settings{Seed: 1}
	h := newStateHasher(&set)
	after := func(feeds []int, drain bool) explore.HashKey {
		w := newWorld(scn, &set, choose.NewReplay(nil), &RunOptions{explored: true})
		p := w.procs[0]
		p.start(true)
		for _, pc := range p.recv {
			w.producePlain(pc.ch)
			w.producePlain(pc.ch)
		}
		p.commit()
		for _, i := range feeds {
			p.feed(p.recv[i])
		}
		if drain {
			p.drain()
			p.drainable = true // only the open step differs from not draining
		}
		return h.Hash(w, nil)
	}
	xy, yx := after([]int{0, 1}, false), after([]int{1, 0}, false)
	if xy != yx {
		t.Fatal("feeding x then y hashes differently from y then x")
	}
	if after([]int{0, 1, 0}, false) == xy {
		t.Fatal("a third feed does not change the hash")
	}
	if after(nil, true) != after(nil, false) {
		t.Fatal("a drain that delivered nothing hashes differently from no drain")
	}
}

// TestRollbackFreeHashDropsCommittedData checks the rollback-free abstraction
// (package canon, abstract.go): once no fault is left, a process that committed after its first feed
// hashes like one that did not; while a crash is left (a rollback would tell them apart) it
// does not.
func TestRollbackFreeHashDropsCommittedData(t *testing.T) {
	scn := &spec.Scenario{Name: "one-input",
		Topics:    []spec.TopicSpec{{Name: "x", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"x"}}}}
	hashAfter := func(crashLeft, commitBetween bool) explore.HashKey {
		set := swarm.Settings{Seed: 1}
		if crashLeft {
			set.Weights[spec.ActCrash] = 1
		}
		w := newWorld(scn, &set, choose.NewReplay(nil), &RunOptions{explored: true})
		p := w.procs[0]
		p.start(true)
		w.producePlain(p.recv[0].ch)
		w.producePlain(p.recv[0].ch)
		p.feed(p.recv[0])
		if commitBetween {
			p.commit()
		}
		p.feed(p.recv[0])
		return newStateHasher(&set).Hash(w, nil)
	}
	if hashAfter(false, true) != hashAfter(false, false) {
		t.Fatal("with no fault left, the commit history still tells two states apart")
	}
	if hashAfter(true, true) == hashAfter(true, false) {
		t.Fatal("with a crash left, two states a rollback tells apart hash alike")
	}
}

// TestFailedProcessHash checks the failed-process abstraction (package canon, abstract.go): two
// processes that failed closed after different histories hash alike unless one of them
// delivered out of causal order.
func TestFailedProcessHash(t *testing.T) {
	set := swarm.Settings{Seed: 1}
	h := newStateHasher(&set)
	hashFailed := func(feeds int, inverted bool) explore.HashKey {
		scn := diamond()
		w := newWorld(scn, &set, choose.NewReplay(nil), &RunOptions{explored: true})
		for _, p := range w.procs {
			p.start(true)
		}
		p, in, _ := stageDiamondDeliveries(w, inverted)
		if feeds > 0 { // a later execution fed the delivered cause again: a history that differs
			w.or.OnReceived(w.at(), &p.o, []int32{in}, []node.Cause{{Channel: w.chans[in].nc}}, nil, nil)
			p.o.BeginStep()
			w.or.OnFeed(w.at(), &p.o, in, w.or.RecordAt(in, 0), 0, p.storage())
			w.or.OnCommit(w.at(), &p.o)
		}
		p.status = procFailed
		return h.Hash(w, nil)
	}
	if hashFailed(0, false) != hashFailed(3, false) {
		t.Fatal("two failed processes that differ only in their history hash differently")
	}
	if hashFailed(0, false) == hashFailed(0, true) {
		t.Fatal("a failed process whose deliveries break S1 hashes like one whose do not")
	}
}

// TestAbstractionsAreSound checks the hash abstractions of package canon (abstract.go) end to end: an
// exploration that tells every concrete state apart (canon.Hasher.Exact) reaches, once its
// terminal states are hashed with the abstractions, the same terminal states as the abstracted
// and reduced exploration, with the same verdict, and finds every (criterion, process) pair
// the abstracted one finds.
func TestAbstractionsAreSound(t *testing.T) {
	cases := []struct {
		name   string
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
		// raceBudget, when set, replaces budget under the race detector (raceEnabled).
		raceBudget string
	}{
		{"reference crash", referenceScope(), "msgs=2,crash=1", node.SabotageNone, "msgs=1,crash=1"},
		{"reference msgs=3", referenceScope(), "msgs=3", node.SabotageNone, "msgs=2"},
		{"reference faults", referenceScope(), "msgs=1,crash=1,delete=1,truncate=1", node.SabotageNone, "msgs=1,crash=1,delete=1"},
		{"chain IGNORE_CAUSES", chainScope(), "msgs=2", node.SabotageIgnoreCauses, ""},
		{"pair DROP_HELD", pairScope(), "msgs=1,crash=1", node.SabotageDropHeld, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			budget := c.budget
			if raceEnabled && c.raceBudget != "" {
				budget = c.raceBudget
			}
			opts := exploreOptions{Budget: mustBudget(t, budget), Sabotage: c.sab}
			exact, exactStates := exploreRecorded(c.scn, opts, func(cfg *explore.Config, r *stateRecorder) {
				hasher := cfg.Hasher
				r.also = hasher // the abstractions, on the exact exploration's terminal states
				cfg.Hasher = func() explore.Hasher {
					h := hasher().(stateHasher)
					h.Exact = true
					return h
				}
			})
			opts.Reduce = true
			abstract, abstractStates := exploreRecorded(c.scn, opts, nil)
			t.Logf("exact %v; abstracted and reduced %v", exact, abstract)
			if len(exactStates.termsAlso) != len(abstractStates.terminals) {
				t.Fatalf("%d abstracted terminal states against %d", len(exactStates.termsAlso), len(abstractStates.terminals))
			}
			for k := range exactStates.termsAlso {
				if !abstractStates.terminals[k] {
					t.Fatal("a terminal state of the exact exploration is missing from the abstracted one")
				}
			}
			if exact.Verdict != abstract.Verdict {
				t.Fatalf("verdict %s vs %s", exact.Verdict, abstract.Verdict)
			}
			for _, v := range strings.Fields(verdictSet(abstract)) {
				if !strings.Contains(verdictSet(exact), v) {
					t.Fatalf("the abstracted exploration found %s, the exact one only %q", v, verdictSet(exact))
				}
			}
		})
	}
}

// TestConstSourceDrawsZero: every bounded draw of an exploration's constant stream is 0, never
// rejected (an all-zero word made IntN(3) loop forever), and the payload bytes are zero.
func TestConstSourceDrawsZero(t *testing.T) {
	s, _ := streams.Explore(1)
	r := s.Payloads
	for n := 1; n <= 5000; n++ {
		if got := r.IntN(n); got != 0 {
			t.Fatalf("IntN(%d) = %d, want 0", n, got)
		}
		if got := r.Int64N(int64(n)); got != 0 {
			t.Fatalf("Int64N(%d) = %d, want 0", n, got)
		}
	}
	var w World
	w.streams.Payloads = r
	key, value := w.payload()
	if !bytes.Equal(key, []byte{0}) || !bytes.Equal(value, make([]byte, 5)) {
		t.Fatalf("payload %x %x, want zero bytes", key, value)
	}
}

// TestExploreAbortBudgetEnds: a scope with an aborted transaction in its budget is explored to
// the end (it used to hang drawing the transaction's record count).
func TestExploreAbortBudgetEnds(t *testing.T) {
	b, err := budget.Parse("msgs=1,abort=1")
	if err != nil {
		t.Fatal(err)
	}
	res := exploreScope(twoInputs(), exploreOptions{Budget: b})
	if !res.Complete || res.States == 0 || res.Verdict != "pass" {
		t.Fatalf("exploration %+v", res)
	}
}

// TestExploreRetentionDropsRecords: a retention budget gives the external topics a size policy,
// so a sweep drops records a receiver has not read: the host that resets such a fetch to the log
// start is caught (S8), and the honest host is clean. Without the policy the sweep would drop
// nothing and the sabotaged host would pass.
func TestExploreRetentionDropsRecords(t *testing.T) {
	one := &spec.Scenario{Name: "one", Topics: []spec.TopicSpec{{Name: "a", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"a"}}}}
	opts := exploreOptions{Budget: mustBudget(t, "msgs=2,retention=1"), Reduce: true}
	if res := exploreScope(one, opts); res.Verdict != "pass" || !res.Complete {
		t.Fatalf("honest: %v", res)
	}
	opts.HostSabotage = spec.HostResetPastLogStart
	res := exploreScope(one, opts)
	if res.Verdict != "violation" || res.Violations[0].Criterion != spec.CritS8 {
		t.Fatalf("RESET_PAST_LOG_START under a retention sweep: %v %+v", res, res.Violations)
	}
	if set := exploreSettings(opts); set.RetentionRecords == 0 {
		t.Fatalf("settings %+v: no retention policy for a reproduction", set)
	}
}

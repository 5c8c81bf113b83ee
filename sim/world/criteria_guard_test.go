package world

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The oracle guards itself: every criterion it reports has a case here that it catches, and the
// case shows what depends on the criterion. Run with the criterion disabled (RunOptions.Disabled),
// the case must be caught by exactly the criteria its row lists under also, and by nothing once
// those are disabled too; run with only those disabled, the criterion catches it alone. A row
// whose also is empty is a case only its criterion catches. A row that lists others is a
// criterion nothing depends on in that case: the overlap is written down, so it cannot grow or
// shrink unseen, and a criterion that no case needs shows as such in the table, not hidden.
//
// What the table shows today: REFERENCE compares every delivery, stamp, refusal and committed
// state of an engine with SPEC's reference node fed the same records, so every engine fault is
// REFERENCE's as well as its property criterion's; the property criteria judge what the reference
// node cannot (the host, the substrate's bytes, the session tiers, a restart's effect on a whole
// run) and stand guard should the engine and the reference node share a mistake. STRUCT12 and STRUCT14 are narrower names for
// cases OVEREXPRESSION covers. The lifetime half of S1 judges a history no run makes
// (TestCheckS1LifetimeInversion).

// guardCase is one criterion's row.
type guardCase struct {
	crit spec.Criterion
	// also lists the other criteria that catch the same case, sorted.
	also []spec.Criterion
	// why says what the case is and, when also is not empty, why the others catch it too.
	why string
	// run runs the case with the given criteria disabled and returns every violation reported.
	run func(disabled []spec.Criterion) []spec.Violation
}

// scripted returns a run of scn under opts (liveness as asked) with the disabled criteria.
func scripted(scn func() *spec.Scenario, opts RunOptions, liveness bool) func([]spec.Criterion) []spec.Violation {
	return func(disabled []spec.Criterion) []spec.Violation {
		o := opts
		o.Disabled = disabled
		return runScripted(scn(), o, liveness).Violations
	}
}

// hooked is scripted for a case whose hooks need the world (hooks built by mk from it).
func hooked(scn func() *spec.Scenario, mk func(w **World) *testHooks) func([]spec.Criterion) []spec.Violation {
	return func(disabled []spec.Criterion) []spec.Violation {
		var w *World
		return runWithWorld(scn(), RunOptions{hooks: mk(&w), Disabled: disabled}, &w).Violations
	}
}

// stampAdding is a host that adds to every stamp it writes a pair the engine did not put there:
// on the emission's own channel at its own position plus off when own, else on partition 0 of
// the scenario's topic-th topic at position off (a codec or host that corrupts the engine's stamp, keeping what it said).
func stampAdding(topic int, own bool, off int64) func(w **World) *testHooks {
	return func(w **World) *testHooks {
		return &testHooks{stamp: func(p int, c int32, next int64, value []byte) []byte {
			causes, err := node.Decode(value)
			if err != nil {
				panic(err)
			}
			if own {
				causes.Merge((*w).chans[c].nc, node.Offset(next+off))
			} else {
				causes.Merge((*w).chans[(*w).chanOf((*w).topics[topic].inc, 0)].nc, node.Offset(off))
			}
			return node.Encode(causes)
		}}
	}
}

// guardCases is the table: one row per criterion the oracle reports.
func guardCases() []guardCase {
	ref := []spec.Criterion{spec.CritReference}
	s := func(script ...spec.ScriptedAction) func() *spec.Scenario {
		return func() *spec.Scenario { return twoInputs(script...) }
	}
	d := func(script ...spec.ScriptedAction) func() *spec.Scenario {
		return func() *spec.Scenario { return diamond(script...) }
	}
	sh := func(script ...spec.ScriptedAction) func() *spec.Scenario {
		return func() *spec.Scenario { return shop(script...) }
	}
	produce3Truncate := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
		{Kind: spec.ActDeleteRecords, Topic: "in", Offset: 2},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	rewindRefeed := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActStop, "p1", ""),
		{Kind: spec.ActRewind, Process: "p1", Topic: "in", Offset: 0},
		act(spec.ActStart, "p1", ""), act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
	}
	undecodable := []spec.ScriptedAction{
		{Kind: spec.ActProduceCorrupt, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	deadHold := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Position: 0}}},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		{Kind: spec.ActDeleteTopic, Topic: "x"},
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	recreate := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		{Kind: spec.ActRecreateTopic, Topic: "in"},
		{Kind: spec.ActProducePlain, Topic: "x"},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	fourIn := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
	}
	oneFed := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p", "in")}
	p1Forwards := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", "")}
	orders := append([]spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "orders"}}, settleStep("view", "orders")...)
	salvage := append(slices.Clone(orders), sRead(0, "fast"), sDamage(0, spec.TokenTruncated), sWrite(0, "payments"))
	monotonic := append(slices.Clone(orders), sRead(0, "fast"), sRead(0, "slow"))

	return []guardCase{
		{crit: spec.CritS1, also: ref, why: "IGNORE_CAUSES delivers the effect before its cause (diamond)",
			run: scripted(d(diamondInversion...), RunOptions{Sabotage: node.SabotageIgnoreCauses}, true)},
		{crit: spec.CritS2, also: ref, why: "REDELIVER_REFEEDS delivers a rewound record again",
			run: scripted(d(rewindRefeed...), RunOptions{Sabotage: node.SabotageRedeliverRefeeds}, false)},
		{crit: spec.CritS3, also: ref, why: "NO_FIFO delivers a record from behind a blocked head",
			run: scripted(s(blockedHead...), RunOptions{Sabotage: node.SabotageNoFIFO}, true)},
		{crit: spec.CritS7, also: ref, why: "UNDECODABLE_AS_ABSENT delivers past an undecodable header",
			run: scripted(s(undecodable...), RunOptions{Sabotage: node.SabotageUndecodableAsAbsent}, false)},
		{crit: spec.CritS8, why: "RESET_PAST_LOG_START: the host resets past truncated records it never fed",
			run: scripted(s(produce3Truncate...), RunOptions{HostSabotage: spec.HostResetPastLogStart}, false)},
		{crit: spec.CritS9, also: ref, why: "DELIVER_PAST_DEAD_HOLDS delivers past a hold on a deleted channel",
			run: scripted(s(deadHold...), RunOptions{Sabotage: node.SabotageDeliverPastDeadHolds}, false)},
		{crit: spec.CritRecreation, also: ref, why: "IGNORE_RECREATION commits while receiving a recreated topic",
			run: scripted(s(recreate...), RunOptions{Sabotage: node.SabotageIgnoreRecreation}, false)},
		{crit: spec.CritStruct12, also: []spec.Criterion{spec.CritOverexpression}, why: "a host adds to a stamp a position " +
			"beyond the end of its channel; a position never assigned was never delivered or seen either, so " +
			"OVEREXPRESSION catches whatever STRUCT12 does, STRUCT12 naming the cause more narrowly",
			run: hooked(d(p1Forwards...), stampAdding(0, false, 100))},
		{crit: spec.CritStruct14, also: []spec.Criterion{spec.CritOverexpression}, why: "a host adds to a stamp the emission's " +
			"own position on its own channel; a position not yet written was never delivered or seen either, so " +
			"OVEREXPRESSION catches whatever STRUCT14 does, STRUCT14 naming the cause more narrowly",
			run: hooked(d(p1Forwards...), stampAdding(0, true, 0))},
		{crit: spec.CritStruct15, also: ref, why: "SKIP_RECEIPT_MERGE forgets a held message's causes in a stamp",
			run: scripted(heldCauseThenSend, RunOptions{Sabotage: node.SabotageSkipReceiptMerge}, true)},
		{crit: spec.CritOverexpression, also: ref, why: "OVEREXPRESS stamps received, undelivered positions",
			run: scripted(heldCauseThenSend, RunOptions{Sabotage: node.SabotageOverexpress}, true)},
		{crit: spec.CritOverRefusal, also: ref, why: "a codec misreads a headerless record as an unknown version and " +
			"the engine refuses it; the reference node, fed the record's own bytes, holds it, so every engine " +
			"refusal without an injected cause is also a disagreement with it (a host that feeds a record twice " +
			"makes the engine refuse too, and is caught by HOST as well)",
			run: scripted(s(oneFed...), RunOptions{hooks: &testHooks{feedHeaders: func(p int, c int32, hs []node.Header) []node.Header {
				return []node.Header{{Key: node.HeaderKey, Value: []byte{0x63, 0x01, 0x02, 0x03}}}
			}}}, false)},
		{crit: spec.CritHost, why: "a host reports a start position past what it fed (H2)",
			run: func(disabled []spec.Criterion) []spec.Violation {
				starts := 0
				hooks := &testHooks{startPosition: func(p int, c int32, s int64) int64 {
					if starts++; starts == 1 {
						return s
					}
					return s + 2
				}}
				script := []spec.ScriptedAction{
					{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
					act(spec.ActFeed, "p", "in"), act(spec.ActCommit, "p", ""), act(spec.ActStop, "p", ""), act(spec.ActStart, "p", ""),
				}
				return runScripted(twoInputs(script...), RunOptions{hooks: hooks, Disabled: disabled}, false).Violations
			}},
		{crit: spec.CritLiveness, also: ref, why: "SILENT_DROP drops a fed record",
			run: scripted(s(fourIn...), RunOptions{Sabotage: node.SabotageSilentDrop}, true)},
		{crit: spec.CritRestartInvisibility, why: "a host partitioner that mixes the execution number into an " +
			"emission's partition: every run is legal on its own, but a clean restart sends later emissions " +
			"to another partition (seeds 1-40 of the diamond with two partitions of mid, the check on each)",
			run: func(disabled []spec.Criterion) []spec.Violation {
				scn := diamondScenario()
				scn.Topics[1].Partitions = 2
				hooks := &testHooks{partition: func(p, execution int, key []byte, parts int) int {
					return int((spec.KeyHash(key) + uint32(execution)) % uint32(parts))
				}}
				var vs []spec.Violation
				for seed := uint64(1); seed <= 40; seed++ {
					set := swarm.ExpandSettings(seed)
					set.RestartCheck = swarm.RestartCheck{On: true, AtPermille: int(seed * 37 % 400)}
					vs = append(vs, runWhole(scn, set, choose.NewRandom(seed), RunOptions{hooks: hooks, Disabled: disabled}).Violations...)
				}
				return vs
			}},
		{crit: spec.CritReference, why: "SKIP_RECEIPT_MERGE delivers in another order than SPEC's",
			run: scripted(d(diamondInversion...), RunOptions{Sabotage: node.SabotageSkipReceiptMerge}, true)},
		{crit: spec.CritSessionRYW, also: []spec.Criterion{spec.CritSessionCoverage}, why: "PROJECTOR_RECORDS_FRONTIER serves a read that misses the session's write",
			run: scripted(sh(frontierAhead()...), RunOptions{HostSabotage: spec.SessionProjectorRecordsFrontier}, false)},
		{crit: spec.CritSessionMR, also: []spec.Criterion{spec.CritSessionCoverage}, why: "READ_SKIPS_UNKNOWN_CHANNELS serves a second read that misses the first's row",
			run: scripted(sh(monotonic...), RunOptions{HostSabotage: spec.SessionReadSkipsUnknownChannels}, false)},
		{crit: spec.CritSessionWFR, also: []spec.Criterion{spec.CritSessionDamaged}, why: "TOKEN_SALVAGE writes with a partial frontier",
			run: scripted(sh(salvage...), RunOptions{HostSabotage: spec.SessionTokenSalvage}, false)},
		{crit: spec.CritSessionCoverage, also: []spec.Criterion{spec.CritSessionRYW}, why: "READ_SKIPS_UNKNOWN_CHANNELS serves a read its projection cannot cover",
			run: scripted(sh(sWrite(0, "audit"), sRead(0, "fast")), RunOptions{HostSabotage: spec.SessionReadSkipsUnknownChannels}, false)},
		{crit: spec.CritSessionToken, why: "WRITE_MERGES_LOG_END merges the log end into the token",
			run: scripted(sh(sWrite(0, "orders")), RunOptions{HostSabotage: spec.SessionWriteMergesLogEnd}, false)},
		{crit: spec.CritSessionDamaged, also: []spec.Criterion{spec.CritSessionWFR}, why: "TOKEN_SALVAGE accepts a damaged token",
			run: scripted(sh(salvage...), RunOptions{HostSabotage: spec.SessionTokenSalvage}, false)},
	}
}

// criteriaOf returns the distinct criteria of vs, sorted.
func criteriaOf(vs []spec.Violation) []spec.Criterion {
	var out []spec.Criterion
	for _, v := range vs {
		if !slices.Contains(out, v.Criterion) {
			out = append(out, v.Criterion)
		}
	}
	slices.Sort(out)
	return out
}

func TestEveryCriterionGuardsItself(t *testing.T) {
	probe := os.Getenv("GUARD_PROBE") != ""
	for _, g := range guardCases() {
		t.Run(string(g.crit), func(t *testing.T) {
			all := criteriaOf(g.run(nil))
			without := criteriaOf(g.run([]spec.Criterion{g.crit}))
			alone := criteriaOf(g.run(g.also))
			none := g.run(append(slices.Clone(g.also), g.crit))
			if probe {
				t.Logf("all %v, without it %v, others off %v, both off %v", all, without, alone, criteriaOf(none))
			}
			if !slices.Contains(all, g.crit) {
				t.Errorf("%s does not catch its case (%s): %v", g.crit, g.why, all)
			}
			if !slices.Equal(alone, []spec.Criterion{g.crit}) {
				t.Errorf("with %v disabled the case (%s) is caught by %v, want %s alone", g.also, g.why, alone, g.crit)
			}
			if !slices.Equal(without, g.also) {
				t.Errorf("with %s disabled the case (%s) is caught by %v, but the row lists %v: "+
					"list exactly what else catches it", g.crit, g.why, without, g.also)
			}
			if len(none) != 0 {
				t.Errorf("with %s and %v disabled the case (%s) is still caught: %v", g.crit, g.also, g.why, none)
			}
		})
	}
}

// TestEveryCriterionHasAGuard: the table has exactly one row per criterion the oracle reports,
// read from the source (every constant of type Criterion declared in a non-test file of package
// sim or one below it), so a new criterion without a row fails here.
func TestEveryCriterionHasAGuard(t *testing.T) {
	declared := declaredCriteria(t)
	if len(declared) < 20 {
		t.Fatalf("found %d criteria in the source (%v): the scan is broken", len(declared), declared)
	}
	rows := map[spec.Criterion]int{}
	for _, g := range guardCases() {
		rows[g.crit]++
	}
	for _, c := range declared {
		if rows[c] != 1 {
			t.Errorf("criterion %s has %d rows in guardCases, want 1", c, rows[c])
		}
	}
	for c := range rows {
		if !slices.Contains(declared, c) {
			t.Errorf("guardCases has a row for %s, which the source does not declare", c)
		}
	}
}

// declaredCriteria parses every non-test Go file under sim/ (the parent directory) for constants
// of type Criterion (or pkg.Criterion) and returns their values, sorted.
func declaredCriteria(t *testing.T) []spec.Criterion {
	t.Helper()
	var out []spec.Criterion
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				if !isCriterionType(vs.Type) {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: a Criterion constant that is not a string literal", path)
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, spec.Criterion(s))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func isCriterionType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "Criterion"
	case *ast.SelectorExpr:
		return e.Sel.Name == "Criterion"
	}
	return false
}

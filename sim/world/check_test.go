package world

import (
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Each criterion fires on a constructed violation: a scripted scenario run with an engine
// sabotage mode, the host sabotage, or a test hook that tampers with the world, next to the same
// script run honestly, which must be clean.

// act builds a scripted action.
func act(k spec.ActionKind, process, topic string) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: k, Process: process, Topic: topic}
}

// diamond is diamondScenario (in → p1 → mid, p2 receiving in and mid) running script.
func diamond(script ...spec.ScriptedAction) *spec.Scenario {
	scn := diamondScenario()
	scn.Script = script
	return scn
}

// twoInputs is one process p receiving the external topics in and x, sending to out.
func twoInputs(script ...spec.ScriptedAction) *spec.Scenario {
	return &spec.Scenario{
		Name: "two-inputs",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "x", Partitions: 1, External: true},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"in", "x"}, Sends: []string{"out"}}},
		Script:    script,
	}
}

// runScripted runs a scripted scenario with the given options; liveness switches the final phase on.
func runScripted(scn *spec.Scenario, opts RunOptions, liveness bool) *spec.Result {
	set := swarm.Settings{Seed: 1}
	if liveness {
		set.LivenessStepsMax = 1000
	}
	return runWhole(scn, set, choose.NewRandom(1), opts)
}

// expect asserts that the sabotaged result has a violation of crit and the honest one none.
func expect(t *testing.T, crit spec.Criterion, honest, broken *spec.Result) {
	t.Helper()
	if honest.Verdict != "pass" {
		t.Fatalf("honest run: %v", honest.Violations)
	}
	for _, v := range broken.Violations {
		if v.Criterion == crit {
			if v.Process < 0 && crit != spec.CritRestartInvisibility || v.Detail == "" {
				t.Fatalf("%s violation without process or detail: %v", crit, v)
			}
			return
		}
	}
	t.Fatalf("no %s violation; got %v", crit, broken.Violations)
}

// diamondInversion feeds p2 the effect (from mid) before its cause (from in).
var diamondInversion = []spec.ScriptedAction{
	{Kind: spec.ActProducePlain, Topic: "in"},
	act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
	act(spec.ActFeed, "p2", "mid"), act(spec.ActDrain, "p2", ""), act(spec.ActCommit, "p2", ""),
	act(spec.ActFeed, "p2", "in"), act(spec.ActDrain, "p2", ""), act(spec.ActCommit, "p2", ""),
}

func TestCheckS1CausalOrder(t *testing.T) {
	honest := runScripted(diamond(diamondInversion...), RunOptions{}, true)
	broken := runScripted(diamond(diamondInversion...), RunOptions{Sabotage: node.SabotageIgnoreCauses}, true)
	expect(t, spec.CritS1, honest, broken)
	// The honest p2 delivers the cause (in) first, then the effect (mid).
	if got := honest.Deliveries[1]; len(got) != 2 || got[0] != 1 {
		t.Fatalf("honest p2 delivered %v, want the cause m1 first", got)
	}
}

func TestCheckS1LifetimeInversion(t *testing.T) {
	// A delivery order the delivery-time check never saw (no execution received the cause's
	// channel): the effect m2 (true past {in@0}) is delivered before its cause m1.
	w := newWorld(diamond(), &swarm.Settings{Seed: 1}, choose.NewRandom(1), &RunOptions{})
	stageDiamondDeliveries(w, true)
	w.or.OnRunEnd(w.at(), false)
	if len(w.or.Violations()) != 1 || w.or.Violations()[0].Criterion != spec.CritS1 || !strings.Contains(w.or.Violations()[0].Detail, "m1") {
		t.Fatalf("lifetime check: %v", w.or.Violations())
	}
	w = newWorld(diamond(), &swarm.Settings{Seed: 1}, choose.NewRandom(1), &RunOptions{})
	stageDiamondDeliveries(w, false)
	w.or.OnRunEnd(w.at(), false)
	if len(w.or.Violations()) != 0 {
		t.Fatalf("lifetime check on the right order: %v", w.or.Violations())
	}
}

func TestCheckS2NoDuplicates(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActStop, "p1", ""),
		{Kind: spec.ActRewind, Process: "p1", Topic: "in", Offset: 0},
		act(spec.ActStart, "p1", ""), act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
	}
	honest := runScripted(diamond(script...), RunOptions{}, false)
	broken := runScripted(diamond(script...), RunOptions{Sabotage: node.SabotageRedeliverRefeeds}, false)
	expect(t, spec.CritS2, honest, broken)
}

// blockedHead puts on x a head that waits for in@0 and, behind it, a headerless record.
var blockedHead = []spec.ScriptedAction{
	{Kind: spec.ActProducePlain, Topic: "in"},
	{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Position: 0}}},
	{Kind: spec.ActProducePlain, Topic: "x"},
	act(spec.ActFeed, "p", "x"), act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
}

func TestCheckS3FIFO(t *testing.T) {
	honest := runScripted(twoInputs(blockedHead...), RunOptions{}, true)
	broken := runScripted(twoInputs(blockedHead...), RunOptions{Sabotage: node.SabotageNoFIFO}, true)
	expect(t, spec.CritS3, honest, broken)
}

func TestCheckS7Undecodable(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProduceCorrupt, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{Sabotage: node.SabotageUndecodableAsAbsent}, false)
	expect(t, spec.CritS7, honest, broken)
	if honest.Stats.Refusals["UNDECODABLE_METADATA"] != 1 {
		t.Fatalf("honest refusals %v", honest.Stats.Refusals)
	}
}

func TestCheckS7JudgesWithTheReferenceDecoder(t *testing.T) {
	// A forged header in a non-minimal spelling (topic count 81 00): the reference decoder
	// refuses it, so an engine that salvages it and commits breaks S7.
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in", Header: []byte{0x01, 0x81, 0x00}},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{Sabotage: node.SabotageUndecodableAsAbsent}, false)
	expect(t, spec.CritS7, honest, broken)
}

func TestCheckOverRefusalOfADecodableHeader(t *testing.T) {
	// An engine that reads a headerless record as carrying 63 01 02 03 refuses what the
	// reference decoder reads as no causes at all.
	misread := &testHooks{feedHeaders: func(p int, c int32, hs []node.Header) []node.Header {
		return []node.Header{{Key: node.HeaderKey, Value: []byte{0x63, 0x01, 0x02, 0x03}}}
	}}
	script := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p", "in")}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{hooks: misread}, false)
	expect(t, spec.CritOverRefusal, honest, broken)
}

func TestCheckS8BelowLogStart(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
		{Kind: spec.ActDeleteRecords, Topic: "in", Offset: 2},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	// The honest host started before the truncation, so its fetch below the log start refuses.
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{HostSabotage: spec.HostResetPastLogStart}, false)
	expect(t, spec.CritS8, honest, broken)
}

func TestCheckS9DeadHolds(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Position: 0}}},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		{Kind: spec.ActDeleteTopic, Topic: "x"},
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{Sabotage: node.SabotageDeliverPastDeadHolds}, false)
	expect(t, spec.CritS9, honest, broken)
}

func TestCheckRecreation(t *testing.T) {
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		{Kind: spec.ActRecreateTopic, Topic: "in"},
		{Kind: spec.ActProducePlain, Topic: "x"},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{Sabotage: node.SabotageIgnoreRecreation}, false)
	expect(t, spec.CritRecreation, honest, broken)
}

// heldCauseThenSend feeds p2 a held effect (waiting for in@0), then a deliverable record on y,
// whose forwarding must express the held effect's causes and nothing beyond what p2 saw.
func heldCauseThenSend() *spec.Scenario {
	return &spec.Scenario{
		Name: "held-cause",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "y", Partitions: 1, External: true},
			{Name: "mid", Partitions: 1},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"in"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"in", "mid", "y"}, Sends: []string{"out"}},
		},
		Script: []spec.ScriptedAction{
			{Kind: spec.ActProducePlain, Topic: "in"},
			act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
			{Kind: spec.ActProducePlain, Topic: "y"},
			act(spec.ActFeed, "p2", "mid"), act(spec.ActFeed, "p2", "y"), act(spec.ActDrain, "p2", ""), act(spec.ActCommit, "p2", ""),
		},
	}
}

func TestCheckStruct15Expressed(t *testing.T) {
	honest := runScripted(heldCauseThenSend(), RunOptions{}, true)
	broken := runScripted(heldCauseThenSend(), RunOptions{Sabotage: node.SabotageSkipReceiptMerge}, true)
	expect(t, spec.CritStruct15, honest, broken)
}

func TestCheckOverexpression(t *testing.T) {
	honest := runScripted(heldCauseThenSend(), RunOptions{}, true)
	broken := runScripted(heldCauseThenSend(), RunOptions{Sabotage: node.SabotageOverexpress}, true)
	expect(t, spec.CritOverexpression, honest, broken)
}

func TestCheckStruct12Unassigned(t *testing.T) {
	var world *World
	hooks := &testHooks{stamp: func(p int, c int32, next int64, value []byte) []byte {
		// Name a position far beyond everything assigned on the channel being written.
		return node.Encode(node.CausesOf(node.Cause{Channel: world.chans[c].nc, Position: node.Offset(next + 100)}))
	}}
	script := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", "")}
	honest := runScripted(diamond(script...), RunOptions{}, false)
	broken := runWithWorld(diamond(script...), RunOptions{hooks: hooks}, &world)
	expect(t, spec.CritStruct12, honest, broken)
}

func TestCheckStruct14OwnChannel(t *testing.T) {
	var world *World
	hooks := &testHooks{stamp: func(p int, c int32, next int64, value []byte) []byte {
		// Name the emission's own position on its own channel.
		return node.Encode(node.CausesOf(node.Cause{Channel: world.chans[c].nc, Position: node.Offset(next)}))
	}}
	script := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", "")}
	honest := runScripted(diamond(script...), RunOptions{}, false)
	broken := runWithWorld(diamond(script...), RunOptions{hooks: hooks}, &world)
	expect(t, spec.CritStruct14, honest, broken)
}

// runWithWorld runs scn without liveness, exposing the world to hooks through *out.
func runWithWorld(scn *spec.Scenario, opts RunOptions, out **World) *spec.Result {
	set := swarm.Settings{Seed: 1}
	w := newWorld(scn, &set, choose.NewRandom(1), &opts)
	*out = w
	return w.run()
}

func TestCheckOverRefusal(t *testing.T) {
	hooks := &testHooks{refeed: func(p int) bool { return true }}
	script := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p", "in")}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{hooks: hooks}, false)
	expect(t, spec.CritOverRefusal, honest, broken)
}

func TestCheckHostH1(t *testing.T) {
	hooks := &testHooks{refeed: func(p int) bool { return true }}
	script := []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "in"}, act(spec.ActFeed, "p", "in")}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{hooks: hooks}, false)
	expect(t, spec.CritHost, honest, broken)
}

func TestCheckHostH2(t *testing.T) {
	// A host that reports the high watermark as the start position covers records never fed.
	starts := 0
	hooks := &testHooks{startPosition: func(p int, c int32, s int64) int64 {
		if starts++; starts == 1 {
			return s // the first execution starts honestly
		}
		return s + 2
	}}
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p", "in"), act(spec.ActCommit, "p", ""), act(spec.ActStop, "p", ""), act(spec.ActStart, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, false)
	broken := runScripted(twoInputs(script...), RunOptions{hooks: hooks}, false)
	expect(t, spec.CritHost, honest, broken)
}

func TestCheckHostJoinerStart(t *testing.T) {
	// p starts receiving y after retention dropped y's first two records: y is a joiner (no
	// committed offset, never named by p's state), so SPEC §7.4 starts it at y's log start, 2. A
	// host that starts it at 0 fails closed with POSITIONS_DISCARDED_UNREAD though nothing p was
	// entitled to read was lost.
	scn := &spec.Scenario{
		Name:      "joiner-after-retention",
		Topics:    []spec.TopicSpec{{Name: "x", Partitions: 1, External: true}, {Name: "y", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"x"}}},
		Script: []spec.ScriptedAction{
			{Kind: spec.ActProducePlain, Topic: "y"}, {Kind: spec.ActProducePlain, Topic: "y"},
			{Kind: spec.ActProducePlain, Topic: "x"},
			act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""), act(spec.ActStop, "p", ""),
			{Kind: spec.ActRedeclare, Process: "p", Topic: "y", Add: true},
			{Kind: spec.ActDeleteRecords, Topic: "y", Offset: 2},
			act(spec.ActStart, "p", ""),
			{Kind: spec.ActProducePlain, Topic: "y"},
			act(spec.ActFeed, "p", "y"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		},
	}
	const y = 1 // y's channel: channels are numbered in topic order
	hooks := &testHooks{startPosition: func(p int, c int32, s int64) int64 {
		if c == y {
			return 0
		}
		return s
	}}
	honest := runScripted(scn, RunOptions{}, false)
	broken := runScripted(scn, RunOptions{hooks: hooks}, false)
	expect(t, spec.CritHost, honest, broken)
	for _, v := range broken.Violations {
		if v.Criterion == spec.CritHost && strings.Contains(v.Detail, "start position 0 on y") && strings.Contains(v.Detail, "starts it at 2") {
			return
		}
	}
	t.Fatalf("no HOST violation naming y's start positions 0 and 2: %v", broken.Violations)
}

func TestCheckLiveness(t *testing.T) {
	// SILENT_DROP drops position 3: the fourth record is fed and never delivered.
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
		{Kind: spec.ActProducePlain, Topic: "in"}, {Kind: spec.ActProducePlain, Topic: "in"},
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, true)
	broken := runScripted(twoInputs(script...), RunOptions{Sabotage: node.SabotageSilentDrop}, true)
	expect(t, spec.CritLiveness, honest, broken)
	if honest.Stats.Deliveries != 4 {
		t.Fatalf("honest run delivered %d of 4", honest.Stats.Deliveries)
	}
}

// stageDiamondDeliveries hands the oracle of diamond world w a committed step in which p2
// delivers m1 (on in) and m2 (on mid, true past {in@0}), the effect m2 first when inverted, with
// no execution receiving in (so the delivery-time check judges nothing). It returns p2 and the
// two channels.
func stageDiamondDeliveries(w *World, inverted bool) (p *proc, in, mid int32) {
	in, mid = w.chanOf(w.topics[0].inc, 0), w.chanOf(w.topics[1].inc, 0)
	m1 := w.or.Add(oracle.Message{Ch: in, Pos: 0, Sender: -1, Kind: oracle.MsgPlain, State: oracle.MsgCommitted}, 0)
	m2 := w.or.Add(oracle.Message{Ch: mid, Pos: 0, Sender: 0, Kind: oracle.MsgEmission, State: oracle.MsgCommitted,
		Past: node.CausesOf(node.Cause{Channel: w.chans[in].nc, Position: 0})}, 0)
	p = w.procs[1]
	first, second := [2]int32{in, int32(m1)}, [2]int32{mid, int32(m2)}
	if inverted {
		first, second = second, first
	}
	p.o.BeginStep()
	for _, d := range [][2]int32{first, second} {
		w.or.OnDeliver(w.at(), &p.o, d[0], uint64(d[1]), p.storage())
	}
	w.or.OnCommit(w.at(), &p.o)
	return p, in, mid
}

// stripHeadersOn returns hooks under which engines read every record of topic t of w's scenario
// as headerless: a codec that loses the causes a header names.
func stripHeadersOn(t string, w **World) *testHooks {
	return &testHooks{feedHeaders: func(p int, c int32, hs []node.Header) []node.Header {
		if (*w).topics[(*w).chans[c].topic].spec.Name == t {
			return nil
		}
		return hs
	}}
}

func TestMisreadForgedHeaderBreaksS1(t *testing.T) {
	// A forged record on x names in@0, which p receives: what the header says is its true past,
	// so p must hold it until in@0 is delivered, and a codec that loses the header does not.
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "in"},
		{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "in", Partition: 0, Position: 0}}},
		act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActFeed, "p", "in"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
	}
	honest := runScripted(twoInputs(script...), RunOptions{}, true)
	var world *World
	broken := runWithWorld(twoInputs(script...), RunOptions{hooks: stripHeadersOn("x", &world)}, &world)
	expect(t, spec.CritS1, honest, broken)
	if got := honest.Deliveries[0]; len(got) != 2 || got[0] != 1 {
		t.Fatalf("honest p delivered %v, want in@0 (uid 1) before the forged record", got)
	}
}

// learnedElsewhere is p receiving x only and sending to out, fed a forged record on x that names
// a position on the given topic.
func learnedElsewhere(topic string, pos int64) *spec.Scenario {
	return &spec.Scenario{
		Name: "learned-elsewhere",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "x", Partitions: 1, External: true},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"x"}, Sends: []string{"out"}}},
		Script: []spec.ScriptedAction{
			{Kind: spec.ActProducePlain, Topic: "in"},
			{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: topic, Partition: 0, Position: pos}}},
			act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""),
		},
	}
}

func TestMisreadForgedHeaderBreaksStruct15(t *testing.T) {
	// The forged record names in@0, on a channel p does not receive: it delivers at once, and
	// its emission must carry in@0 on; a codec that loses the header does not.
	honest := runScripted(learnedElsewhere("in", 0), RunOptions{}, true)
	var world *World
	broken := runWithWorld(learnedElsewhere("in", 0), RunOptions{hooks: stripHeadersOn("x", &world)}, &world)
	expect(t, spec.CritStruct15, honest, broken)
}

func TestStruct14ExcusesALearnedOwnPosition(t *testing.T) {
	// The forged record names out@5, unassigned, on the channel p then sends to at position 0:
	// p must re-express it and cannot know better, so neither STRUCT14 nor STRUCT12 fires.
	res := runScripted(learnedElsewhere("out", 5), RunOptions{}, true)
	if res.Verdict != "pass" || res.Stats.Sent != 1 {
		t.Fatalf("verdict %s, %d sent: %v", res.Verdict, res.Stats.Sent, res.Violations)
	}
}

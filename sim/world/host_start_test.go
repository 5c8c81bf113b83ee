package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

func TestHostStartsNamedNeverCoveredChannelAtZero(t *testing.T) {
	// p delivers x@0, whose causal past names y@0, so p's committed frontier names y though p
	// never received y. After retention drops y's first two records, p restarts receiving y with
	// no committed offset and no fedUpTo on y: SPEC §7.4 resumes a channel the state names but
	// never covered at 0, and keeps the log start (2) for a channel the state never named.
	scn := &spec.Scenario{
		Name:      "named-never-covered",
		Topics:    []spec.TopicSpec{{Name: "x", Partitions: 1, External: true}, {Name: "y", Partitions: 1, External: true}},
		Processes: []spec.ProcessSpec{{Name: "p", Receives: []string{"x"}}},
		Script: []spec.ScriptedAction{
			{Kind: spec.ActProducePlain, Topic: "y"}, {Kind: spec.ActProducePlain, Topic: "y"},
			{Kind: spec.ActProducePlain, Topic: "x", Causes: []spec.CauseRef{{Topic: "y", Position: 0}}},
			act(spec.ActFeed, "p", "x"), act(spec.ActDrain, "p", ""), act(spec.ActCommit, "p", ""), act(spec.ActStop, "p", ""),
			{Kind: spec.ActRedeclare, Process: "p", Topic: "y", Add: true},
			{Kind: spec.ActDeleteRecords, Topic: "y", Offset: 2},
			act(spec.ActStart, "p", ""),
		},
	}
	const y = 1 // y's channel: channels are numbered in topic order
	starts := []int64{}
	hooks := &testHooks{startPosition: func(p int, c int32, s int64) int64 {
		if c == y {
			starts = append(starts, s)
		}
		return s
	}}
	if r := runScripted(scn, RunOptions{hooks: hooks}, false); r.Verdict != "pass" {
		t.Fatalf("run: %v", r.Violations)
	}
	if len(starts) != 1 || starts[0] != 0 {
		t.Fatalf("y's start positions %v, want [0]", starts)
	}
}

package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// deletionOnlyScenario: p reads the deletion-only topic d and the external topic in; q reads in
// and sends to out, which p reads too.
func deletionOnlyScenario() *spec.Scenario {
	return &spec.Scenario{
		Name: "deletion-only",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "d", Partitions: 1, External: true, DeletionOnly: true},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "p", Receives: []string{"d", "in", "out"}},
			{Name: "q", Receives: []string{"in"}, Sends: []string{"out"}},
		},
	}
}

// TestDeletionOnlyTopicSpared runs swarm settings with every fail-closed fault on over many seeds:
// no corrupt record, truncation, recreation or redeclaration is ever aimed at the deletion-only
// topic or its reader, retention never truncates it, while each of those faults does hit the
// ordinary external topic (so the check is exercised) and the deletion-only topic is deleted.
func TestDeletionOnlyTopicSpared(t *testing.T) {
	hitIn := map[spec.ActionKind]int{}
	deleted := 0
	for seed := uint64(1); seed <= 60; seed++ {
		set := swarm.ExpandSettings(seed)
		for _, k := range []spec.ActionKind{spec.ActProduceCorrupt, spec.ActDeleteRecords, spec.ActRecreateTopic, spec.ActDeleteTopic, spec.ActRedeclare, spec.ActStop, spec.ActProduceStamped, spec.ActRetention} {
			set.Weights[k] = max(set.Weights[k], 200)
		}
		set.RetentionRecords = 3
		w := newWorld(deletionOnlyScenario(), &set, choose.NewRandom(seed), &RunOptions{RecordScript: true})
		res := w.run()
		for i, a := range res.Script {
			switch a.Kind {
			case spec.ActProduceCorrupt, spec.ActDeleteRecords, spec.ActRecreateTopic:
				if a.Topic == "d" {
					t.Fatalf("seed %d: action %d %s aimed at the deletion-only topic", seed, i, a.Kind)
				}
				if a.Topic == "in" {
					hitIn[a.Kind]++
				}
			case spec.ActRedeclare:
				if a.Process == "p" || a.Topic == "d" {
					t.Fatalf("seed %d: action %d redeclares %s's %s", seed, i, a.Process, a.Topic)
				}
				hitIn[a.Kind]++
			case spec.ActDeleteTopic:
				if a.Topic == "d" {
					deleted++
				}
			}
		}
		d := w.topics[1]
		if d.inc >= 0 {
			if start := w.offsets(w.incs[d.inc].firstChan).LogStart; start != 0 {
				t.Fatalf("seed %d: the deletion-only topic's log starts at %d (retention or truncation)", seed, start)
			}
		}
	}
	for _, k := range []spec.ActionKind{spec.ActProduceCorrupt, spec.ActDeleteRecords, spec.ActRecreateTopic, spec.ActRedeclare} {
		if hitIn[k] == 0 {
			t.Errorf("no %s ever hit the ordinary topic: the check is vacuous", k)
		}
	}
	if deleted == 0 {
		t.Errorf("the deletion-only topic was never deleted")
	}
}

// TestDeletionOnlyTopicHasNoRetention: a retention sweep truncates the ordinary external topic but
// not the deletion-only one.
func TestDeletionOnlyTopicHasNoRetention(t *testing.T) {
	scn := deletionOnlyScenario()
	for range 6 {
		scn.Script = append(scn.Script, spec.ScriptedAction{Kind: spec.ActProducePlain, Topic: "in"}, spec.ScriptedAction{Kind: spec.ActProducePlain, Topic: "d"})
	}
	scn.Script = append(scn.Script, spec.ScriptedAction{Kind: spec.ActRetention})
	set := swarm.Settings{Seed: 1, RetentionRecords: 3}
	w := newWorld(scn, &set, choose.NewRandom(1), &RunOptions{})
	w.run()
	start := func(topic int) uint64 { return uint64(w.offsets(w.incs[w.topics[topic].inc].firstChan).LogStart) }
	if start(0) == 0 {
		t.Fatalf("retention did not truncate the ordinary topic: the check is vacuous")
	}
	if s := start(1); s != 0 {
		t.Fatalf("retention truncated the deletion-only topic to %d", s)
	}
}

package world

import (
	"reflect"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/oracle/corrupt"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// answer is a Chooser that answers every decision with option i.
type answer int

func (a answer) Choose(string, []uint32) int { return int(a) }

// corruptWorld is a world of the diamond scenario with a few records committed, its corrupt
// produce on, due at step due (0: never).
func corruptWorld(t *testing.T, explored bool, due int) *World {
	t.Helper()
	set := swarm.Settings{Seed: 3}
	set.Weights[spec.ActProduceCorrupt] = 1
	set.FaultAtStep[spec.ActProduceCorrupt] = due
	scn := diamond(spec.ScriptedAction{Kind: spec.ActProducePlain, Topic: "in"}, spec.ScriptedAction{Kind: spec.ActProducePlain, Topic: "in"},
		act(spec.ActFeed, "p1", "in"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""))
	w := newWorld(scn, &set, choose.NewRandom(3), &RunOptions{explored: explored})
	w.run()
	if w.recentN == 0 {
		t.Fatal("no committed record to corrupt")
	}
	return w
}

// TestExploredCorruptProduceBranchesOverEveryRepresentative: an explored corrupt produce is a
// decision over the generator's representatives, corrupting the header an observer of every live
// channel's last record would stamp.
func TestExploredCorruptProduceBranchesOverEveryRepresentative(t *testing.T) {
	w := corruptWorld(t, true, 0)
	base := oracle.WireCauses(w.or.ObservedAll())
	if len(base) < 2 {
		t.Fatalf("base %v: want the last records of in and mid", base)
	}
	for i, want := range corrupt.Representatives(base) {
		w.chooser = choose.NewRecorder(answer(i))
		if got := w.drawCorruption(); !reflect.DeepEqual(got, want) {
			t.Fatalf("answer %d: %+v, want %+v", i, got, want)
		}
		if len(w.chooser.Choices()) != 1 {
			t.Fatalf("answer %d: %d decisions, want the shape's", i, len(w.chooser.Choices()))
		}
	}
}

// TestDueCorruptFaultIsUndecodable: while the corrupt-header fault is due, a run draws only
// undecodable shapes, and a near miss produced then would leave it due; otherwise near misses
// come too.
func TestDueCorruptFaultIsUndecodable(t *testing.T) {
	w := corruptWorld(t, false, 1)
	if !w.faultDue(spec.ActProduceCorrupt) {
		t.Fatal("the fault is not due")
	}
	for range 200 {
		if c := w.drawCorruption(); !undecodable(c) {
			t.Fatalf("a due fault drew %+v, which decodes", c)
		}
	}
	w.produceCorrupt(w.chanOf(w.topics[0].inc, 0), [][]byte{oracle.EncodeCauses(w.or.ObservedAll())}, nil, nil)
	if !w.faultDue(spec.ActProduceCorrupt) {
		t.Fatal("a near miss that decodes fired the fault")
	}
	w.produceCorrupt(w.chanOf(w.topics[0].inc, 0), [][]byte{{0x63, 0x01, 0x02, 0x03}}, nil, nil) // version 0x63: undecodable
	if w.faultDue(spec.ActProduceCorrupt) {
		t.Fatal("an undecodable record did not fire the fault")
	}
	decodable := 0
	for range 200 {
		if !undecodable(w.drawCorruption()) {
			decodable++
		}
	}
	if decodable == 0 {
		t.Fatal("no near miss drawn once the fault fired")
	}
}

// undecodable reports whether the reference decoder refuses a corruption's headers.
func undecodable(c corrupt.Corruption) bool {
	headers := make([]wire.Header, len(c.Values))
	for i, v := range c.Values {
		headers[i] = wire.Header{Key: wire.HeaderKey, Value: v}
	}
	return oracle.ReadWireHeaders(headers).Undecodable
}

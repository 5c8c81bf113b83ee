package persistent

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// fakeView is a state written out by hand: two channels (0: topic in, 1: topic out), each
// process's received positions, and the answers to the per-channel questions.
type fakeView struct {
	st        State
	recv      [][]Position
	skips     map[int32]bool // FeedSkips, per channel
	nonCommit map[int32]bool // NonCommittedIn, per channel
}

func (v *fakeView) Read(st *State)                          { *st = v.st }
func (v *fakeView) HasEntries(c int32) bool                 { return true }
func (v *fakeView) NonCommittedIn(c int32, from int64) bool { return v.nonCommit[c] }
func (v *fakeView) FeedSkips(i int, c int32) bool           { return v.skips[c] }
func (v *fakeView) Received(i int, dst []Position) []Position {
	return append(dst, v.recv[i]...)
}
func (v *fakeView) PositionAt(i int, c int32) (Position, bool) {
	for _, p := range v.recv[i] {
		if p.Chan == c {
			return p, true
		}
	}
	return Position{}, false
}

// pipeline is a process p0 receiving an external topic in and sending to out, which p1
// receives, with only feeds, drains and commits in the budget.
func pipeline(t *testing.T) (*spec.Scenario, *swarm.Settings, *fakeView, *explore.Actions) {
	t.Helper()
	scn := &spec.Scenario{
		Topics: []spec.TopicSpec{{Name: "in", Partitions: 1, External: true}, {Name: "out", Partitions: 1}},
		Processes: []spec.ProcessSpec{{Name: "p0", Receives: []string{"in"}, Sends: []string{"out"}},
			{Name: "p1", Receives: []string{"out"}}},
	}
	set := &swarm.Settings{}
	for _, k := range []spec.ActionKind{spec.ActFeed, spec.ActDrain, spec.ActCommit} {
		set.Weights[k] = 1
	}
	feed := explore.Mask(1 << spec.ActFeed)
	v := &fakeView{
		st: State{Channels: []Channel{{Topic: 0, Alive: true, LSO: 1}, {Topic: 1, Alive: true, LSO: 1}},
			LiveTopics: 3, Processes: []Process{{Status: Running}, {Status: Running}}},
		recv: [][]Position{{{Chan: 0, Received: true}}, {{Chan: 1, Received: true}}},
	}
	acts := &explore.Actions{Masks: []explore.Mask{feed, feed}, Left: 1<<spec.ActFeed | 1<<spec.ActDrain | 1<<spec.ActCommit}
	return scn, set, v, acts
}

// TestIndependentFeedsAreApart: two processes whose feeds touch nothing of each other's make
// two persistent sets of one process each, and the first is chosen.
func TestIndependentFeedsAreApart(t *testing.T) {
	scn, set, v, acts := pipeline(t)
	sel, ok := New(scn, set, Tweaks{}).Select(v, acts)
	if !ok || sel.Procs != 1 || sel.Kinds != 1<<spec.ActFeed {
		t.Fatalf("selection %+v (%v), want process p0's feed alone", sel, ok)
	}
}

// TestSkipJoinsWriter: a receiver whose feed would skip to the LSO joins the writer that moves
// it, and a writer whose transaction is open joins the receiver that may meet a non-committed
// entry (the rule Tweaks.LeaveOutSkipRule leaves out): no set smaller than both processes is
// left.
func TestSkipJoinsWriter(t *testing.T) {
	scn, set, v, acts := pipeline(t)
	v.skips = map[int32]bool{1: true}
	v.st.Processes[0].TxnOpen = true
	v.nonCommit = map[int32]bool{1: true}
	if sel, ok := New(scn, set, Tweaks{}).Select(v, acts); ok {
		t.Fatalf("selection %+v: a skip's dependency on its writer was left out", sel)
	}
	sel, ok := New(scn, set, Tweaks{LeaveOutSkipRule: true}).Select(v, acts)
	if !ok || sel.Procs != 1 {
		t.Fatalf("without the rule: selection %+v (%v), want p0 alone", sel, ok)
	}
}

// TestNewDeclines: sessions, redeclarations and more than 64 actors switch the sets off.
func TestNewDeclines(t *testing.T) {
	scn, set, _, _ := pipeline(t)
	re := *set
	re.Weights[spec.ActRedeclare] = 1
	if New(scn, &re, Tweaks{}) != nil {
		t.Fatal("persistent sets with redeclarations in the budget")
	}
	big := *scn
	for range 22 {
		big.Topics = append(big.Topics, spec.TopicSpec{Name: "t", Partitions: 1})
	}
	if New(&big, set, Tweaks{}) != nil {
		t.Fatal("persistent sets over 64 actors")
	}
}

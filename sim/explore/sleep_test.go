package explore

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// sleepScope has three processes: p0 receives a, p1 receives b and sends c, p2 receives c. p0's
// footprint is disjoint from the others'; p1's and p2's share c.
func sleepScope() *spec.Scenario {
	return &spec.Scenario{
		Topics: []spec.TopicSpec{{Name: "a", Partitions: 1, External: true}, {Name: "b", Partitions: 1, External: true},
			{Name: "c", Partitions: 1}},
		Processes: []spec.ProcessSpec{{Name: "p0", Receives: []string{"a"}}, {Name: "p1", Receives: []string{"b"}, Sends: []string{"c"}},
			{Name: "p2", Receives: []string{"c"}}},
	}
}

func feed(proc, topic int) TransitionKey {
	return TransitionKey{Kind: spec.ActFeed, Proc: proc, Topic: topic}
}

func drain(proc int) TransitionKey { return TransitionKey{Kind: spec.ActDrain, Proc: proc, Topic: -1} }

// TestSleepTableIndependence checks which local transitions the table finds independent: those of
// two processes with disjoint footprints, never two of one process nor two of processes sharing
// a topic, and none once redeclarations may change every footprint; and that a transition leads to
// the sleeping transitions independent of it. It fails if independence ignored footprints or
// processes.
func TestSleepTableIndependence(t *testing.T) {
	tab := NewSleepTable(sleepScope(), &swarm.Settings{})
	if !tab.Fixed() {
		t.Fatal("3 processes over 3 topics (15 transitions) were not interned up front")
	}
	p0, p0b, p1, p2 := tab.ID(feed(0, 0)), tab.ID(drain(0)), tab.ID(feed(1, 1)), tab.ID(feed(2, 2))
	all := uint64(1)<<p0 | 1<<p0b | 1<<p1 | 1<<p2
	for _, c := range []struct {
		name string
		id   int
		want uint64
	}{
		{"p0's feed", p0, 1<<p1 | 1<<p2},
		{"p0's drain", p0b, 1<<p1 | 1<<p2},
		{"p1's feed", p1, 1<<p0 | 1<<p0b},
		{"p2's feed", p2, 1<<p0 | 1<<p0b},
	} {
		if got := tab.ChildSleep(all, c.id); got != c.want {
			t.Errorf("%s: leads to sleep set %b, want %b", c.name, got, c.want)
		}
	}
	if got := tab.ChildSleep(all, -1); got != 0 {
		t.Errorf("a transition without an identity leads to sleep set %b", got)
	}
	redeclaring := swarm.Settings{}
	redeclaring.Weights[spec.ActRedeclare] = 1
	tab = NewSleepTable(sleepScope(), &redeclaring)
	if got := tab.ChildSleep(^uint64(0), tab.ID(feed(0, 0))); got != 0 {
		t.Errorf("with redeclarations p0's feed leads to sleep set %b, want none", got)
	}
}

// TestSleepTableInternsUpTo64 checks the table of a scope too large to intern up front: identities
// are given in order of first use, stable afterwards, and -1 once 64 are given. It fails if an
// identity changed or the table gave a 65th.
func TestSleepTableInternsUpTo64(t *testing.T) {
	scn := &spec.Scenario{}
	for i := range 70 {
		name := string(rune('A' + i))
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: name, Partitions: 1, External: true})
		scn.Processes = append(scn.Processes, spec.ProcessSpec{Name: "p" + name, Receives: []string{name}})
	}
	tab := NewSleepTable(scn, &swarm.Settings{})
	if tab.Fixed() {
		t.Fatal("70 processes over 70 topics were interned up front")
	}
	for i := range 64 {
		if id := tab.ID(drain(i)); id != i {
			t.Fatalf("the %d-th new transition got identity %d", i, id)
		}
	}
	if id := tab.ID(drain(3)); id != 3 {
		t.Fatalf("a known transition got identity %d, want 3", id)
	}
	if id := tab.ID(drain(64)); id != -1 {
		t.Fatalf("the 65th transition got identity %d, want -1", id)
	}
	if got := tab.ChildSleep(1<<1|1<<2, 0); got != 1<<1|1<<2 {
		t.Fatalf("drains of processes over topics of their own lead to sleep set %b, want both asleep", got)
	}
}

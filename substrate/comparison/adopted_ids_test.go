package comparison

import (
	"errors"
	"testing"

	"github.com/parsleysim/parsleysim/substrate"
)

// TestModelAdoptsLiveTopicIDs gives a model the IDs another substrate assigned: each create or
// recreate after an adopt gets that ID, and one after adopting the zero ID (the live call failed)
// gets the fallback's, not an ID adopted earlier that a failed create left unused.
func TestModelAdoptsLiveTopicIDs(t *testing.T) {
	live := substrate.SeededTopicIDs(7)
	a := &adoptedIDs{fallback: substrate.SeededTopicIDs(8)}
	fallback := substrate.SeededTopicIDs(8)
	m := substrate.NewModel(a.draw)

	want := live()
	a.adopt(want)
	if id, err := m.CreateTopic("a", 1); err != nil || id != want {
		t.Fatalf("create a: %s, %v; want the adopted %s", id, err, want)
	}
	want = live()
	a.adopt(want)
	if id, err := m.RecreateTopic("a"); err != nil || id != want {
		t.Fatalf("recreate a: %s, %v; want the adopted %s", id, err, want)
	}
	a.adopt(live())
	if _, err := m.CreateTopic("a", 1); !errors.Is(err, substrate.ErrTopicExists) {
		t.Fatalf("create a again: %v", err)
	}
	a.adopt(substrate.TopicID{})
	if id, err := m.CreateTopic("b", 1); err != nil || id != fallback() {
		t.Fatalf("create b without an adopted ID: %s, %v; want the fallback's first", id, err)
	}
	if d, err := m.DescribeTopic(want); err != nil || d.State != substrate.TopicAlive || d.Name != "a" {
		t.Fatalf("describe the adopted ID: %+v, %v", d, err)
	}
}

package targets

import "testing"

// TestMemoCounts drives a memo of three processes over two topics through contributions that
// change between questions, and checks each answer against what the contributions say: a target
// counts while no doomed process receives its topic, except for a kind doomed receivers do not
// hold back, and a contribution changes only once its process is marked stale.
func TestMemoCounts(t *testing.T) {
	type contrib struct {
		doomed bool
		topics map[int]uint8
	}
	now := make([]contrib, 3)
	f := func(i int, kinds uint8, add func(int, uint8)) bool {
		for t, m := range now[i].topics {
			add(t, m&kinds)
		}
		return now[i].doomed
	}
	m := New(3, 2, 0b11, 0b10, f, nil, nil, nil) // no masks, declarers or facts asked for
	ask := func(step string, want0, want1 bool) {
		t.Helper()
		if got0, got1 := m.Has(0), m.Has(1); got0 != want0 || got1 != want1 {
			t.Fatalf("%s: kind 0 %v, kind 1 %v; want %v, %v", step, got0, got1, want0, want1)
		}
	}
	ask("empty", false, false)
	now[0] = contrib{topics: map[int]uint8{0: 0b11}}
	ask("not stale yet", false, false)
	m.Stale(0)
	ask("a target of both kinds on topic 0", true, true)
	now[1] = contrib{doomed: true, topics: map[int]uint8{0: 0, 1: 0}}
	m.Stale(1)
	ask("a doomed receiver of topic 0", false, true)
	now[2] = contrib{topics: map[int]uint8{1: 0b01}}
	m.Stale(2)
	ask("topic 1 is held back too", false, true)
	now[1] = contrib{topics: map[int]uint8{0: 0, 1: 0}}
	m.Stale(1)
	ask("no doomed receiver", true, true)
	now[0], now[2] = contrib{}, contrib{}
	m.Stale(0)
	m.Stale(2)
	ask("no target", false, false)
}

// TestMemoFacts checks that the memo's facts follow its stale marks: a process's facts are
// recomputed when it is marked stale, and only then, and each fact counts its processes.
func TestMemoFacts(t *testing.T) {
	now := []uint32{0b01, 0b11, 0}
	none := func(int, uint8, func(int, uint8)) bool { return false }
	m := New(3, 0, 0, 0, none, nil, nil, func(i int) (uint32, bool) { return now[i], false })
	ask := func(step string, want0, want1 int) {
		t.Helper()
		f := m.Facts()
		if got0, got1 := f.Kind(0).Count(), f.Kind(1).Count(); got0 != want0 || got1 != want1 {
			t.Fatalf("%s: fact 0 counts %d, fact 1 %d; want %d, %d", step, got0, got1, want0, want1)
		}
	}
	ask("first", 2, 1)
	now[1], now[2] = 0, 0b10
	ask("not stale yet", 2, 1)
	m.Stale(1)
	ask("process 1 recomputed", 1, 0)
	m.Stale(2)
	ask("process 2 recomputed", 1, 1)
}

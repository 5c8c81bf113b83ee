package streams

import (
	"math/rand/v2"
	"testing"
)

// TestForkDrawsOnAlone: a fork of a run's streams draws what the run's streams would draw next,
// each from its own copy, and drawing from either leaves the other where it was; its topic IDs
// come from the stream it was given.
func TestForkDrawsOnAlone(t *testing.T) {
	s := New(7)
	s.Durations.Uint64()
	s.Payloads.IntN(10)
	ids := rand.New(rand.NewPCG(1, 2))
	f := s.Fork(ids)
	if f.IDs != ids {
		t.Fatal("the fork does not draw its IDs from the stream it was given")
	}
	pairs := [][2]*rand.Rand{{s.Durations, f.Durations}, {s.Payloads, f.Payloads}, {s.Corruptions, f.Corruptions}}
	for i, p := range pairs {
		want := []uint64{p[0].Uint64(), p[0].Uint64()}
		got := []uint64{p[1].Uint64(), p[1].Uint64()}
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("stream %d: the fork drew %v, the run's %v", i, got, want)
		}
		if a, b := p[0].Uint64(), p[1].Uint64(); a != b {
			t.Fatalf("stream %d: drawing from one moved the other (%d, %d)", i, a, b)
		}
	}
}

// TestForkNeedsARun: an exploration's streams, and a fork, cannot be forked.
func TestForkNeedsARun(t *testing.T) {
	explored, _ := Explore(1)
	for name, s := range map[string]Streams{"an exploration's": explored, "a fork's": New(1).Fork(nil)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s streams were forked", name)
				}
			}()
			s.Fork(nil)
		}()
	}
}

package choose

import (
	"errors"
	"strings"
	"testing"
)

func drawMany(c Chooser, weights []uint32, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = c.Choose("test", weights)
	}
	return out
}

func TestRandomSameSeedSameAnswers(t *testing.T) {
	weights := []uint32{3, 0, 5, 1, 9}
	a := drawMany(NewRandom(7), weights, 1000)
	b := drawMany(NewRandom(7), weights, 1000)
	c := drawMany(NewRandom(8), weights, 1000)
	same, differ := true, false
	for i := range a {
		same = same && a[i] == b[i]
		differ = differ || a[i] != c[i]
	}
	if !same {
		t.Fatal("seed 7 gave two different answer sequences")
	}
	if !differ {
		t.Fatal("seeds 7 and 8 gave identical 1000-answer sequences")
	}
}

func TestRandomLabelDoesNotChangeAnswer(t *testing.T) {
	a, b := NewRandom(3), NewRandom(3)
	w := []uint32{1, 2, 3, 4}
	for i := range 200 {
		if x, y := a.Choose("action", w), b.Choose("crash.target", w); x != y {
			t.Fatalf("draw %d: label changed the answer (%d vs %d)", i, x, y)
		}
	}
}

func TestRandomFollowsWeights(t *testing.T) {
	weights := []uint32{1, 0, 3, 0, 6}
	const n = 100000
	counts := make([]int, len(weights))
	for _, i := range drawMany(NewRandom(11), weights, n) {
		counts[i]++
	}
	if counts[1] != 0 || counts[3] != 0 {
		t.Fatalf("zero-weight option chosen: counts %v", counts)
	}
	// Expected shares 10%, 30%, 60%; allow ±1.5 percentage points (≫ 4 standard deviations).
	for i, want := range map[int]float64{0: 0.1, 2: 0.3, 4: 0.6} {
		got := float64(counts[i]) / n
		if got < want-0.015 || got > want+0.015 {
			t.Errorf("option %d chosen %.3f of the time, want %.2f", i, got, want)
		}
	}
}

func TestRandomPanicsOnAllZero(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("all-zero weights did not panic")
		}
	}()
	NewRandom(1).Choose("x", []uint32{0, 0})
}

func TestReplayReproducesRecording(t *testing.T) {
	weights := []uint32{2, 0, 1, 4}
	rec := drawMany(NewRandom(5), weights, 300)
	rc := NewReplay(rec)
	got := drawMany(rc, weights, 300)
	for i := range rec {
		if got[i] != rec[i] {
			t.Fatalf("decision %d: replay answered %d, recording %d", i, got[i], rec[i])
		}
	}
	if rc.Err() != nil || rc.Remaining() != 0 || rc.Consumed() != 300 {
		t.Fatalf("exact replay: err %v, remaining %d, consumed %d", rc.Err(), rc.Remaining(), rc.Consumed())
	}
}

func TestReplayErrors(t *testing.T) {
	cases := []struct {
		name    string
		choices []int
		answer  int
		reason  string
	}{
		{"ran out", []int{2}, -1, "ran out after 1 choices"},
		{"out of range", []int{2, 7}, 7, "out of range [0, 3)"},
		{"negative", []int{2, -1}, -1, "out of range [0, 3)"},
		{"zero weight", []int{2, 1}, 1, "weight 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := NewReplay(tc.choices)
			weights := []uint32{0, 0, 5}
			if got := rc.Choose("first", weights); got != 2 {
				t.Fatalf("first answer %d, want 2", got)
			}
			weights = []uint32{0, 0, 5}
			if got := rc.Choose("second", weights); got != 2 {
				t.Fatalf("after an error the chooser answered %d, want the first non-zero option 2", got)
			}
			var re *ReplayError
			if !errors.As(rc.Err(), &re) {
				t.Fatalf("Err() = %v, want a *ReplayError", rc.Err())
			}
			if re.Decision != 1 || re.Label != "second" || re.Answer != tc.answer {
				t.Fatalf("error %+v, want decision 1 label second answer %d", re, tc.answer)
			}
			if msg := re.Error(); !strings.Contains(msg, tc.reason) || !strings.Contains(msg, "decision 1") {
				t.Fatalf("message %q lacks %q", msg, tc.reason)
			}
			rc.Choose("third", weights)
			if rc.Err() != error(re) {
				t.Fatal("error is not sticky: a later decision replaced it")
			}
		})
	}
}

// TestReplayChooseAllocatesNothing: a replayed decision, answered from the recording or (once it
// diverged) by the first enabled option, allocates nothing.
func TestReplayChooseAllocatesNothing(t *testing.T) {
	weights := []uint32{0, 3, 1}
	r := NewReplay(make([]int, 1000)) // answer 0 names a zero weight: the first call diverges
	r.Choose("first", weights)
	if r.Err() == nil {
		t.Fatal("answer 0 over a zero weight did not diverge")
	}
	answers := make([]int, 1000)
	for i := range answers {
		answers[i] = 1 + i%2
	}
	ok := NewReplay(answers)
	for _, c := range []*Replay{r, ok} {
		if n := testing.AllocsPerRun(100, func() { c.Choose("x", weights) }); n != 0 {
			t.Fatalf("Replay.Choose allocates %.1f times per decision", n)
		}
	}
	if ok.Err() != nil {
		t.Fatalf("the recording diverged: %v", ok.Err())
	}
}

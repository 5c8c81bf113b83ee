package session

import (
	"reflect"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"pgregory.net/rapid"
)

// gap builds the gap CoverageOf reports for a token position required on topic/partition where
// the past recorded recorded (negative: recorded none).
func gap(topic node.TopicID, partition int32, required, recorded int64) node.Blocker {
	g := node.Blocker{Channel: at(topic, partition, 0).Channel, Required: node.Offset(required)}
	if recorded >= 0 {
		g.Settled, g.SettledKnown = node.Offset(recorded), true
	}
	return g
}

func TestCoverageOf(t *testing.T) {
	recorded := pastOf(at(topicA, 0, 5), at(topicA, 1, 2), at(topicB, 0, 9))
	cases := []struct {
		name  string
		token CausalPast
		gaps  []node.Blocker
		text  string
	}{
		{"empty token", None(), nil, "covered"},
		{"below on every channel", pastOf(at(topicA, 0, 4), at(topicB, 0, 0)), nil, "covered"},
		{"equal", recorded, nil, "covered"},
		{"above on one channel", pastOf(at(topicA, 0, 6), at(topicB, 0, 9)),
			[]node.Blocker{gap(topicA, 0, 6, 5)},
			"not covered: 01000000-0000-0000-0000-000000000010/0 required=6 recorded=5"},
		{"channel never recorded", pastOf(at(topicC, 0, 0)),
			[]node.Blocker{gap(topicC, 0, 0, -1)},
			"not covered: 7f000000-0000-0000-0000-000000000001/0 required=0 recorded=none"},
		{"every gap in channel order", pastOf(at(topicB, 3, 1), at(topicA, 1, 3), at(topicA, 0, 5)),
			[]node.Blocker{gap(topicA, 1, 3, 2), gap(topicB, 3, 1, -1)},
			"not covered: 01000000-0000-0000-0000-000000000010/1 required=3 recorded=2; " +
				"f1000000-0000-0000-0000-000000000010/3 required=1 recorded=none"},
	}
	for _, tc := range cases {
		cov := recorded.CoverageOf(tc.token)
		if !reflect.DeepEqual(cov.Gaps, tc.gaps) || cov.Covered() != (len(tc.gaps) == 0) {
			t.Errorf("%s: CoverageOf(%v) = %v, want gaps %v", tc.name, tc.token, cov.Gaps, tc.gaps)
		}
		if cov.String() != tc.text {
			t.Errorf("%s: String = %q, want %q", tc.name, cov.String(), tc.text)
		}
	}
	if cov := None().CoverageOf(pastOf(at(topicA, 0, 0))); cov.Covered() {
		t.Errorf("the empty past covers a token naming A/0@0: %v", cov)
	}
}

// receivedOnly is a gate's received set listing its channels explicitly.
type receivedOnly []node.Channel

func (r receivedOnly) Receives(ch node.Channel) bool {
	for _, c := range r {
		if c == ch {
			return true
		}
	}
	return false
}

// TestCoverageInvertsTheGate shows the deliberate inversion: a token channel the past never
// recorded is skipped by the gate at a process that does not receive it, but is a gap here.
func TestCoverageInvertsTheGate(t *testing.T) {
	recorded := pastOf(at(topicA, 0, 5))
	token := pastOf(at(topicA, 0, 5), at(topicC, 0, 1))

	gate := node.Decide(token.Causes(), receivedOnly{at(topicA, 0, 0).Channel}, recordedView{past: recorded.frontier()})
	if !gate.Deliverable() {
		t.Fatalf("precondition: the gate should skip unreceived C/0, got blockers %v", gate.Blockers)
	}
	cov := recorded.CoverageOf(token)
	if want := []node.Blocker{gap(topicC, 0, 1, -1)}; !reflect.DeepEqual(cov.Gaps, want) {
		t.Fatalf("CoverageOf(%v) = %v; want the unrecorded channel as a gap %v", token, cov, want)
	}
}

// naiveGaps is the coverage rule of SPEC §5.2 written directly over maps: every token pair whose
// channel the past lacks, or records lower, is a gap, in channel order.
func naiveGaps(past, token CausalPast) []node.Blocker {
	recorded := map[node.Channel]node.Offset{}
	for _, c := range past.Causes().Pairs() {
		recorded[c.Channel] = c.Position
	}
	var gaps []node.Blocker
	for _, c := range token.Causes().Pairs() { // Pairs is in channel order
		pos, ok := recorded[c.Channel]
		if !ok || pos < c.Position {
			gaps = append(gaps, node.Blocker{Channel: c.Channel, Required: c.Position, Settled: pos, SettledKnown: ok})
		}
	}
	return gaps
}

func TestCoverageAgreesWithTheNaiveRule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		past, token := drawPast(t, "recorded past"), drawPast(t, "token")
		got, want := past.CoverageOf(token).Gaps, naiveGaps(past, token)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("CoverageOf gaps %v, naive rule %v", got, want)
		}
	})
}

// TestMergedPastCoversBothSides is the read tier's refresh: after folding the served past into
// the token, the new token covers the old one and the served past, and the served past covers a
// token exactly when nothing new entered it.
func TestMergedPastCoversBothSides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		served, token := drawPast(t, "served past"), drawPast(t, "token")
		refreshed := served.MergePast(token)
		if cov := refreshed.CoverageOf(token); !cov.Covered() {
			t.Fatalf("merged past does not cover the token: %v", cov)
		}
		if cov := refreshed.CoverageOf(served); !cov.Covered() {
			t.Fatalf("merged past does not cover the served past: %v", cov)
		}
		if served.CoverageOf(token).Covered() != served.Equal(refreshed) {
			t.Fatalf("served covers token=%v but merge changed it=%v", served.CoverageOf(token).Covered(), !served.Equal(refreshed))
		}
	})
}

func TestCoveredCheckDoesNotAllocate(t *testing.T) {
	recorded := pastOf(at(topicA, 0, 5), at(topicA, 1, 2), at(topicB, 0, 9))
	token := pastOf(at(topicA, 0, 4), at(topicB, 0, 9))
	allocs := testing.AllocsPerRun(100, func() {
		if !recorded.CoverageOf(token).Covered() {
			t.Fatal("not covered")
		}
	})
	if allocs != 0 {
		t.Fatalf("a covered check allocated %.1f times per run, want 0", allocs)
	}
}

package session

import (
	"fmt"
	"pgregory.net/rapid"
	"testing"
)

func TestMeet(t *testing.T) {
	p1 := pastOf(at(topicA, 0, 5), at(topicA, 1, 2), at(topicB, 0, 9))
	p2 := pastOf(at(topicA, 0, 7), at(topicB, 0, 4), at(topicC, 0, 1))
	p3 := pastOf(at(topicA, 0, 6), at(topicB, 0, 8))
	cases := []struct {
		name  string
		pasts []CausalPast
		want  CausalPast
	}{
		{"none: the empty past", nil, None()},
		{"one", []CausalPast{p1}, p1},
		{"channels on one side only are absent", []CausalPast{p1, p2}, pastOf(at(topicA, 0, 5), at(topicB, 0, 4))},
		{"three partitions", []CausalPast{p2, p3, p1}, pastOf(at(topicA, 0, 5), at(topicB, 0, 4))},
		{"an empty partition empties the meet", []CausalPast{p1, None(), p2}, None()},
		{"disjoint", []CausalPast{pastOf(at(topicA, 1, 1)), pastOf(at(topicC, 0, 1))}, None()},
	}
	for _, tc := range cases {
		if got := Meet(tc.pasts...); !got.Equal(tc.want) {
			t.Errorf("%s: Meet = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := Meet(p1); !sameStorage(got, p1) {
		t.Errorf("Meet(p) = %v is not p itself", got)
	}
	// Fails closed: a token naming a channel only one partition recorded is not covered.
	if cov := Meet(p1, p2).CoverageOf(pastOf(at(topicC, 0, 1))); cov.Covered() {
		t.Errorf("meet covers a channel one partition never recorded: %v", cov)
	}
}

func TestMeetIsTheGreatestLowerBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pasts := make([]CausalPast, rapid.IntRange(1, 4).Draw(t, "partitions"))
		for i := range pasts {
			pasts[i] = drawPast(t, fmt.Sprintf("partition %d past", i))
		}
		meet := Meet(pasts...)
		for i, p := range pasts {
			if cov := p.CoverageOf(meet); !cov.Covered() {
				t.Fatalf("partition %d (%v) does not dominate the meet %v: %v", i, p, meet, cov)
			}
		}
		// Greatest: any channel every partition names is in the meet at the minimum position.
		for _, c := range pasts[0].Causes().Pairs() {
			lowest, everywhere := c.Position, true
			for _, p := range pasts[1:] {
				pos, ok := p.Lookup(c.Channel)
				everywhere = everywhere && ok
				lowest = min(lowest, pos)
			}
			got, ok := meet.Lookup(c.Channel)
			if ok != everywhere || (everywhere && got != lowest) {
				t.Fatalf("meet has %v at %d (present %v); want present %v at %d", c.Channel, got, ok, everywhere, lowest)
			}
		}
		if meet.Size() > pasts[0].Size() {
			t.Fatalf("meet %v names more channels than %v", meet, pasts[0])
		}
	})
}

func TestMeetDoesNotChangeItsInputs(t *testing.T) {
	p1 := pastOf(at(topicA, 0, 5), at(topicB, 0, 9))
	p2 := pastOf(at(topicA, 0, 3), at(topicB, 0, 12))
	_ = Meet(p1, p2)
	if !p1.Equal(pastOf(at(topicA, 0, 5), at(topicB, 0, 9))) || !p2.Equal(pastOf(at(topicA, 0, 3), at(topicB, 0, 12))) {
		t.Fatalf("Meet changed an input: %v, %v", p1, p2)
	}
}

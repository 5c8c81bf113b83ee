package sim

import (
	"testing"
)

// BenchmarkExplore measures the exhaustive explorer's speed in states per second of wall time:
// one op is one complete exploration of the chain scope (p1 forwards ext to mid, p2 receives
// both) under a budget, every check on. Envelope: a state is a world clone (engines rebuilt from
// journals, ~a few µs), one step (~1-3 µs) and a canonical hash (~1 µs), so ~5-10 µs a state:
// 100,000-200,000 states/s, against the goal of 50,000. The checksum is the number of
// states explored (exact), so the work cannot shrink unnoticed.
//
//	go test ./sim/ -run '^$' -bench Explore -benchtime 3x
func BenchmarkExplore(b *testing.B) {
	for _, c := range []struct{ name, budget string }{
		{"budget=msgs=1", "msgs=1"},
		{"budget=msgs=2", "msgs=2"},
	} {
		b.Run(c.name, func(b *testing.B) {
			opts := ExploreOptions{Budget: mustBudget(b, c.budget), Reduce: true}
			states := 0
			var res ExploreResult
			for b.Loop() {
				res = Explore(chainScope(), opts)
				states += res.States
			}
			if res.Verdict != "pass" || !res.Complete {
				b.Fatalf("honest exploration: verdict %s, complete %v", res.Verdict, res.Complete)
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(res.States), "checksum")
		})
	}
}

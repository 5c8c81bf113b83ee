package sim

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/explore/budget"
)

// BenchmarkExplore measures exhaustive exploration speed in states per second, with every check
// on. Estimate (TigerStyle): a transition clones the world copy-on-write (~2 µs), runs one step
// (~5 µs) and hashes the one process it changed and the channels (~2 µs); with two to three
// transitions per state that is ~40k-60k states/s on one core (measured: about 17 µs per
// transition with garbage collection, results/explore.md). The chain scope is small since the
// reductions; scenarios' BenchmarkExploreScope measures the large scopes. Reports a checksum of
// the result (states, transitions, terminal states) so the work cannot silently change.
//
//	go test -run '^$' -bench Explore -benchtime 3x ./sim
func BenchmarkExplore(b *testing.B) {
	mustBudget := func(s string) budget.Budget {
		bud, err := budget.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		return bud
	}
	for _, c := range []struct{ name, budget string }{
		{"scope=chain/budget=msgs2", "msgs=2"},
		{"scope=chain/budget=msgs1-crash1", "msgs=1,crash=1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			opts := ExploreOptions{Budget: mustBudget(c.budget), Reduce: true}
			var states, sum int
			for b.Loop() {
				r := Explore(chainScope(), opts)
				states += r.States
				sum = r.States*1_000_003 + r.Transitions*1_009 + r.TerminalStates
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(sum), "checksum")
		})
	}
}

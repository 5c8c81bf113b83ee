package scenarios

import (
	"flag"
	"fmt"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scopes"
	"github.com/parsleysim/parsleysim/sim"
)

// BenchmarkExploreScope measures the explorer's cost per state on the catalogue's largest scopes
// (issue 7: at least 50,000 states/s), each capped at states=N states so the reference scope fits
// a benchmark run. Reports states/s and transitions/s, and a checksum of the counts (states,
// transitions, terminal states) so the work cannot silently change. Estimate (TigerStyle): a
// transition clones the world copy-on-write (~2 µs), runs one step (~5 µs) and hashes the one
// process it changed (~2 µs); at two to three transitions per state that is ~40k-60k states/s on
// one core.
//
//	go test -run '^$' -bench ExploreScope -benchtime 1x ./scenarios
//
// -explore-states N changes the reference scope's cap (for runs under valgrind --tool=cachegrind,
// which runs many times slower than the machine); -explore-no-restart switches the restart check off.
func BenchmarkExploreScope(b *testing.B) {
	for _, c := range []struct {
		scope     string
		maxStates int
		name      string
	}{
		{"stamped_fanin", 0, "scope=stamped_fanin"},
		{"session_held", 0, "scope=session_held"},
		{"reference", *exploreStates, fmt.Sprintf("scope=reference/states=%d", *exploreStates)},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc, err := scopes.LookupScope(c.scope)
			if err != nil {
				b.Fatal(err)
			}
			opts, err := sc.Options()
			if err != nil {
				b.Fatal(err)
			}
			opts.MaxStates = c.maxStates
			opts.NoRestartCheck = *exploreNoRestart
			var states, transitions, sum int
			for b.Loop() {
				r := sim.Explore(sc.Build(), opts)
				states += r.States
				transitions += r.Transitions
				sum = r.States*1_000_003 + r.Transitions*1_009 + r.TerminalStates
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(transitions)/b.Elapsed().Seconds(), "transitions/s")
			b.ReportMetric(float64(sum), "checksum")
		})
	}
}

// exploreNoRestart switches BenchmarkExploreScope's restart check off (to measure its cost).
var exploreNoRestart = flag.Bool("explore-no-restart", false, "BenchmarkExploreScope: no restart check")

// exploreStates is BenchmarkExploreScope's cap on the reference scope.
var exploreStates = flag.Int("explore-states", 200_000, "BenchmarkExploreScope: states to explore of the reference scope")

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// sweepJSON runs a sweep and returns its report and JSON form, failing the test on an error.
func sweepJSON(t *testing.T, cfg SweepConfig) (*SweepReport, string) {
	t.Helper()
	rep, err := Sweep(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(b)
}

// TestSweepIndependentOfWorkers: the same range with 1 and 3 workers gives the same report, and
// Visit sees the seeds in order either way.
func TestSweepIndependentOfWorkers(t *testing.T) {
	var reports []string
	for _, workers := range []int{1, 3} {
		var visited []uint64
		cfg := SweepConfig{Spec: Spec{Sabotage: "IGNORE_CAUSES"}, First: 1, Last: 12, Workers: workers,
			Visit: func(o SeedOutcome) { visited = append(visited, o.Seed) }}
		rep, js := sweepJSON(t, cfg)
		if rep.Runs != 12 || rep.Interrupted {
			t.Fatalf("workers %d: %d runs, interrupted %v; want 12, false", workers, rep.Runs, rep.Interrupted)
		}
		for i, s := range visited {
			if s != uint64(i+1) {
				t.Fatalf("workers %d: Visit order %v, want 1..12", workers, visited)
			}
		}
		reports = append(reports, js)
	}
	if reports[0] != reports[1] {
		t.Fatalf("reports differ between 1 and 3 workers:\n%s\n%s", reports[0], reports[1])
	}
}

// TestSweepTraceDigest: the trace digest does not depend on the number of workers, is the fold of
// every seed's own trace hash in seed order, changes when any one seed's hash changes or a seed
// is left out, and is absent unless asked for.
func TestSweepTraceDigest(t *testing.T) {
	spec := Spec{Sabotage: "IGNORE_CAUSES"} // failing and passing seeds both
	var digests []string
	for _, workers := range []int{1, 3} {
		rep, js := sweepJSON(t, SweepConfig{Spec: spec, First: 1, Last: 8, Workers: workers, TraceDigest: true})
		if len(rep.TraceDigest) != 16 || !strings.Contains(js, `"trace_digest":"`+rep.TraceDigest+`"`) {
			t.Fatalf("workers %d: trace digest %q, JSON %s", workers, rep.TraceDigest, js)
		}
		digests = append(digests, rep.TraceDigest)
	}
	if digests[0] != digests[1] {
		t.Fatalf("trace digest depends on the workers: %s with 1, %s with 3", digests[0], digests[1])
	}
	var hashes []uint64
	for seed := uint64(1); seed <= 8; seed++ {
		o, err := runSeed(spec.Normalize(), seed, true)
		if err != nil {
			t.Fatal(err)
		}
		h := o.TraceHash
		if h == 0 {
			t.Fatalf("seed %d: no trace hash", seed)
		}
		hashes = append(hashes, h)
	}
	fold := func(hashes []uint64, skip int) string {
		d := newTraceDigest()
		for i, h := range hashes {
			if i != skip {
				d.add(uint64(i+1), h)
			}
		}
		return trace.FormatHash(d.sum)
	}
	if got := fold(hashes, -1); got != digests[0] {
		t.Fatalf("sweep digest %s, fold of the seeds' own hashes %s", digests[0], got)
	}
	for i := range hashes {
		changed := slices.Clone(hashes)
		changed[i] ^= 1
		if fold(changed, -1) == digests[0] || fold(hashes, i) == digests[0] {
			t.Fatalf("the digest ignores seed %d", i+1)
		}
	}
	if rep, js := sweepJSON(t, SweepConfig{Spec: spec, First: 1, Last: 2}); rep.TraceDigest != "" || strings.Contains(js, "trace_digest") {
		t.Fatalf("a sweep not asked for a digest reports one: %s", js)
	}
}

// TestSweepFailuresReplay: under IGNORE_CAUSES some seeds fail; each failure names its first
// criterion and a replay command, and re-running the seed alone gives the same criteria.
func TestSweepFailuresReplay(t *testing.T) {
	spec := Spec{Sabotage: "IGNORE_CAUSES"}
	rep, _ := sweepJSON(t, SweepConfig{Spec: spec, First: 1, Last: 10, Workers: 2})
	if rep.Failed() == 0 {
		t.Fatal("IGNORE_CAUSES failed no seed of 1-10")
	}
	if rep.Passed+rep.Failed() != rep.Runs || *rep.EligibleSeeds != 10 || *rep.CaughtEligible != rep.Failed() {
		t.Fatalf("counts do not add up: %d passed + %d failed of %d runs; eligible %d, caught %d",
			rep.Passed, rep.Failed(), rep.Runs, *rep.EligibleSeeds, *rep.CaughtEligible)
	}
	seedsByCrit := 0
	for _, n := range rep.SeedsByCriterion {
		seedsByCrit += n
	}
	if seedsByCrit < rep.Failed() {
		t.Fatalf("seeds by criterion sum to %d, fewer than the %d failed seeds", seedsByCrit, rep.Failed())
	}
	for _, f := range rep.Failures {
		want := fmt.Sprintf("go run ./cmd/simrun --seed %d --scenario random --sabotage IGNORE_CAUSES", f.Seed)
		if f.Replay != want {
			t.Fatalf("replay command %q, want %q", f.Replay, want)
		}
		again := mustRunSeed(t, spec, f.Seed)
		if !again.Failed() || again.Criteria[0] != f.Criterion || len(again.Criteria) != len(f.Criteria) {
			t.Fatalf("seed %d alone: %v, sweep said %v", f.Seed, again.Criteria, f.Criteria)
		}
	}
}

// TestSweepHonestNoEligibility: an honest sweep reports no eligibility fields, and the exercised
// totals count what the runs did.
func TestSweepHonestNoEligibility(t *testing.T) {
	rep, js := sweepJSON(t, SweepConfig{First: 5, Last: 8})
	if rep.EligibleSeeds != nil || strings.Contains(js, "eligible_seeds") {
		t.Fatalf("honest sweep reports eligibility: %s", js)
	}
	feeds := rep.Exercised.Count(ActionCounter(spec.ActFeed))
	deliveries := rep.Exercised.Count("deliveries")
	if feeds.Runs != 4 || feeds.Total == 0 || deliveries.Total == 0 || rep.Steps == 0 {
		t.Fatalf("exercised: feeds %+v, deliveries %+v, steps %d; want every run feeding and delivering",
			feeds, deliveries, rep.Steps)
	}
}

// TestSweepInterrupted: a sweep cancelled after its first finished seed stops early, says so and
// still reports the seeds that finished, in order.
func TestSweepInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := SweepConfig{First: 1, Last: 1000, Workers: 2, Progress: func(done, _ int) {
		if done == 1 {
			cancel()
		}
	}}
	rep, err := Sweep(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Runs == 0 || rep.Runs > 10 {
		t.Fatalf("cancelled sweep: interrupted %v after %d runs; want interrupted after a few", rep.Interrupted, rep.Runs)
	}
}

// TestSweepBadInput: an empty range or a bad spec is an error naming it.
func TestSweepBadInput(t *testing.T) {
	for _, tc := range []struct {
		cfg  SweepConfig
		want string
	}{
		{SweepConfig{First: 5, Last: 4}, "5-4"},
		{SweepConfig{Spec: Spec{Scenario: "nope"}, First: 1, Last: 1}, `"nope"`},
		{SweepConfig{Spec: Spec{Sabotage: "NOPE"}, First: 1, Last: 1}, `"NOPE"`},
	} {
		_, err := Sweep(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.cfg, err, tc.want)
		}
	}
}

// BenchmarkSweep measures sweep throughput in seeds per second of the honest random scenario.
// Estimate: a run is 250-500 safety actions plus a liveness phase of a few hundred, at a few
// microseconds to tens of microseconds each, so a few to tens of milliseconds per seed; two
// workers should nearly double it on two idle cores.
//
//	go test ./scenarios -run '^$' -bench BenchmarkSweep -benchtime 200x
func BenchmarkSweep(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			rep, err := Sweep(context.Background(), SweepConfig{First: 1, Last: uint64(b.N), Workers: workers})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(rep.Steps), "steps_total")
		})
	}
}

// TestSweepFiredWithinEligible: under a mode that needs a fault class, the seeds where the fault
// fired are eligible seeds, and the counts nest: caught fired <= fired <= eligible <= runs. (The
// scheduler insists that an enabled fail-closed fault fire once, so fired may equal eligible.)
func TestSweepFiredWithinEligible(t *testing.T) {
	var outcomes []SeedOutcome
	rep, _ := sweepJSON(t, SweepConfig{Spec: Spec{Sabotage: "UNDECODABLE_AS_ABSENT"}, First: 1, Last: 30,
		Visit: func(o SeedOutcome) { outcomes = append(outcomes, o) }})
	for _, o := range outcomes {
		if o.Fired && !o.Eligible {
			t.Fatalf("seed %d: the fault fired but the seed is not eligible", o.Seed)
		}
		if o.Fired != (o.Stats.Actions[spec.ActProduceCorrupt] > 0) {
			t.Fatalf("seed %d: fired %v with %d corrupt produces", o.Seed, o.Fired, o.Stats.Actions[spec.ActProduceCorrupt])
		}
	}
	if !(*rep.CaughtFired <= *rep.FiredSeeds && *rep.FiredSeeds <= *rep.EligibleSeeds && *rep.EligibleSeeds <= rep.Runs) ||
		*rep.CaughtFired == 0 || *rep.EligibleSeeds == rep.Runs {
		t.Fatalf("caught fired %d, fired %d, eligible %d, runs %d: want strictly nested, non-trivial counts",
			*rep.CaughtFired, *rep.FiredSeeds, *rep.EligibleSeeds, rep.Runs)
	}
}

// TestSweepRangeOfEverySeed: a range of 2^64 seeds, whose count does not fit the report's 64-bit
// counts, is refused; the widest countable range starts and, interrupted, says so.
func TestSweepRangeOfEverySeed(t *testing.T) {
	if _, err := Sweep(context.Background(), SweepConfig{First: 0, Last: math.MaxUint64, Workers: 1}); err == nil || !strings.Contains(err.Error(), "2^64 seeds") {
		t.Fatalf("sweep of every seed: %v, want an error naming the count", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Sweep(ctx, SweepConfig{First: 1, Last: math.MaxUint64, Workers: 1})
	if err != nil || !rep.Interrupted {
		t.Fatalf("interrupted sweep of 2^64-1 seeds: %v, interrupted %v", err, rep != nil && rep.Interrupted)
	}
}

// mustRunSeed is RunSeed, failing the test on an error.
func mustRunSeed(t *testing.T, spec Spec, seed uint64) SeedOutcome {
	t.Helper()
	o, err := RunSeed(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestRunSeedReturnsPrepareErrors: a spec that does not prepare is an error naming the seed and
// the bad input, not a run that "panicked".
func TestRunSeedReturnsPrepareErrors(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Scenario: "no_such_scenario"}, `unknown scenario "no_such_scenario"`},
		{Spec{Sabotage: "NO_SUCH_MODE"}, `unknown sabotage mode "NO_SUCH_MODE"`},
		{Spec{Steps: -1}, "--steps must be"},
	} {
		o, err := RunSeed(c.spec, 7)
		if err == nil || !strings.Contains(err.Error(), "seed 7") || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%+v: error %v, outcome %+v; want an error naming seed 7 and %q", c.spec, err, o, c.want)
		}
		if o.Verdict != "" || len(o.Violations) != 0 {
			t.Fatalf("%+v: a spec that does not prepare gave verdict %q %v", c.spec, o.Verdict, o.Violations)
		}
	}
}

// TestSweepWithout: a sweep without REFERENCE and RESTART_INVISIBILITY takes the same steps as the
// whole sweep and still judges the other criteria, but no run reports the two, no restart check
// runs, and the report names them; under NO_FIFO, which REFERENCE catches, the whole sweep does
// report REFERENCE, so its absence is the option's doing.
func TestSweepWithout(t *testing.T) {
	without := []spec.Criterion{spec.CritReference, spec.CritRestartInvisibility}
	cfg := SweepConfig{Spec: Spec{Sabotage: "NO_FIFO"}, First: 1, Last: 30, Workers: 2}
	whole, _ := sweepJSON(t, cfg)
	cfg.Without = without
	rep, js := sweepJSON(t, cfg)
	if whole.SeedsByCriterion[spec.CritReference] == 0 || whole.Exercised.Count("restart_checks").Runs == 0 {
		t.Fatalf("fixture: the whole sweep reports REFERENCE on %d seeds and ran %d restart checks; want some of both",
			whole.SeedsByCriterion[spec.CritReference], whole.Exercised.Count("restart_checks").Runs)
	}
	if n := rep.SeedsByCriterion[spec.CritReference] + rep.SeedsByCriterion[spec.CritRestartInvisibility]; n != 0 ||
		rep.Exercised.Count("restart_checks").Runs != 0 {
		t.Fatalf("without %v: %d seeds report them, %d restart checks ran; want none", without, n, rep.Exercised.Count("restart_checks").Runs)
	}
	if rep.Steps != whole.Steps || rep.SeedsByCriterion[spec.CritS3] == 0 {
		t.Fatalf("without %v: %d steps (whole %d), S3 on %d seeds; want the same steps and S3 still judged", without, rep.Steps, whole.Steps, rep.SeedsByCriterion[spec.CritS3])
	}
	if !slices.Equal(rep.Without, without) || !strings.Contains(js, `"without":["REFERENCE","RESTART_INVISIBILITY"]`) {
		t.Fatalf("report's without %v, JSON %s", rep.Without, js)
	}
}

package scenarios

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// TestShardSeedsAreBalancedAndStable: the shards of a range partition it, differ in size by at
// most one seed, and a seed's shard depends only on the seed and the count, whatever the range.
func TestShardSeedsAreBalancedAndStable(t *testing.T) {
	ranges := [][2]uint64{{1, 1}, {1, 100}, {7, 1000}, {math.MaxUint64 - 40, math.MaxUint64}, {0, 63}}
	for _, r := range ranges {
		for n := 1; n <= 64; n++ {
			owner := map[uint64]int{}
			lo, hi := uint64(math.MaxUint64), uint64(0)
			for i := 1; i <= n; i++ {
				sh := Shard{Index: i, Total: n}
				count := uint64(0)
				seed, more := sh.firstSeed(r[0], r[1])
				for more {
					if prev, dup := owner[seed]; dup {
						t.Fatalf("range %v, n %d: seed %d in shards %d and %d", r, n, seed, prev, i)
					}
					if !sh.ownsSeed(seed) {
						t.Fatalf("range %v, n %d: shard %d runs seed %d it does not own", r, n, i, seed)
					}
					owner[seed] = i
					count++
					seed, more = sh.nextSeed(seed, r[1])
				}
				if count != sh.SeedCount(r[0], r[1]) {
					t.Fatalf("range %v, shard %s: %d seeds, SeedCount %d", r, sh, count, sh.SeedCount(r[0], r[1]))
				}
				lo, hi = min(lo, count), max(hi, count)
			}
			if uint64(len(owner)) != r[1]-r[0]+1 || hi-lo > 1 {
				t.Fatalf("range %v, n %d: %d of %d seeds covered, shard sizes %d..%d", r, n, len(owner), r[1]-r[0]+1, lo, hi)
			}
		}
	}
	for seed := uint64(0); seed < 200; seed++ {
		for n := 1; n <= 64; n++ {
			if !(Shard{Index: int(seed%uint64(n)) + 1, Total: n}).ownsSeed(seed) {
				t.Fatalf("seed %d is not in shard %d/%d", seed, seed%uint64(n)+1, n)
			}
		}
	}
}

// TestShardedSweepMergesToUnsharded: for every shard count from 1 to 64, the reports of the
// shards, each through its JSON form, merge into the unsharded report, byte for byte, trace
// digest included; with some shards left out the merge is interrupted and its counts are those
// of the seeds given. The shard reports are built from one sweep's outcomes (so every count runs
// each seed once); TestShardedSweepRunsItsSeeds checks that Sweep builds the same reports.
func TestShardedSweepMergesToUnsharded(t *testing.T) {
	spec := Spec{Sabotage: "IGNORE_CAUSES"}.Normalize()
	const first, last = 3, 34
	var outcomes []SeedOutcome
	whole, want := sweepJSON(t, SweepConfig{Spec: spec, First: first, Last: last, TraceDigest: true,
		Visit: func(o SeedOutcome) { outcomes = append(outcomes, o) }})
	if whole.Failed() == 0 || whole.Passed == 0 {
		t.Fatalf("want failing and passing seeds: %d failed of %d", whole.Failed(), whole.Runs)
	}
	for n := 1; n <= 64; n++ {
		var reports []*SweepReport
		var hashes [][]SeedHash
		for i := 1; i <= n; i++ {
			r, h := roundTrip(t, shardReport(spec, first, last, Shard{Index: i, Total: n}, true, outcomes))
			reports, hashes = append(reports, r), append(hashes, h)
		}
		merged, err := MergeSweeps(reports, hashes)
		if err != nil {
			t.Fatalf("n %d: %v", n, err)
		}
		if got := mustJSON(t, merged); got != want {
			t.Fatalf("n %d: the merged report differs from the unsharded one:\n%s\n%s", n, got, want)
		}
		if n > 1 { // leave out the shard of the first seed
			drop := first%n + 1
			partial, err := MergeSweeps(slices.Delete(slices.Clone(reports), drop-1, drop), slices.Delete(slices.Clone(hashes), drop-1, drop))
			if err != nil {
				t.Fatal(err)
			}
			if !partial.Interrupted || uint64(partial.Runs) != uint64(whole.Runs)-(Shard{drop, n}).SeedCount(first, last) {
				t.Fatalf("n %d without shard %d: %d runs, interrupted %v", n, drop, partial.Runs, partial.Interrupted)
			}
		}
	}
	a, ha := roundTrip(t, shardReport(spec, first, last, Shard{1, 2}, true, outcomes))
	if _, err := MergeSweeps([]*SweepReport{a, a}, [][]SeedHash{ha, ha}); err == nil {
		t.Fatal("merging one shard twice is not refused")
	}
}

// TestShardedSweepRunsItsSeeds: Sweep with a shard runs exactly the shard's seeds and reports
// what the shard's outcomes give.
func TestShardedSweepRunsItsSeeds(t *testing.T) {
	spec := Spec{Sabotage: "NO_FIFO"}.Normalize()
	var outcomes []SeedOutcome
	sweepJSON(t, SweepConfig{Spec: spec, First: 5, Last: 16, Visit: func(o SeedOutcome) { outcomes = append(outcomes, o) }})
	for _, sh := range []Shard{{1, 3}, {3, 3}, {2, 7}, {5, 64}} {
		var seen []uint64
		rep, got := sweepJSON(t, SweepConfig{Spec: spec, First: 5, Last: 16, Workers: 2, Shard: sh,
			Visit: func(o SeedOutcome) { seen = append(seen, o.Seed) }})
		if want := mustJSON(t, shardReport(spec, 5, 16, sh, false, outcomes)); got != want {
			t.Fatalf("shard %s:\n%s\nwant\n%s", sh, got, want)
		}
		for _, s := range seen {
			if !sh.ownsSeed(s) {
				t.Fatalf("shard %s ran seed %d", sh, s)
			}
		}
		if uint64(len(seen)) != sh.SeedCount(5, 16) || rep.Shard != sh.String() || rep.Interrupted {
			t.Fatalf("shard %s: ran %v, report shard %q, interrupted %v", sh, seen, rep.Shard, rep.Interrupted)
		}
	}
	if _, err := Sweep(context.Background(), SweepConfig{First: 1, Last: 2, Shard: Shard{3, 2}}); err == nil {
		t.Fatal("shard 3/2 is not refused")
	}
}

// shardReport builds the report of shard sh of first..last from the outcomes of the whole range.
func shardReport(spec Spec, first, last uint64, sh Shard, digest bool, outcomes []SeedOutcome) *SweepReport {
	r := newSweepReport(spec, first, last, digest)
	r.Shard, r.shard = sh.String(), sh
	for _, o := range outcomes {
		if sh.ownsSeed(o.Seed) {
			r.add(o, nil)
		}
	}
	r.finish()
	return r
}

// roundTrip returns r as a merge reads it back from a result file: its JSON form and hashes.
func roundTrip(t *testing.T, r *SweepReport) (*SweepReport, []SeedHash) {
	t.Helper()
	var back SweepReport
	if err := json.Unmarshal([]byte(mustJSON(t, r)), &back); err != nil {
		t.Fatal(err)
	}
	return &back, r.TraceHashes()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

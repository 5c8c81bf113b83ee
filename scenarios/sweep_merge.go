package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Merging the reports of a sharded sweep: shards own disjoint seeds (sweep_shard.go), so every
// count adds up, the failing seeds and failures are the union, and the trace digest is folded
// again over every seed's trace hash in seed order. The merged report of every shard of a range is
// the report of the unsharded sweep of that range, field for field.

// MergeSweeps merges the reports of shards of one sweep (same scenario, sabotage, seed range and
// substrate, compared with the model in all or none; disjoint shards) into the report of the seeds they ran. hashes[i] are reports[i]'s trace
// hashes (SweepReport.TraceHashes), needed when the reports carry a trace digest. The merge is
// interrupted when the reports do not cover every seed of the range. An error names the
// inconsistency: reports of different sweeps, a seed in two reports, counts that do not add up.
func MergeSweeps(reports []*SweepReport, hashes [][]SeedHash) (*SweepReport, error) {
	if len(reports) == 0 {
		return nil, errors.New("no reports to merge")
	}
	if len(hashes) != len(reports) {
		return nil, errors.New("one list of trace hashes per report")
	}
	first := reports[0]
	out := &SweepReport{Scenario: first.Scenario, Sabotage: first.Sabotage, FirstSeed: first.FirstSeed, LastSeed: first.LastSeed,
		FailedSeeds: []uint64{}, Failures: []SweepFailure{}, ViolationsByCriterion: map[spec.Criterion]int{},
		SeedsByCriterion: map[spec.Criterion]int{}, Exercised: newExercised()}
	if first.EligibleSeeds != nil {
		out.EligibleSeeds, out.CaughtEligible, out.FiredSeeds, out.CaughtFired = new(int), new(int), new(int), new(int)
	}
	out.Substrate = first.Substrate
	if first.ComparedSeeds != nil {
		out.ComparedSeeds, out.AgreedSeeds = new(int), new(int)
	}
	digest := first.TraceDigest != ""
	var all []SeedHash
	for i, r := range reports {
		if err := checkMergeable(first, r); err != nil {
			return nil, &ReportError{Index: i, Err: err}
		}
		out.Runs += r.Runs
		out.Passed += r.Passed
		out.Steps += r.Steps
		out.FailedSeeds = append(out.FailedSeeds, r.FailedSeeds...)
		out.Failures = append(out.Failures, r.Failures...)
		addCounts(out.ViolationsByCriterion, r.ViolationsByCriterion)
		addCounts(out.SeedsByCriterion, r.SeedsByCriterion)
		if out.EligibleSeeds != nil {
			*out.EligibleSeeds += *r.EligibleSeeds
			*out.CaughtEligible += *r.CaughtEligible
			*out.FiredSeeds += *r.FiredSeeds
			*out.CaughtFired += *r.CaughtFired
		}
		if out.ComparedSeeds != nil {
			*out.ComparedSeeds += *r.ComparedSeeds
			*out.AgreedSeeds += *r.AgreedSeeds
		}
		out.Exercised.merge(&r.Exercised)
		if digest {
			if len(hashes[i]) != r.Runs {
				return nil, fmt.Errorf("report %d: %d trace hashes for %d runs", i+1, len(hashes[i]), r.Runs)
			}
			all = append(all, hashes[i]...)
		}
	}
	slices.Sort(out.FailedSeeds)
	if i := duplicateIndex(out.FailedSeeds); i >= 0 {
		return nil, fmt.Errorf("seed %d failed in two reports: shards overlap", out.FailedSeeds[i])
	}
	if uint64(out.Runs) > out.LastSeed-out.FirstSeed+1 {
		return nil, fmt.Errorf("%d runs merged over %d seeds: shards overlap", out.Runs, out.LastSeed-out.FirstSeed+1)
	}
	out.finish()
	out.Interrupted = uint64(out.Runs) < out.LastSeed-out.FirstSeed+1
	if digest {
		d, err := foldHashes(all)
		if err != nil {
			return nil, err
		}
		out.digest, out.hashes = d, all
		out.TraceDigest = trace.FormatHash(d.sum)
	}
	return out, nil
}

// ReportError is MergeSweeps's error about one report: Index is its place in the list given.
type ReportError struct {
	Index int
	Err   error
}

func (e *ReportError) Error() string { return fmt.Sprintf("report %d: %v", e.Index+1, e.Err) }

func (e *ReportError) Unwrap() error { return e.Err }

// checkMergeable returns an error when r is not a shard of the sweep first is, or its counts do
// not add up.
func checkMergeable(first, r *SweepReport) error {
	switch {
	case r.Scenario != first.Scenario || r.Sabotage != first.Sabotage:
		return fmt.Errorf("scenario %s, sabotage %s: another sweep than scenario %s, sabotage %s", r.Scenario, r.Sabotage, first.Scenario, first.Sabotage)
	case r.FirstSeed != first.FirstSeed || r.LastSeed != first.LastSeed:
		return fmt.Errorf("seeds %d-%d: another range than %d-%d", r.FirstSeed, r.LastSeed, first.FirstSeed, first.LastSeed)
	case r.Runs < 0 || r.Passed < 0 || r.Passed+len(r.FailedSeeds) != r.Runs || len(r.Failures) != len(r.FailedSeeds):
		return fmt.Errorf("%d runs, %d passed, %d failed seeds, %d failures: the counts do not add up", r.Runs, r.Passed, len(r.FailedSeeds), len(r.Failures))
	case (r.EligibleSeeds == nil) != (first.EligibleSeeds == nil) || r.EligibleSeeds != nil && (r.CaughtEligible == nil || r.FiredSeeds == nil || r.CaughtFired == nil):
		return errors.New("the eligibility counts are missing")
	case (r.TraceDigest == "") != (first.TraceDigest == ""):
		return errors.New("one report has a trace digest and another not")
	case r.Substrate != first.Substrate:
		return fmt.Errorf("substrate %q: another substrate than %q", orModel(r.Substrate), orModel(first.Substrate))
	case (r.ComparedSeeds == nil) != (first.ComparedSeeds == nil):
		return errors.New("one report was compared with the model and another not")
	case r.ComparedSeeds != nil && (r.AgreedSeeds == nil || *r.AgreedSeeds < 0 || *r.AgreedSeeds > *r.ComparedSeeds || *r.ComparedSeeds > r.Runs):
		return errors.New("the compared and agreed seeds are missing or do not add up")
	case r.ComparedSeeds != nil && *r.ComparedSeeds-*r.AgreedSeeds > r.SeedsByCriterion[CritModelDivergence]:
		return fmt.Errorf("%d compared seeds, %d agreed, but %d seeds failed with %s: a seed that disagreed fails with it",
			*r.ComparedSeeds, *r.AgreedSeeds, r.SeedsByCriterion[CritModelDivergence], CritModelDivergence)
	}
	return checkFailures(r)
}

// checkFailures returns an error when r's failing seeds, failures and counts by criterion
// contradict each other: every failing seed lies in the range and has one failure, each
// criterion's seed count is the number of failures that name it and at most its violation count,
// and the sabotage mode's caught seeds are failing seeds among its eligible (or fired) ones.
func checkFailures(r *SweepReport) error {
	for _, s := range r.FailedSeeds {
		if s < r.FirstSeed || s > r.LastSeed {
			return fmt.Errorf("failed seed %d is outside the seed range %d-%d", s, r.FirstSeed, r.LastSeed)
		}
	}
	failed := slices.Sorted(slices.Values(r.FailedSeeds))
	if i := duplicateIndex(failed); i >= 0 {
		return fmt.Errorf("failed seed %d is listed twice", failed[i])
	}
	named := map[spec.Criterion]int{}
	for _, f := range r.Failures {
		if _, ok := slices.BinarySearch(failed, f.Seed); !ok {
			return fmt.Errorf("a failure of seed %d, which is not among the failed seeds", f.Seed)
		}
		if len(f.Criteria) == 0 || f.Criteria[0] != f.Criterion {
			return fmt.Errorf("the failure of seed %d names criterion %s first, but its criteria are %v", f.Seed, f.Criterion, f.Criteria)
		}
		for _, c := range f.Criteria {
			named[c]++
		}
	}
	for _, c := range slices.Sorted(maps.Keys(r.SeedsByCriterion)) {
		n, v := r.SeedsByCriterion[c], r.ViolationsByCriterion[c]
		switch {
		case n != named[c]:
			return fmt.Errorf("seeds_by_criterion %s is %d, but %d failures name %s", c, n, named[c], c)
		case v < n:
			return fmt.Errorf("%s: %d violations in %d seeds: a seed counted under a criterion has a violation of it", c, v, n)
		}
	}
	for _, c := range slices.Sorted(maps.Keys(named)) {
		if _, ok := r.SeedsByCriterion[c]; !ok {
			return fmt.Errorf("seeds_by_criterion has no %s, but %d failures name it", c, named[c])
		}
	}
	for _, c := range slices.Sorted(maps.Keys(r.ViolationsByCriterion)) {
		if v := r.ViolationsByCriterion[c]; v < 0 || v > 0 && r.SeedsByCriterion[c] == 0 {
			return fmt.Errorf("violations_by_criterion %s is %d, but seeds_by_criterion %s is %d", c, v, c, r.SeedsByCriterion[c])
		}
	}
	if r.EligibleSeeds != nil {
		caught := []struct {
			name          string
			seeds, caught int
		}{{"eligible", *r.EligibleSeeds, *r.CaughtEligible}, {"fired", *r.FiredSeeds, *r.CaughtFired}}
		for _, c := range caught {
			if c.caught < 0 || c.caught > c.seeds || c.seeds > r.Runs || c.caught > len(r.FailedSeeds) {
				return fmt.Errorf("%d %s seeds, %d of them caught, in %d runs with %d failed: caught seeds are failed %s ones",
					c.seeds, c.name, c.caught, r.Runs, len(r.FailedSeeds), c.name)
			}
		}
	}
	if r.Steps < 0 {
		return fmt.Errorf("%d steps: expected a count", r.Steps)
	}
	return nil
}

// CheckShards returns an error when r, a report of the shards indexes of total, holds a seed
// none of them owns or more runs than they have seeds.
func (r *SweepReport) CheckShards(indexes []int, total int) error {
	if r.FirstSeed > r.LastSeed {
		return fmt.Errorf("seeds %d-%d: an empty range", r.FirstSeed, r.LastSeed)
	}
	owns := func(seed uint64) bool {
		return slices.ContainsFunc(indexes, func(i int) bool { return Shard{i, total}.ownsSeed(seed) })
	}
	var seeds uint64
	for _, i := range indexes {
		seeds += Shard{i, total}.SeedCount(r.FirstSeed, r.LastSeed)
	}
	if r.Runs < 0 || uint64(r.Runs) > seeds {
		return fmt.Errorf("%d runs, but seeds %d-%d have %d in %s", r.Runs, r.FirstSeed, r.LastSeed, seeds, shardNames(indexes, total))
	}
	for _, s := range r.FailedSeeds {
		if !owns(s) {
			return fmt.Errorf("failed seed %d is not in %s (seed s is in shard s mod %d + 1)", s, shardNames(indexes, total), total)
		}
	}
	return nil
}

// shardNames renders shard indexes of total as "shard 2 of 4" or "shards 1, 3 of 4".
func shardNames(indexes []int, total int) string {
	parts := make([]string, len(indexes))
	for i, x := range indexes {
		parts[i] = strconv.Itoa(x)
	}
	if len(parts) == 1 {
		return fmt.Sprintf("shard %s of %d", parts[0], total)
	}
	return fmt.Sprintf("shards %s of %d", strings.Join(parts, ", "), total)
}

// orModel names the substrate of a report ("" is the model's).
func orModel(substrate string) string {
	if substrate == "" {
		return SubstrateModel
	}
	return substrate
}

// addCounts adds the counts of from into to.
func addCounts(to, from map[spec.Criterion]int) {
	for c, n := range from {
		to[c] += n
	}
}

// duplicateIndex returns the index of the first element of sorted xs equal to its predecessor, or -1.
func duplicateIndex(xs []uint64) int {
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[i-1] {
			return i
		}
	}
	return -1
}

// foldHashes sorts hashes by seed and folds them into a trace digest, as a sweep does.
func foldHashes(hashes []SeedHash) (*traceDigest, error) {
	slices.SortFunc(hashes, func(a, b SeedHash) int { return cmp.Compare(a.Seed, b.Seed) })
	d := newTraceDigest()
	for i, h := range hashes {
		if i > 0 && hashes[i-1].Seed == h.Seed {
			return nil, fmt.Errorf("seed %d has two trace hashes: shards overlap", h.Seed)
		}
		v, err := strconv.ParseUint(h.Hash, 16, 64)
		if err != nil || len(h.Hash) != 16 {
			return nil, fmt.Errorf("seed %d: trace hash %q is not 16 hex digits", h.Seed, h.Hash)
		}
		d.add(h.Seed, v)
	}
	return d, nil
}

package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// SweepReport is the summary of a sweep: how many runs, which seeds failed and with what, the
// violations by criterion, what the runs exercised in total and, under a sabotage mode, how many
// seeds were eligible and how many of those were caught. Its JSON form is `simrun sweep --json`.
type SweepReport struct {
	Scenario  string `json:"scenario"`
	Sabotage  string `json:"sabotage"` // "NONE" for the honest engine and host
	FirstSeed uint64 `json:"first_seed"`
	LastSeed  uint64 `json:"last_seed"`
	// Shard is the shard swept ("i/n", sweep_shard.go); empty for the whole range.
	Shard  string `json:"shard,omitempty"`
	Runs   int    `json:"runs"` // seeds finished (fewer than the range or shard when interrupted)
	Passed int    `json:"passed"`
	// FailedSeeds lists every failing seed, sorted; Failures gives each with its first
	// violation's criterion and step and the command that replays it, shortest first (by the
	// step of the first violation, then by seed).
	FailedSeeds []uint64       `json:"failed_seeds"`
	Failures    []SweepFailure `json:"failures"`
	// ViolationsByCriterion counts violations; SeedsByCriterion counts the seeds with at least
	// one violation of the criterion (a seed may count under several).
	ViolationsByCriterion map[spec.Criterion]int `json:"violations_by_criterion"`
	SeedsByCriterion      map[spec.Criterion]int `json:"seeds_by_criterion"`
	// EligibleSeeds and CaughtEligible are set under a sabotage mode: the number of seeds whose
	// settings switch on a fault class the mode needs (swarm.Settings.Eligible), and how many of
	// those failed.
	EligibleSeeds  *int `json:"eligible_seeds,omitempty"`
	CaughtEligible *int `json:"caught_eligible,omitempty"`
	// FiredSeeds and CaughtFired count the seeds where an action of a needed fault class was
	// actually taken (SeedOutcome.Fired), and how many of those failed.
	FiredSeeds  *int `json:"fired_seeds,omitempty"`
	CaughtFired *int `json:"caught_fired,omitempty"`
	// Steps is the total of the runs' scheduler steps; Exercised totals their stats.
	Steps       int64     `json:"steps"`
	Exercised   Exercised `json:"exercised"`
	Interrupted bool      `json:"interrupted"`
	// TraceDigest is set when the sweep hashed its traces (SweepConfig.TraceDigest): 16 hex digits
	// of an FNV-1a digest of every finished seed and its trace hash, folded in seed order. Two
	// builds that run every seed alike give the same digest, whatever -j; a difference in any
	// seed's trace changes it.
	TraceDigest string `json:"trace_digest,omitempty"`
	// Substrate is the live substrate the seeds ran on (empty for the model); ComparedSeeds and
	// AgreedSeeds, set when they were compared with the model, count the compared seeds and those
	// on which the two agreed throughout.
	Substrate string `json:"substrate,omitempty"`
	// Without lists the criteria the runs did not judge (SweepConfig.Without).
	Without       []spec.Criterion `json:"without,omitempty"`
	ComparedSeeds *int             `json:"compared_seeds,omitempty"`
	AgreedSeeds   *int             `json:"agreed_seeds,omitempty"`

	live   Live
	spec   Spec
	shard  Shard
	digest *traceDigest // nil unless the sweep hashes its traces
	// hashes are the finished seeds' trace hashes in seed order, kept with the digest so shards'
	// digests can be folded again into the whole range's (MergeSweeps).
	hashes []SeedHash
}

// SeedHash is one seed's trace hash.
type SeedHash struct {
	Seed uint64 `json:"seed"`
	Hash string `json:"hash"`
}

// traceDigest folds (seed, trace hash) pairs into one FNV-1a 64-bit digest; the fold order is
// the order of the calls, which the sweep keeps to seed order.
type traceDigest struct{ sum uint64 }

func newTraceDigest() *traceDigest { return &traceDigest{sum: 14695981039346656037} }

// add folds one seed and its trace hash in, as 16 little-endian bytes.
func (d *traceDigest) add(seed, hash uint64) {
	for _, v := range [2]uint64{seed, hash} {
		for i := 0; i < 64; i += 8 {
			d.sum ^= (v >> i) & 0xff
			d.sum *= 1099511628211
		}
	}
}

// SweepFailure is one failing seed: its first violation's criterion and step, every criterion it
// broke, the first violation in full and the command that replays the seed.
type SweepFailure struct {
	Seed      uint64         `json:"seed"`
	Criterion spec.Criterion `json:"criterion"`
	// Step is the first violation's step: how long a reproduction is (0 for a panic).
	Step     int              `json:"step"`
	Criteria []spec.Criterion `json:"criteria"`
	Detail   string           `json:"detail"`
	Replay   string           `json:"replay"`
}

func newSweepReport(sc Spec, first, last uint64, traceDigest bool) *SweepReport {
	r := &SweepReport{Scenario: sc.Scenario, Sabotage: noneName(sc.Sabotage), FirstSeed: first, LastSeed: last,
		FailedSeeds: []uint64{}, Failures: []SweepFailure{},
		ViolationsByCriterion: map[spec.Criterion]int{}, SeedsByCriterion: map[spec.Criterion]int{},
		Exercised: newExercised(), spec: sc}
	if sc.Sabotage != "" {
		r.EligibleSeeds, r.CaughtEligible = new(int), new(int)
		r.FiredSeeds, r.CaughtFired = new(int), new(int)
	}
	if traceDigest {
		r.digest = newTraceDigest()
	}
	return r
}

// add folds one finished seed into the report and hands it to visit.
func (r *SweepReport) add(o SeedOutcome, visit func(SeedOutcome)) {
	r.Runs++
	r.Steps += int64(o.Steps)
	if r.digest != nil {
		r.digest.add(o.Seed, o.TraceHash)
		r.hashes = append(r.hashes, SeedHash{o.Seed, trace.FormatHash(o.TraceHash)})
	}
	r.Exercised.add(o.Stats)
	for _, v := range o.Violations {
		r.ViolationsByCriterion[v.Criterion]++
	}
	for _, c := range o.Criteria {
		r.SeedsByCriterion[c]++
	}
	if r.ComparedSeeds != nil && o.Compared {
		*r.ComparedSeeds++
		if !slices.Contains(o.Criteria, CritModelDivergence) {
			*r.AgreedSeeds++
		}
	}
	if r.EligibleSeeds != nil {
		countIf(o.Eligible, o.Failed(), r.EligibleSeeds, r.CaughtEligible)
		countIf(o.Fired, o.Failed(), r.FiredSeeds, r.CaughtFired)
	}
	if !o.Failed() {
		r.Passed++
	} else {
		spec := r.spec
		spec.Seed = o.Seed
		r.FailedSeeds = append(r.FailedSeeds, o.Seed)
		r.Failures = append(r.Failures, SweepFailure{Seed: o.Seed, Criterion: o.Criteria[0], Step: o.Violations[0].Step,
			Criteria: o.Criteria, Detail: o.Violations[0].String(), Replay: RerunCommand(spec) + r.live.Flags()})
	}
	if visit != nil {
		visit(o)
	}
}

// countIf counts a seed in *seeds when in is true, and in *caught too when it failed.
func countIf(in, failed bool, seeds, caught *int) {
	if in {
		*seeds++
		if failed {
			*caught++
		}
	}
}

// finish sorts the failing seeds, and the failures shortest first (an interrupted sweep may add
// them out of order).
func (r *SweepReport) finish() {
	slices.Sort(r.FailedSeeds)
	slices.SortFunc(r.Failures, compareFailures)
	if r.digest != nil {
		r.TraceDigest = trace.FormatHash(r.digest.sum)
	}
}

// compareFailures orders failures shortest first: by the first violation's step, then by seed.
func compareFailures(a, b SweepFailure) int {
	if c := cmp.Compare(a.Step, b.Step); c != 0 {
		return c
	}
	return cmp.Compare(a.Seed, b.Seed)
}

// TraceHashes returns every finished seed's trace hash in seed order (nil unless the sweep hashed
// its traces): what a shard's result keeps so MergeSweeps can fold the whole range's digest.
func (r *SweepReport) TraceHashes() []SeedHash { return r.hashes }

// SeedCount returns the number of seeds the sweep was to run: the range's, or its shard's.
func (r *SweepReport) SeedCount() uint64 { return r.shard.SeedCount(r.FirstSeed, r.LastSeed) }

// Failed returns the number of failing seeds.
func (r *SweepReport) Failed() int { return len(r.FailedSeeds) }

// Criteria returns the criteria that failed some seed, sorted by name.
func (r *SweepReport) Criteria() []spec.Criterion {
	out := make([]spec.Criterion, 0, len(r.SeedsByCriterion))
	for c := range r.SeedsByCriterion {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// RerunCommand is the command that repeats one run of spec from its seed, run from the
// repository root: `go run ./cmd/simrun --seed N --scenario S [--sabotage M] [--steps N]
// [--processes N]`.
func RerunCommand(spec Spec) string {
	spec = spec.Normalize()
	cmd := fmt.Sprintf("go run ./cmd/simrun --seed %d --scenario %s", spec.Seed, spec.Scenario)
	if spec.Sabotage != "" {
		cmd += " --sabotage " + spec.Sabotage
	}
	if spec.Steps > 0 {
		cmd += fmt.Sprintf(" --steps %d", spec.Steps)
	}
	if spec.Processes > 0 {
		cmd += fmt.Sprintf(" --processes %d", spec.Processes)
	}
	return cmd
}

// ShellQuote returns s as one word of a POSIX shell command line: as it is when it holds only
// characters no shell reads specially, else in single quotes (a single quote inside closes them,
// is escaped with a backslash and opens them again), so a printed command that names a path or a
// broker address runs as printed.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// noneName writes the honest sabotage "" as "NONE".
func noneName(sabotage string) string {
	if sabotage == "" {
		return "NONE"
	}
	return sabotage
}

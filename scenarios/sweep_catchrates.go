package scenarios

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Catch rates: for every sabotage mode, the share of seeds of
// its scenario (CatchRateScenario: random for the engine's and the host's modes, session for the
// session tiers') on which the simulator finds a violation, over all seeds and over the eligible
// seeds (whose settings switch on a fault class the mode needs, swarm.Settings.Eligible), next to
// the protocol's own figure from SPEC §6.2. `simrun sweep --catch-rates` writes the table to
// results/catch-rates.md and results/catch-rates.json; TestCatchRateFloors holds every mode to
// its count over the table's first FloorSeeds seeds.

// FloorSeeds is the size of the floor range: a calibration records each mode's catches over its
// first FloorSeeds seeds (CatchRate.FloorCaught), which go test sweeps again.
const FloorSeeds = 200

// FloorSlack is how many of the floor range's seeds a mode may lose against its calibration
// before TestCatchRateFloors fails: 1% of the range, room for a change that moves a seed or two
// without weakening the oracle, far less than a weaker checker loses.
const FloorSlack = 2

// ProtocolCatch is the protocol's own measured catch for a mode (SPEC §6.2): caught of seeds.
type ProtocolCatch struct {
	Caught int     `json:"caught"`
	Seeds  int     `json:"seeds"`
	Rate   float64 `json:"rate"`
}

// protocolCatches are the post-D115 figures of SPEC §6.2 ("of 120 seeds ..., IGNORE_RECREATION
// 177 of 300"; DELIVER_PAST_DEAD_HOLDS "reached by no random seed", taken over its 300 seeds).
var protocolCatches = map[string]ProtocolCatch{
	"IGNORE_CAUSES":           {Caught: 74, Seeds: 120},
	"NO_FIFO":                 {Caught: 14, Seeds: 120},
	"REDELIVER_REFEEDS":       {Caught: 83, Seeds: 120},
	"UNDECODABLE_AS_ABSENT":   {Caught: 87, Seeds: 120},
	"SKIP_RECEIPT_MERGE":      {Caught: 83, Seeds: 120},
	"DROP_HELD":               {Caught: 59, Seeds: 120},
	"IGNORE_REMOVED_CHANNELS": {Caught: 19, Seeds: 120},
	"SILENT_DROP":             {Caught: 29, Seeds: 120},
	"OVEREXPRESS":             {Caught: 93, Seeds: 120},
	"IGNORE_RECREATION":       {Caught: 177, Seeds: 300},
	"RESET_PAST_LOG_START":    {Caught: 68, Seeds: 120},
	"DELIVER_PAST_DEAD_HOLDS": {Caught: 0, Seeds: 300},
}

// ProtocolCatchOf returns the protocol's own figure for a mode, if SPEC §6.2 gives one.
func ProtocolCatchOf(mode string) (ProtocolCatch, bool) {
	p, ok := protocolCatches[mode]
	if ok {
		p.Rate = float64(p.Caught) / float64(p.Seeds)
	}
	return p, ok
}

// exemptReasons says why a mode is exempt from the catch-rate goals.
var exemptReasons = map[string]string{
	"TREAT_COVERED_FEED_AS_REPLAY": "disarms COVERED_POSITION_FED (SPEC §2.2 step 5), an invariant guard that no host " +
		"keeping the in-order feed can reach, so no sweep can catch it; a rapid property shows the guarded " +
		"condition unreachable and a test stages the honest and sabotaged engines side by side instead",
}

// CatchRate is one mode's row of the table.
type CatchRate struct {
	Mode string `json:"mode"`
	// Scenario is the scenario swept (CatchRateScenario); empty in tables written before rows
	// named it, which swept CatchRateTable.Scenario.
	Scenario       string  `json:"scenario,omitempty"`
	Runs           int     `json:"runs"`
	Caught         int     `json:"caught"`
	Rate           float64 `json:"rate"`
	Eligible       int     `json:"eligible"`
	CaughtEligible int     `json:"caught_eligible"`
	EligibleRate   float64 `json:"eligible_rate"`
	// Fired counts the seeds where a needed fault actually fired, CaughtFired those caught: the
	// checkers' rate once the generator has done its part.
	Fired       int     `json:"fired"`
	CaughtFired int     `json:"caught_fired"`
	FiredRate   float64 `json:"fired_rate"`
	// Protocol is SPEC §6.2's figure (nil when it gives none); BeatsProtocol says our rate over
	// all seeds is above it; HalfOfEligible says at least half the eligible seeds were caught.
	Protocol       *ProtocolCatch `json:"protocol,omitempty"`
	BeatsProtocol  bool           `json:"beats_protocol"`
	HalfOfEligible bool           `json:"half_of_eligible"`
	// CaughtBy counts the seeds on which each criterion fired (never CritPanic: a panic is no
	// catch).
	CaughtBy map[spec.Criterion]int `json:"caught_by"`
	// Panics counts the seeds whose run panicked, PanicSeeds lists them: a simulator crash is a
	// bug in the simulator or the generator, not the checkers catching the mode, so it is left
	// out of every caught count (a generator bug can never inflate a rate).
	Panics     int      `json:"panics"`
	PanicSeeds []uint64 `json:"panic_seeds,omitempty"`
	// Exempt, when set, says why the mode is exempt from the goals.
	Exempt string `json:"exempt,omitempty"`
	// FloorSeeds and FloorCaught are the floor range (the first FloorSeeds seeds of the sweep,
	// fewer when the sweep is shorter) and the seeds of it caught (panics excluded): what
	// TestCatchRateFloors sweeps again and holds the mode to.
	FloorSeeds  int `json:"floor_seeds"`
	FloorCaught int `json:"floor_caught"`
}

// CatchRateTable is the whole calibration: the swept range, how it was made and one row per mode.
// Scenario is the default scenario swept; each row names its own.
type CatchRateTable struct {
	Scenario    string      `json:"scenario"`
	FirstSeed   uint64      `json:"first_seed"`
	LastSeed    uint64      `json:"last_seed"`
	Command     string      `json:"command"`
	Commit      string      `json:"commit"`
	Machine     string      `json:"machine"`
	Seconds     float64     `json:"elapsed_s"`
	Interrupted bool        `json:"interrupted"`
	Modes       []CatchRate `json:"modes"`
}

// CatchRateModes returns every sabotage mode a calibration sweeps: every mode of every tier, in
// the registry's order (spec.SabotageModes).
func CatchRateModes() []string {
	var names []string
	for _, m := range spec.SabotageModes() {
		names = append(names, m.Name)
	}
	return names
}

// CatchRateScenario returns the scenario a mode's catch rate is measured over: the session
// scenario for a session tier's mode (its tiers act only where there are sessions, which the
// random scenario has on a minority of seeds), the random scenario for every other mode.
func CatchRateScenario(mode string) string {
	if m, ok := spec.LookupSabotage(mode); ok && m.Tier == spec.TierSession {
		return SessionName
	}
	return RandomName
}

// MeasureCatchRate sweeps one mode over seeds first..last of its scenario (CatchRateScenario)
// and returns its row; interrupted says ctx stopped the sweep early.
func MeasureCatchRate(ctx context.Context, mode string, first, last uint64, workers int,
	progress func(done, failed int)) (row CatchRate, interrupted bool, err error) {
	spec := Spec{Scenario: CatchRateScenario(mode), Sabotage: mode}
	rep, err := Sweep(ctx, SweepConfig{Spec: spec, First: first, Last: last, Workers: workers,
		Progress: progress})
	if err != nil {
		return CatchRate{}, false, err
	}
	return catchRateOf(mode, rep), rep.Interrupted, nil
}

// catchRateOf turns a sabotage sweep's report into the mode's row. Seeds whose run panicked
// failed the sweep but are no catch: they are counted apart (CatchRate.Panics) and taken out of
// the caught counts and of CaughtBy.
func catchRateOf(mode string, rep *SweepReport) CatchRate {
	panics, panicsEligible := panicSeeds(rep)
	caughtBy := maps.Clone(rep.SeedsByCriterion)
	delete(caughtBy, CritPanic)
	row := CatchRate{Mode: mode, Scenario: rep.Scenario, Runs: rep.Runs, Caught: rep.Failed() - len(panics),
		Eligible: *rep.EligibleSeeds, CaughtEligible: *rep.CaughtEligible - panicsEligible, Fired: *rep.FiredSeeds,
		CaughtFired: *rep.CaughtFired, CaughtBy: caughtBy, Exempt: exemptReasons[mode],
		Panics: len(panics), PanicSeeds: panics}
	row.FloorSeeds = int(min(uint64(FloorSeeds), rep.LastSeed-rep.FirstSeed+1))
	for _, seed := range rep.FailedSeeds {
		if seed < rep.FirstSeed+uint64(row.FloorSeeds) && !slices.Contains(panics, seed) {
			row.FloorCaught++
		}
	}
	row.Rate = ratio(row.Caught, row.Runs)
	row.EligibleRate = ratio(row.CaughtEligible, row.Eligible)
	row.FiredRate = ratio(row.CaughtFired, row.Fired)
	row.HalfOfEligible = row.Eligible > 0 && 2*row.CaughtEligible >= row.Eligible
	if p, ok := ProtocolCatchOf(mode); ok {
		row.Protocol = &p
		row.BeatsProtocol = row.Rate > p.Rate
	}
	return row
}

// panicSeeds returns the seeds of rep whose run panicked, sorted, and how many of them are
// eligible for the swept mode. A panicked run has no stats, so it never counts as fired
// (RunSeed); its eligibility depends on its settings alone and is derived again from the seed.
func panicSeeds(rep *SweepReport) (seeds []uint64, eligible int) {
	for _, f := range rep.Failures {
		if !slices.Contains(f.Criteria, CritPanic) {
			continue
		}
		seeds = append(seeds, f.Seed)
		spec := rep.spec
		spec.Seed = f.Seed
		if prep, err := spec.Prepare(); err == nil && prep.Settings.Eligible(spec.Sabotage) {
			eligible++
		}
	}
	return seeds, eligible
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Criteria returns the criteria that caught the mode, most seeds first (ties by name).
func (r CatchRate) Criteria() []spec.Criterion {
	out := make([]spec.Criterion, 0, len(r.CaughtBy))
	for c := range r.CaughtBy {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b spec.Criterion) int {
		if d := r.CaughtBy[b] - r.CaughtBy[a]; d != 0 {
			return d
		}
		if a < b {
			return -1
		}
		return 1
	})
	return out
}

// JSON returns the table as indented JSON.
func (t *CatchRateTable) JSON() []byte {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	return append(b, '\n')
}

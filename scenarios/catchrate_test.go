package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// catchRatesPath is the committed calibration (simrun sweep --catch-rates --seeds 1-1000).
const catchRatesPath = "../results/catch-rates.json"

// TestCatchRateFloors: every sabotage mode is still caught on its calibration's floor range
// (the first FloorSeeds seeds of results/catch-rates.json's sweep, of the mode's scenario:
// CatchRateScenario) on at least as many seeds as the calibration caught there, less FloorSlack.
// The seeds are fixed and a seed's run does not depend on the workers, so the test is
// deterministic: it fails when a change to the generator, the world or the checkers loses
// catches, not by chance. An exempt mode (its guard is unreachable) must stay uncaught: a catch
// would mean the reason for its exemption is wrong.
func TestCatchRateFloors(t *testing.T) {
	const regen = "regenerate: go run ./cmd/simrun sweep --catch-rates --seeds 1-1000 -j 2 --out results"
	table, err := readCatchRates(catchRatesPath)
	if err != nil {
		t.Fatalf("%v (%s)", err, regen)
	}
	for _, mode := range CatchRateModes() {
		measured, ok := catchRateRow(table, mode)
		if !ok {
			t.Errorf("%s: no row in %s (%s)", mode, catchRatesPath, regen)
			continue
		}
		if measured.FloorSeeds == 0 {
			t.Errorf("%s: the row in %s has no floor range (%s)", mode, catchRatesPath, regen)
			continue
		}
		last := table.FirstSeed + uint64(measured.FloorSeeds) - 1
		got, _, err := MeasureCatchRate(context.Background(), mode, table.FirstSeed, last, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-28s caught %3d/%d seeds %d-%d, calibration %d", mode, got.Caught, got.Runs, table.FirstSeed, last,
			measured.FloorCaught)
		if got.Panics > 0 {
			t.Errorf("%s: the simulator panicked on seeds %v (a bug, never a catch)", mode, got.PanicSeeds)
		}
		if measured.Exempt != "" {
			if got.Caught > 0 {
				t.Errorf("%s is exempt (%s) but was caught on %d seeds: revisit the exemption", mode, measured.Exempt, got.Caught)
			}
			continue
		}
		if measured.FloorCaught == 0 {
			t.Errorf("%s: the calibration caught it on no seed of its floor range, so it has no floor", mode)
		}
		if floor := measured.FloorCaught - FloorSlack; got.Caught < floor {
			t.Errorf("%s: caught on %d of seeds %d-%d, below the floor %d (the calibration's %d less %d): "+
				"the oracle or the generator got weaker (if a change only moved catches around, %s and say why in the commit)",
				mode, got.Caught, table.FirstSeed, last, floor, measured.FloorCaught, FloorSlack, regen)
		}
	}
}

// TestCatchRatePanicIsNoCatch: a seed whose run panicked fails the sweep but is no catch: the row
// counts it under Panics, and neither the caught counts (all, eligible) nor CaughtBy include it,
// so a simulator or generator bug can never inflate a catch rate.
func TestCatchRatePanicIsNoCatch(t *testing.T) {
	sc := Spec{Scenario: RandomName, Sabotage: "NO_FIFO"}.Normalize()
	rep := newSweepReport(sc, 1, 3, false)
	caught := SeedOutcome{Seed: 1, Verdict: "violation", Criteria: []spec.Criterion{spec.CritS3},
		Violations: []spec.Violation{{Criterion: spec.CritS3, Process: 0}}, Eligible: true, Fired: true}
	crashed := SeedOutcome{Seed: 2, Verdict: "panic", Criteria: []spec.Criterion{CritPanic},
		Violations: []spec.Violation{{Criterion: CritPanic, Process: -1, Detail: "boom"}}, Eligible: true}
	passed := SeedOutcome{Seed: 3, Verdict: "pass", Eligible: true, Fired: true}
	for _, o := range []SeedOutcome{caught, crashed, passed} {
		rep.add(o, nil)
	}
	rep.finish()
	if rep.Failed() != 2 {
		t.Fatalf("the sweep counts %d failed seeds, want 2 (the violation and the panic)", rep.Failed())
	}
	row := catchRateOf("NO_FIFO", rep)
	if row.Caught != 1 || row.CaughtEligible != 1 || row.CaughtFired != 1 || row.Eligible != 3 {
		t.Errorf("caught %d/%d, eligible %d/%d, fired %d/%d: want 1/3, 1/3, 1/2", row.Caught, row.Runs,
			row.CaughtEligible, row.Eligible, row.CaughtFired, row.Fired)
	}
	if row.Panics != 1 || !slices.Equal(row.PanicSeeds, []uint64{2}) {
		t.Errorf("panics %d on seeds %v, want 1 on [2]", row.Panics, row.PanicSeeds)
	}
	if _, ok := row.CaughtBy[CritPanic]; ok || row.CaughtBy[spec.CritS3] != 1 {
		t.Errorf("caught by %v, want S3 1 and no PANIC", row.CaughtBy)
	}
	if md := string((&CatchRateTable{Scenario: RandomName, Modes: []CatchRate{row}}).Markdown()); !strings.Contains(md, "panicked on 1 seeds") {
		t.Errorf("the markdown table does not report the panic:\n%s", md)
	}
}

// readCatchRates reads a table written by CatchRateTable.JSON; errors name the file.
func readCatchRates(path string) (*CatchRateTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t CatchRateTable
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// catchRateRow returns table's row for a mode.
func catchRateRow(table *CatchRateTable, mode string) (CatchRate, bool) {
	for _, r := range table.Modes {
		if r.Mode == mode {
			return r, true
		}
	}
	return CatchRate{}, false
}

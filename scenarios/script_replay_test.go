package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestRecordedScriptReproducesRun checks that a run's recorded script (RunOptions.RecordScript),
// replayed as the scenario's Script with the same settings and seed, reproduces the chosen run:
// the same committed deliveries per process and the same step counts. The shrinker and scenario
// files rely on it.
func TestRecordedScriptReproducesRun(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		chosen, replayed := chosenAndReplayed(t, Spec{Seed: seed})
		if err := sameRecordedRun(chosen, replayed); err != nil {
			t.Errorf("seed %d: replaying the recorded script (%d actions): %v", seed, len(chosen.Script), err)
		}
	}
}

// chosenAndReplayed runs spec with its seeded chooser, recording the script, then runs the
// recorded script with a fresh chooser of the same seed.
func chosenAndReplayed(t *testing.T, spec Spec) (chosen, replayed *spec.Result) {
	t.Helper()
	prep, err := spec.Prepare()
	if err != nil {
		t.Fatalf("%+v: %v", spec, err)
	}
	opts := prep.Options
	opts.RecordScript = true
	chosen = sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(spec.Seed), opts)
	if len(chosen.Script) == 0 {
		t.Fatalf("seed %d: the chosen run recorded no script", spec.Seed)
	}
	scn := *prep.Scenario
	scn.Script = chosen.Script
	replayed = sim.Run(&scn, prep.Settings, choose.NewRandom(spec.Seed), prep.Options)
	return chosen, replayed
}

// sameRecordedRun names the first difference between two runs' deliveries and step counts, or is nil.
func sameRecordedRun(a, b *spec.Result) error {
	if a.Stats.SafetySteps != b.Stats.SafetySteps || a.Steps != b.Steps {
		return fmt.Errorf("steps %d (safety %d) chosen, %d (safety %d) replayed",
			a.Steps, a.Stats.SafetySteps, b.Steps, b.Stats.SafetySteps)
	}
	if len(a.Deliveries) != len(b.Deliveries) {
		return fmt.Errorf("%d processes chosen, %d replayed", len(a.Deliveries), len(b.Deliveries))
	}
	for p := range a.Deliveries {
		if !slices.Equal(a.Deliveries[p], b.Deliveries[p]) {
			return fmt.Errorf("process %d delivered %v chosen, %v replayed", p, a.Deliveries[p], b.Deliveries[p])
		}
	}
	return nil
}

// TestRecordedScriptFileRoundTrip checks that a recorded script survives the scenario file format
// (Format, then ParseFile): the parsed script equals the recorded one, so the transaction record
// counts (records=N), stamped observations of deleted or replaced incarnations (observe=T#N/...)
// and delete-records steps that found nothing to truncate (a bare delete-records) are kept, and
// running it reproduces the chosen run. Seeds 5 and 162 have the last two; the test checks that
// the seeds cover each.
func TestRecordedScriptFileRoundTrip(t *testing.T) {
	var txnCounts, oldIncarnations, emptyTruncations int
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8, 162} {
		sp := Spec{Seed: seed}
		chosen, _ := chosenAndReplayed(t, sp)
		prep, err := sp.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		scn := *prep.Scenario
		scn.Script = chosen.Script
		text := scenariofile.Format(&scn, scenariofile.DefaultFileSettings())
		f, err := scenariofile.ParseFile(fmt.Sprintf("seed%d.scn", seed), text)
		if err != nil {
			t.Fatalf("seed %d: the formatted recorded script does not parse: %v", seed, err)
		}
		if !reflect.DeepEqual(f.Scenario.Script, chosen.Script) {
			t.Fatalf("seed %d: the parsed script differs from the recorded one", seed)
		}
		parsed := *prep.Scenario
		parsed.Script = f.Scenario.Script
		replayed := sim.Run(&parsed, prep.Settings, choose.NewRandom(seed), prep.Options)
		if err := sameRecordedRun(chosen, replayed); err != nil {
			t.Errorf("seed %d: running the parsed script: %v", seed, err)
		}
		for _, a := range chosen.Script {
			switch {
			case a.Records > 1:
				txnCounts++
			case a.ObserveIncarnation > 0:
				oldIncarnations++
			case a.Kind == spec.ActDeleteRecords && a.Topic == "":
				emptyTruncations++
			}
		}
	}
	if txnCounts == 0 || oldIncarnations == 0 || emptyTruncations == 0 {
		t.Fatalf("the seeds no longer cover the cases: %d multi-record transactions, %d old-incarnation observations, %d empty truncations",
			txnCounts, oldIncarnations, emptyTruncations)
	}
}

package scenarios

import (
	"reflect"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestFormatRoundTrip: every scenario file, written back by Format, parses to the same scenario
// and settings.
func TestFormatRoundTrip(t *testing.T) {
	for _, name := range TargetedNames() {
		f, err := Targeted(name)
		if err != nil {
			t.Fatal(err)
		}
		text := scenariofile.Format(f.Scenario, f.Settings, f.Comments...)
		g, err := scenariofile.ParseFile(name+".txt", text)
		if err != nil {
			t.Fatalf("%s: the written file does not parse: %v\n%s", name, err, text)
		}
		if !reflect.DeepEqual(f.Scenario, g.Scenario) || f.Settings.Sim() != g.Settings.Sim() {
			t.Fatalf("%s: round trip changed the scenario\n%s", name, text)
		}
	}
}

// TestFormatRecordedRandomScript: the safety phase of a random run, recorded as a script and
// written as a file, parses back and runs to the same result.
func TestFormatRecordedRandomScript(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		scn, err := Build(RandomName, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		set := swarm.ExpandSettings(seed)
		rec := sim.Run(scn, set, choose.NewRandom(seed), sim.RunOptions{RecordScript: true})
		scripted := *scn
		scripted.Script = rec.Script
		fs := scenariofile.DefaultFileSettings()
		fs.Seed, fs.Swarm = seed, seed
		text := scenariofile.Format(&scripted, fs, "recorded from random seed")
		f, err := scenariofile.ParseFile("random.txt", text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if !reflect.DeepEqual(f.Scenario.Script, scripted.Script) {
			t.Fatalf("seed %d: the script did not survive the round trip", seed)
		}
		want := sim.Run(&scripted, fs.Sim(), choose.NewRandom(seed), sim.RunOptions{})
		run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if run.Result.Verdict != want.Verdict || !reflect.DeepEqual(run.Result.Deliveries, want.Deliveries) {
			t.Fatalf("seed %d: the file ran differently (%s vs %s)", seed, run.Result.Verdict, want.Verdict)
		}
	}
}

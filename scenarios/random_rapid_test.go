package scenarios

import (
	"flag"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/rapidchoose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"pgregory.net/rapid"
)

// TestRapidDrivesHonestRuns: with every schedule decision drawn from rapid, honest runs of the
// random scenario pass (rapid explores schedules the seeded chooser would rarely produce).
func TestRapidDrivesHonestRuns(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64Range(1, 1000).Draw(rt, "seed")
		res, _ := runSpec(rt, Spec{Seed: seed, Steps: 60}, rapidchoose.New(rt))
		if res.Verdict != "pass" {
			rt.Fatalf("honest run failed: %v", res.Violations)
		}
	})
}

var slowTests = flag.Bool("slow", false, "run the slow tests (rapid shrinking over whole runs)")

// TestRapidShrinksAViolation: under IGNORE_CAUSES rapid finds a failing schedule and shrinks it;
// the shrunk schedule, replayed, still fails with the same criterion and is no longer than the
// first failure found.
func TestRapidShrinksAViolation(t *testing.T) {
	if !*slowTests {
		t.Skip("shrinking runs thousands of schedules (~30 s): go test ./scenarios -run RapidShrinks -slow")
	}
	f := flag.Lookup("rapid.nofailfile")
	old := f.Value.String()
	f.Value.Set("true") // the failure is deliberate: write no fail file for it
	defer f.Value.Set(old)
	var first, last *spec.Result
	var lastSpec Spec
	prop := func(rt *rapid.T) {
		spec := Spec{Seed: rapid.Uint64Range(1, 100).Draw(rt, "seed"), Sabotage: "IGNORE_CAUSES", Steps: 300}
		res, _ := runSpec(rt, spec, rapidchoose.New(rt))
		if res.Verdict != "pass" {
			if first == nil {
				first = res
			}
			last, lastSpec = res, spec
			rt.Fatalf("%v", res.Violations[0])
		}
	}
	tb := &recordTB{}
	rapid.Check(tb, prop)
	if first == nil || last == nil {
		t.Fatal("rapid found no IGNORE_CAUSES violation")
	}
	replayed, _ := runSpec(t, lastSpec, choose.NewReplay(last.Choices))
	if replayed.Verdict != "violation" || replayed.Violations[0].Criterion != last.Violations[0].Criterion {
		t.Fatalf("the shrunk schedule replays to %s %v, want %s", replayed.Verdict, replayed.Violations, last.Violations[0].Criterion)
	}
	if last.Steps > first.Steps {
		t.Fatalf("shrinking grew the failure: %d steps, first found %d", last.Steps, first.Steps)
	}
	t.Logf("first failure at %d steps (%s), shrunk to %d steps (%s)", first.Steps, first.Violations[0].Criterion, last.Steps, last.Violations[0])
}

// recordTB is a rapid.TB that records failure instead of failing the enclosing test.
type recordTB struct{ failed bool }

func (r *recordTB) Helper()               {}
func (r *recordTB) Name() string          { return "TestRapidShrinksAViolation" }
func (r *recordTB) Logf(string, ...any)   {}
func (r *recordTB) Log(...any)            {}
func (r *recordTB) Skipf(string, ...any)  {}
func (r *recordTB) Skip(...any)           {}
func (r *recordTB) SkipNow()              {}
func (r *recordTB) Errorf(string, ...any) { r.failed = true }
func (r *recordTB) Error(...any)          { r.failed = true }
func (r *recordTB) Fatalf(string, ...any) { r.failed = true }
func (r *recordTB) Fatal(...any)          { r.failed = true }
func (r *recordTB) FailNow()              { r.failed = true }
func (r *recordTB) Fail()                 { r.failed = true }
func (r *recordTB) Failed() bool          { return r.failed }

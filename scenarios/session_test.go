package scenarios

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

var sessionCatchRatesDir = flag.String("session.catchrates", "",
	"write catch-rates-session.md and .json for seeds 1-1000 of the session scenario to `DIR` (TestWriteSessionCatchRates)")

func sweepSession(t *testing.T, mode string, first, last uint64) *SweepReport {
	t.Helper()
	rep, err := Sweep(context.Background(), SweepConfig{Spec: Spec{Scenario: SessionName, Sabotage: mode}, First: first, Last: last})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestSessionScenarioHonest: honest tiers over 300 seeds of the session scenario, with the usual
// faults, break no criterion — and the run exercises what the checks judge.
func TestSessionScenarioHonest(t *testing.T) {
	rep := sweepSession(t, "", 1, 300)
	if rep.Failed() > 0 {
		t.Fatalf("%d of %d honest session seeds failed: %v (first %s)", rep.Failed(), rep.Runs, rep.Criteria(), RerunCommand(Spec{Scenario: SessionName, Seed: rep.FailedSeeds[0]}))
	}
	for _, name := range []string{"session.reads_served", "session.reads_retry", "session.reads_redirected",
		"session.writes_aborted", "session.token_refused", "session.sessions_abandoned"} {
		if c := rep.Exercised.Count(name); c.Runs < 10 {
			t.Errorf("%s exercised on %d of %d runs", name, c.Runs, rep.Runs)
		}
	}
}

// TestRandomHasSessionsOnSomeSeeds: the default random scenario has session clients on some seeds
// (swarm), and they act.
func TestRandomHasSessionsOnSomeSeeds(t *testing.T) {
	with, acted := 0, 0
	for seed := uint64(1); seed <= 100; seed++ {
		scn, err := Build(RandomName, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if scn.Session == nil {
			continue
		}
		with++
		if with <= 5 {
			if o := mustRunSeed(t, Spec{Seed: seed}, seed); o.Stats.Actions[spec.ActSessionRead] > 0 && o.Stats.Session["writes"] > 0 {
				acted++
			}
		}
	}
	if with < 10 || with > 60 || acted == 0 {
		t.Fatalf("%d of 100 random seeds have sessions (%d of the first five acted): want some, not most", with, acted)
	}
}

// TestSessionFileRoundTrip: a recorded session run written as a scenario file parses back to the
// same declarations and script.
func TestSessionFileRoundTrip(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		scn := Session(seed)
		rec := sim.Run(scn, swarm.ExpandSettings(seed), choose.NewRandom(seed), sim.RunOptions{RecordScript: true})
		scripted := *scn
		scripted.Script = rec.Script
		fs := scenariofile.DefaultFileSettings()
		fs.Seed, fs.Swarm = seed, seed
		f, err := scenariofile.ParseFile("session.txt", scenariofile.Format(&scripted, fs))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(f.Scenario.Session, scn.Session) || !reflect.DeepEqual(f.Scenario.Script, scripted.Script) {
			t.Fatalf("seed %d: the session declarations or script did not survive the round trip", seed)
		}
	}
}

// gitCommit returns the short hash of HEAD, or "" outside a git checkout.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// TestWriteSessionCatchRates writes the session modes' catch-rate table over seeds 1-1000 (cd
// scenarios && go test -run TestWriteSessionCatchRates -session.catchrates ../results); without
// the flag it is skipped.
func TestWriteSessionCatchRates(t *testing.T) {
	dir := *sessionCatchRatesDir
	if dir == "" {
		t.Skip("set -session.catchrates DIR to write the table")
	}
	start := time.Now()
	table := &CatchRateTable{Scenario: SessionName, FirstSeed: 1, LastSeed: 1000,
		Command: "cd scenarios && go test -run TestWriteSessionCatchRates -session.catchrates ../results",
		Commit:  gitCommit(),
		Machine: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	for _, mode := range modeNames(spec.TierSession) {
		table.Modes = append(table.Modes, catchRateOf(mode, sweepSession(t, mode, 1, 1000)))
	}
	table.Seconds = time.Since(start).Seconds()
	for name, data := range map[string][]byte{"catch-rates-session.json": table.JSON(), "catch-rates-session.md": table.Markdown()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// modeNames returns the names of the registered sabotage modes of one tier, in order.
func modeNames(tier spec.SabotageTier) []string {
	var names []string
	for _, m := range spec.SabotageModes() {
		if m.Tier == tier {
			names = append(names, m.Name)
		}
	}
	return names
}

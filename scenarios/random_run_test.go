package scenarios

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

var sweepSeeds = flag.Int("sweep.seeds", 1000, "seeds of the honest random sweep in TestHonestSweep")

// fataler is what runSpec needs of a *testing.T or *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// runSpec runs spec with the given chooser (nil: the seeded random chooser) and returns the
// result and the trace hash.
func runSpec(t fataler, spec Spec, ch choose.Chooser) (*spec.Result, string) {
	t.Helper()
	prep, err := spec.Prepare()
	if err != nil {
		t.Fatalf("%+v: %v", spec, err)
	}
	if ch == nil {
		ch = choose.NewRandom(spec.Seed)
	}
	hash := trace.NewHashSink()
	opts := prep.Options
	opts.Sinks = []trace.Sink{hash}
	return sim.Run(prep.Scenario, prep.Settings, ch, opts), hash.Sum()
}

func TestRandomSameSeedSameHash(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for seed := uint64(1); seed <= 20; seed++ {
		spec := Spec{Seed: seed}
		runtime.GOMAXPROCS(1)
		r1, h1 := runSpec(t, spec, nil)
		runtime.GOMAXPROCS(2)
		r2, h2 := runSpec(t, spec, nil)
		if h1 != h2 || r1.Verdict != r2.Verdict || r1.Steps != r2.Steps {
			t.Fatalf("seed %d: GOMAXPROCS 1 gave %s/%s/%d, GOMAXPROCS 2 gave %s/%s/%d",
				seed, h1, r1.Verdict, r1.Steps, h2, r2.Verdict, r2.Steps)
		}
	}
	_, a := runSpec(t, Spec{Seed: 1}, nil)
	_, b := runSpec(t, Spec{Seed: 2}, nil)
	if a == b {
		t.Fatal("seeds 1 and 2 have the same hash")
	}
}

// TestHashesAcrossProcesses runs the same seeds in two fresh test processes, with GOMAXPROCS=1
// and =2: a fresh process has fresh map hash seeds and addresses, so any map-order or address
// dependence in a run shows up as a different hash.
func TestHashesAcrossProcesses(t *testing.T) {
	if os.Getenv("SIMRUN_PRINT_HASHES") != "" {
		return // this is the child: TestPrintHashes prints
	}
	var outs []string
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrintHashes$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SIMRUN_PRINT_HASHES=1", "GOMAXPROCS="+procs)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child with GOMAXPROCS=%s: %v\n%s", procs, err, out)
		}
		outs = append(outs, hashLines(string(out)))
	}
	if outs[0] == "" || outs[0] != outs[1] {
		t.Fatalf("hashes differ between processes:\nGOMAXPROCS=1:\n%s\nGOMAXPROCS=2:\n%s", outs[0], outs[1])
	}
	var here strings.Builder
	for seed := uint64(1); seed <= 10; seed++ {
		_, h := runSpec(t, Spec{Seed: seed, Sabotage: "IGNORE_CAUSES"}, nil)
		fmt.Fprintf(&here, "hash %d %s\n", seed, h)
	}
	if here.String() != outs[0] {
		t.Fatalf("hashes differ between this process and a child:\n%s\nvs\n%s", here.String(), outs[0])
	}
}

// TestPrintHashes is the child half of TestHashesAcrossProcesses.
func TestPrintHashes(t *testing.T) {
	if os.Getenv("SIMRUN_PRINT_HASHES") == "" {
		t.Skip("child of TestHashesAcrossProcesses only")
	}
	for seed := uint64(1); seed <= 10; seed++ {
		_, h := runSpec(t, Spec{Seed: seed, Sabotage: "IGNORE_CAUSES"}, nil)
		fmt.Printf("hash %d %s\n", seed, h)
	}
}

func hashLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "hash ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestReplayReproducesHash: a run's recorded choices, saved and loaded, drive the same run again:
// same hash, same verdict, every choice consumed.
func TestReplayReproducesHash(t *testing.T) {
	for _, spec := range []Spec{{Seed: 3}, {Seed: 4, Sabotage: "IGNORE_CAUSES"}, {Seed: 5, Sabotage: "RESET_PAST_LOG_START", Steps: 120}} {
		res, hash := runSpec(t, spec, nil)
		path := filepath.Join(t.TempDir(), "run.replay")
		if err := replay.Save(path, spec.ReplayOf(res, hash)); err != nil {
			t.Fatal(err)
		}
		rec, err := replay.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		back, err := SpecOfReplay(rec)
		if err != nil || back != spec.Normalize() {
			t.Fatalf("spec %+v read back as %+v (%v)", spec, back, err)
		}
		ch := choose.NewReplay(rec.Choices)
		res2, hash2 := runSpec(t, back, ch)
		if ch.Err() != nil || ch.Remaining() != 0 {
			t.Fatalf("%+v: replay diverged: %v, %d choices left", spec, ch.Err(), ch.Remaining())
		}
		if hash2 != hash || res2.Verdict != res.Verdict || len(res2.Choices) != len(res.Choices) {
			t.Fatalf("%+v: replay gave %s/%s, run %s/%s", spec, hash2, res2.Verdict, hash, res.Verdict)
		}
	}
}

// TestHonestSweep: the honest engine over -sweep.seeds seeds of the random scenario (1,000 by
// default) finds no violation.
func TestHonestSweep(t *testing.T) {
	n := *sweepSeeds
	if testing.Short() {
		n = min(n, 100)
	}
	failed := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		res, _ := runSpec(t, Spec{Seed: seed}, nil)
		if res.Verdict != "pass" {
			failed++
			if failed <= 5 {
				t.Errorf("seed %d: %s (replay: go run ./cmd/simrun --seed %d)", seed, res.Violations[0], seed)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d honest seeds failed", failed, n)
	}
}

// TestIgnoreCausesCaughtOnMostSeeds: the simulator finds IGNORE_CAUSES on most seeds (issue 5's
// done-when).
func TestIgnoreCausesCaughtOnMostSeeds(t *testing.T) {
	const n = 100
	caught := 0
	for seed := uint64(1); seed <= n; seed++ {
		if res, _ := runSpec(t, Spec{Seed: seed, Sabotage: "IGNORE_CAUSES"}, nil); res.Verdict == "violation" {
			caught++
		}
	}
	t.Logf("IGNORE_CAUSES caught on %d of %d seeds", caught, n)
	if caught <= n/2 {
		t.Fatalf("IGNORE_CAUSES caught on %d of %d seeds, want most", caught, n)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
)

// sweepJSONOut is the part of `simrun sweep --json` the tests read.
type sweepJSONOut struct {
	Runs        int      `json:"runs"`
	FailedSeeds []uint64 `json:"failed_seeds"`
	Failures    []struct {
		Seed      uint64 `json:"seed"`
		Criterion string `json:"criterion"`
		Replay    string `json:"replay"`
	} `json:"failures"`
	ViolationsByCriterion map[string]int `json:"violations_by_criterion"`
	Interrupted           bool           `json:"interrupted"`
	EligibleSeeds         *int           `json:"eligible_seeds"`
	CaughtEligible        *int           `json:"caught_eligible"`
}

// runSweep runs `simrun sweep ARGS` under ctx without a terminal and returns exit code, stdout
// and stderr.
func runSweep(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := sweepCommand(ctx, args, &out, &errOut, false)
	return code, out.String(), errOut.String()
}

func decodeSweep(t *testing.T, stdout string) sweepJSONOut {
	t.Helper()
	var got sweepJSONOut
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
	}
	return got
}

func TestSweepBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--seeds is required"},
		{[]string{"--seeds", "5-x"}, `"5-x"`},
		{[]string{"--seeds", "x"}, `"x"`},
		{[]string{"--seeds", "9-3"}, `"9-3"`},
		{[]string{"--seeds", "1-2", "-j", "0"}, "-j must be 1-1024, got 0"},
		{[]string{"--seeds", "1-2", "--sabotage", "NOPE"}, `"NOPE"`},
		{[]string{"--seeds", "1-2", "--scenario", "nope"}, `"nope"`},
		{[]string{"--seeds", "1-2", "--catch-rates", "--json"}, "--catch-rates and --json"},
		{[]string{"--seeds", "1-2", "--out", "x"}, "--out needs --catch-rates"},
		{[]string{"--seeds", "1-2", "extra"}, `"extra"`},
	} {
		code, stdout, stderr := runSweep(context.Background(), tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("sweep %q: exit %d, stderr %q; want exit 2 naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSweepJSONSabotage: under IGNORE_CAUSES the sweep exits 1 and the JSON lists the failing
// seeds sorted, each with its criterion and replay command, and the eligibility counts.
func TestSweepJSONSabotage(t *testing.T) {
	code, stdout, stderr := runSweep(context.Background(), "--seeds", "1-8", "--sabotage", "IGNORE_CAUSES", "--json")
	got := decodeSweep(t, stdout)
	if code != exitViolation || got.Runs != 8 || len(got.FailedSeeds) == 0 || got.Interrupted {
		t.Fatalf("exit %d, %d runs, failed %v, interrupted %v; want exit 1 with failures (stderr %q)",
			code, got.Runs, got.FailedSeeds, got.Interrupted, stderr)
	}
	if !slices.IsSorted(got.FailedSeeds) || len(got.Failures) != len(got.FailedSeeds) {
		t.Fatalf("failed seeds %v unsorted or not one failure each (%d)", got.FailedSeeds, len(got.Failures))
	}
	for _, f := range got.Failures {
		want := "go run ./cmd/simrun --seed " + uitoa(f.Seed) + " --scenario random --sabotage IGNORE_CAUSES"
		if f.Replay != want || got.ViolationsByCriterion[f.Criterion] == 0 {
			t.Fatalf("failure %+v: want replay %q and its criterion counted", f, want)
		}
	}
	if got.EligibleSeeds == nil || *got.EligibleSeeds != 8 || *got.CaughtEligible != len(got.FailedSeeds) {
		t.Fatalf("eligible %v caught %v; IGNORE_CAUSES makes every seed eligible", got.EligibleSeeds, got.CaughtEligible)
	}
}

func uitoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestSweepJSONIndependentOfWorkers: -j 1 and -j 2 print the same JSON.
func TestSweepJSONIndependentOfWorkers(t *testing.T) {
	_, one, _ := runSweep(context.Background(), "--seeds", "11-18", "-j", "1", "--sabotage", "NO_FIFO", "--json")
	_, two, _ := runSweep(context.Background(), "--seeds", "11-18", "-j", "2", "--sabotage", "NO_FIFO", "--json")
	if one != two || one == "" {
		t.Fatalf("-j 1 and -j 2 differ:\n%s\n%s", one, two)
	}
}

// TestSweepHonestHuman: an honest sweep exits 0 and prints the summary; without a terminal it
// writes nothing to stderr (no progress noise when piped).
func TestSweepHonestHuman(t *testing.T) {
	code, stdout, stderr := runSweep(context.Background(), "--seeds", "3")
	for _, want := range []string{"seeds 3-3", "runs 1  passed 1  failed 0", "action.feed=", "verdict: all 1 seeds passed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if code != exitPass || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// TestSweepWithoutHuman: a sweep --without says in its summary which criteria it did not judge,
// and a whole sweep says nothing of the kind.
func TestSweepWithoutHuman(t *testing.T) {
	const says = "without REFERENCE, RESTART_INVISIBILITY: not judged, so this sweep vouches for none of them"
	code, stdout, _ := runSweep(context.Background(), "--seeds", "3", "--without", "REFERENCE,RESTART_INVISIBILITY")
	if code != exitPass || !strings.Contains(stdout, says) {
		t.Fatalf("exit %d, summary lacks %q:\n%s", code, says, stdout)
	}
	if _, stdout, _ := runSweep(context.Background(), "--seeds", "3"); strings.Contains(stdout, "without") {
		t.Fatalf("a whole sweep's summary speaks of criteria left out:\n%s", stdout)
	}
}

// TestSweepProgressOnTerminal: with a terminal the progress bar is drawn on stderr and erased.
func TestSweepProgressOnTerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	sweepCommand(context.Background(), []string{"--seeds", "1-2"}, &out, &errOut, true)
	if !strings.Contains(errOut.String(), "2/2 seeds") || !strings.HasSuffix(errOut.String(), "\r\033[K") {
		t.Fatalf("progress output %q: want the bar reaching 2/2 and then erased", errOut.String())
	}
}

// TestSweepInterruptedSummary: a sweep whose context is already cancelled runs nothing, says
// "interrupted" in both outputs and exits 130.
func TestSweepInterruptedSummary(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stdout, _ := runSweep(ctx, "--seeds", "1-100", "--json")
	if got := decodeSweep(t, stdout); code != exitInterrupted || !got.Interrupted || got.Runs != 0 {
		t.Fatalf("exit %d, %+v; want 130, interrupted, 0 runs", code, got)
	}
	code, stdout, _ = runSweep(ctx, "--seeds", "1-100")
	if code != exitInterrupted || !strings.Contains(stdout, "INTERRUPTED after 0 of 100 seeds") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

// TestCatchRatesCommand: --catch-rates over a tiny range writes both files with a row per mode.
func TestCatchRatesCommand(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runSweep(context.Background(), "--catch-rates", "--seeds", "4-6", "--out", dir)
	if code != exitPass {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	table, err := readCatchRates(filepath.Join(dir, "catch-rates.json"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "catch-rates.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range scenarios.CatchRateModes() {
		row, ok := catchRateRow(table, mode)
		if !ok || row.Runs != 3 || !strings.Contains(string(md), "| "+mode+" |") || !strings.Contains(stdout, mode) {
			t.Fatalf("mode %s: row %+v (found %v), or missing from the markdown or stdout", mode, row, ok)
		}
	}
	if ic, _ := catchRateRow(table, "IGNORE_CAUSES"); ic.Caught == 0 || len(ic.CaughtBy) == 0 {
		t.Fatalf("IGNORE_CAUSES caught on none of seeds 4-6: %+v", ic)
	}
	if ex, _ := catchRateRow(table, "TREAT_COVERED_FEED_AS_REPLAY"); ex.Exempt == "" || !strings.Contains(string(md), "Exempt from the goals") {
		t.Fatalf("TREAT_COVERED_FEED_AS_REPLAY not listed as exempt: %+v", ex)
	}
}

// readCatchRates reads a table written by CatchRateTable.JSON; errors name the file.
func readCatchRates(path string) (*scenarios.CatchRateTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t scenarios.CatchRateTable
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// catchRateRow returns table's row for a mode.
func catchRateRow(table *scenarios.CatchRateTable, mode string) (scenarios.CatchRate, bool) {
	for _, r := range table.Modes {
		if r.Mode == mode {
			return r, true
		}
	}
	return scenarios.CatchRate{}, false
}

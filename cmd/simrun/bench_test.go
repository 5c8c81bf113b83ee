package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/benchmarks"
)

// invokeBench runs `simrun bench` with args and returns the exit code, stdout and stderr.
func invokeBench(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(append([]string{"bench"}, args...), nil, &out, &errs)
	return code, out.String(), errs.String()
}

// TestBenchUpdateThenCheck: --update writes a baseline that --check then accepts; a baseline with
// one metric moved fails --check naming that metric and the amount.
func TestBenchUpdateThenCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json")
	if code, _, errs := invokeBench("--update", "--baseline", path); code != exitPass {
		t.Fatalf("--update: exit %d: %s", code, errs)
	}
	if code, out, errs := invokeBench("--check", "--baseline", path); code != exitPass || !strings.Contains(out, "exact metrics match") {
		t.Fatalf("--check after --update: exit %d: %s%s", code, out, errs)
	}
	b, err := benchmarks.ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	b.Metrics["scenario/random/seed=4"]["hold_p99_us"] -= 100
	if err := os.WriteFile(path, b.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := invokeBench("--check", "--baseline", path)
	if code != exitViolation || !strings.Contains(errs, "scenario/random/seed=4 hold_p99_us: ") || !strings.Contains(errs, "(+100, ") {
		t.Fatalf("--check against a moved metric: exit %d, stderr:\n%s", code, errs)
	}
}

// TestBenchJSONAndUsage: --json prints the baseline format; bad usage exits 2 and a missing
// baseline names the file.
func TestBenchJSONAndUsage(t *testing.T) {
	code, out, _ := invokeBench("--json")
	var b benchmarks.Baseline
	if code != exitPass || json.Unmarshal([]byte(out), &b) != nil || len(b.Metrics) == 0 {
		t.Fatalf("--json: exit %d, output %.200s", code, out)
	}
	if code, _, _ := invokeBench("--check", "--update"); code != exitUsage {
		t.Errorf("--check --update: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := invokeBench("extra"); code != exitUsage {
		t.Errorf("stray argument: exit %d, want %d", code, exitUsage)
	}
	if code, _, errs := invokeBench("--check", "--baseline", "no-such-file.json"); code != exitUsage || !strings.Contains(errs, "no-such-file.json") {
		t.Errorf("missing baseline: exit %d, stderr %q", code, errs)
	}
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestShrinkCommand: `simrun shrink` writes a replay file that `simrun replay` reproduces and a
// scenario file beside it, prints the sizes before and after, and exits 1.
func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "min.replay")
	var out, errOut bytes.Buffer
	seed := uint64(0) // the first seed whose first violation under DROP_HELD is REFERENCE
	for s := uint64(1); s <= 200 && seed == 0; s++ {
		if o := mustRunSeed(t, scenarios.Spec{Sabotage: "DROP_HELD"}, s); len(o.Violations) > 0 && o.Violations[0].Criterion == spec.CritReference {
			seed = s
		}
	}
	if seed == 0 {
		t.Fatal("no seed in 1-200 fails with REFERENCE first under DROP_HELD")
	}
	code := shrinkMain([]string{"--seed", fmt.Sprint(seed), "--sabotage", "DROP_HELD", "--out", path}, &out, &errOut)
	if code != exitViolation {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"before: ", "after: ", "first violation REFERENCE", "replay " + path, filepath.Join(dir, "min.txt")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if txt, err := os.ReadFile(filepath.Join(dir, "min.txt")); err != nil || !strings.Contains(string(txt), "expect verdict: violation REFERENCE") {
		t.Fatalf("scenario file: %v\n%s", err, txt)
	}
	var rout, rerr bytes.Buffer
	if code := replayMain([]string{path}, &rout, &rerr); code != exitViolation || !strings.Contains(rout.String(), "reproduced") {
		t.Fatalf("replay of the shrunk file: exit %d\n%s\n%s", code, rout.String(), rerr.String())
	}
}

func TestShrinkBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--seed is required"},
		{[]string{"--seed", "x1"}, `"x1"`},
		{[]string{"--seed", "1", "--attempts", "0"}, "--attempts must be 1-100000, got 0"},
		{[]string{"--seed", "1", "--sabotage", "NOPE"}, `"NOPE"`},
		{[]string{"--seed", "1", "--scenario", "nope"}, `"nope"`},
		{[]string{"--seed", "1", "stray"}, `"stray"`},
		{[]string{"--seed", "1"}, "passes: nothing to shrink"},
	} {
		var out, errOut bytes.Buffer
		code := shrinkMain(tc.args, &out, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("shrink %q: exit %d, stderr %q; want exit 2 naming %s", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestShrinkAfterViolation: the automatic shrink of a failing default run writes the shrunk
// replay and scenario files beside the run's replay file.
func TestShrinkAfterViolation(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	c := cli{stdout: &out, stderr: &errOut, dir: dir}
	c.shrinkAfterViolation(scenarios.Spec{Seed: 1, Sabotage: "OVEREXPRESS"}, filepath.Join(dir, "run.replay"))
	for _, name := range []string{"run-shrunk.replay", "run-shrunk.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s not written: %v\n%s%s", name, err, out.String(), errOut.String())
		}
	}
	if !strings.Contains(out.String(), "first violation REFERENCE") {
		t.Fatalf("output:\n%s", out.String())
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUsage: stray arguments, bad flag values, an unknown -bench set and a baseline that is not
// a revision exit 2 before anything is built, naming the problem.
func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, "extra"},
		{[]string{"-rounds", "0"}, "-rounds"},
		{[]string{"-instructions", "maybe"}, "-instructions"},
		{[]string{"-sweep-seeds", "-1"}, "-sweep-seeds -1"},
		{[]string{"-bench", "nocolon"}, "PKG:PATTERN"},
		{[]string{"-baseline", "no-such-revision-anywhere"}, "no-such-revision-anywhere"},
		{[]string{"-results", t.TempDir()}, "bench.txt"},
	} {
		var out, errs bytes.Buffer
		if code := run(c.args, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 naming %q", c.args, code, errs.String(), c.want)
		}
	}
}

// TestEntries: the named sets and a custom list pick what they say.
func TestEntries(t *testing.T) {
	gate, err := entries("gate")
	if err != nil || len(gate) == 0 {
		t.Fatalf("gate: %v, %v", gate, err)
	}
	all, _ := entries("all")
	if len(all) <= len(gate) {
		t.Errorf("all (%d entries) is not more than the gate subset (%d)", len(all), len(gate))
	}
	speed, _ := entries("speed")
	if len(speed) != 5 || speed[0].pkg != "./node/" {
		t.Errorf("speed: %v", speed)
	}
	custom, err := entries("./node/:^BenchmarkX$,./sim/:^BenchmarkY$")
	if err != nil || len(custom) != 2 || custom[1] != (entry{"./sim/", "^BenchmarkY$"}) {
		t.Errorf("custom: %v, %v", custom, err)
	}
}

// TestExactPattern: the pattern of a benchmark name matches it and not its neighbours.
func TestExactPattern(t *testing.T) {
	p := exactPattern("BenchmarkDecode/many-topics/entries=1")
	if p != "^BenchmarkDecode$/^many-topics$/^entries=1$" {
		t.Fatalf("pattern %q", p)
	}
	levels := strings.Split(p, "/")
	for i, name := range []string{"BenchmarkDecode", "many-topics", "entries=1"} {
		if !regexp.MustCompile(levels[i]).MatchString(name) {
			t.Errorf("level %q does not match %q", levels[i], name)
		}
	}
	if regexp.MustCompile(levels[2]).MatchString("entries=16") || regexp.MustCompile(levels[0]).MatchString("BenchmarkDecodeInto") {
		t.Error("a level matches a neighbour")
	}
}

// TestBenchCommit: the default baseline is the commit bench.txt records; a file without one is an
// error that names it.
func TestBenchCommit(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("# go run ./benchmarks/benchgate -update\n# commit 052a2ce 2026-11-30T23:01:11+00:00   go1.26\nBenchmarkX-2 1 1 ns/op\n"), 0o644)
	if c, err := benchCommit(good); err != nil || c != "052a2ce" {
		t.Errorf("commit %q, %v", c, err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkX-2 1 1 ns/op\n"), 0o644)
	if _, err := benchCommit(bad); err == nil || !strings.Contains(err.Error(), "bad.txt") {
		t.Errorf("no commit line: %v", err)
	}
}

// TestUntar: files and directories are written, and an entry that would leave the directory is
// refused.
func TestUntar(t *testing.T) {
	archive := func(names ...string) *bytes.Buffer {
		var b bytes.Buffer
		w := tar.NewWriter(&b)
		for _, n := range names {
			w.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
			w.Write([]byte("ok"))
		}
		w.Close()
		return &b
	}
	dir := t.TempDir()
	if err := untar(archive("a/b/c.go", "d.go"), dir); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.go")); err != nil || string(data) != "ok" {
		t.Errorf("a/b/c.go: %q, %v", data, err)
	}
	if err := untar(archive("../escape.go"), dir); err == nil {
		t.Error("an entry leaving the directory was written")
	}
}

// TestSweepSteps: the steps of a sweep's JSON report are read; a report without them, or output
// that is no report, is an error that quotes it.
func TestSweepSteps(t *testing.T) {
	if n, err := sweepSteps([]byte(`{"scenario": "random", "runs": 3, "steps": 1069, "exercised": {}}`)); err != nil || n != 1069 {
		t.Errorf("steps %d, %v; want 1069", n, err)
	}
	for _, out := range []string{`{"runs": 3}`, `{"steps": 0}`, `sweep: bad seeds`} {
		if _, err := sweepSteps([]byte(out)); err == nil || !strings.Contains(err.Error(), strings.Trim(out, "{}")[:5]) {
			t.Errorf("%s: %v, want an error quoting the output", out, err)
		}
	}
}

// TestRunSweep: the working tree's simrun runs the measured sweep, and its CPU time per step and
// its steps are those of the run (steps as the JSON reports them, a time per step that is a
// plausible fraction of a second); its first-wave sweep runs and takes the same steps.
func TestRunSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun")
	}
	bin := filepath.Join(t.TempDir(), "simrun")
	var errs bytes.Buffer
	if err := buildSimrun("../..", bin, &errs); err != nil {
		t.Fatalf("%v: %s", err, errs.String())
	}
	secPerStep, steps, err := runSweep(bin, 3)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, sweepArgs(3)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	want, err := sweepSteps(out)
	if err != nil || steps != want {
		t.Errorf("steps %d, want the JSON's %d (%v)", steps, want, err)
	}
	if secPerStep <= 0 || secPerStep > 0.01 {
		t.Errorf("%g CPU-seconds per step, want a positive time under 10ms", secPerStep)
	}
	if _, first, err := runSweep(bin, 3, firstWave...); err != nil || first != steps {
		t.Errorf("the first-wave sweep: %d steps, %v; want the whole sweep's %d (the checks it leaves out take no steps)", first, err, steps)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func invokeReplay(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli{stdout: &out, stderr: &errb}.replay(args)
	return code, out.String(), errb.String()
}

func hashIn(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^hash: ([0-9a-f]{16})$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no hash in output:\n%s", out)
	}
	return m[1]
}

// TestViolationSavesReplayThatReproduces: a sabotaged run that finds a violation saves its replay
// file unasked, prints the command, and `simrun replay FILE` reproduces verdict and hash.
func TestViolationSavesReplayThatReproduces(t *testing.T) {
	dir := t.TempDir()
	var code int
	var out, seed string
	for _, s := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		code, out, _ = invoke(t, dir, "--seed", s, "--sabotage", "IGNORE_CAUSES")
		if code == exitViolation {
			seed = s
			break
		}
	}
	if seed == "" {
		t.Fatal("IGNORE_CAUSES found no violation in seeds 1-8")
	}
	path := filepath.Join(dir, "simrun-random-"+seed+"-IGNORE_CAUSES.replay")
	if !strings.Contains(out, "replay saved to "+path) || !strings.Contains(out, "go run ./cmd/simrun replay "+path) {
		t.Fatalf("report does not give the saved file and replay command:\n%s", out)
	}
	rcode, rout, rerr := invokeReplay(t, path)
	if rcode != exitViolation || !strings.Contains(rout, "reproduced:") {
		t.Fatalf("replay exit %d (want 1), stderr %s\n%s", rcode, rerr, rout)
	}
	if hashIn(t, rout) != hashIn(t, out) {
		t.Fatalf("replay hash %s, run hash %s", hashIn(t, rout), hashIn(t, out))
	}
	// A file whose recorded hash does not match is a failed reproduction, not a verdict.
	data, _ := os.ReadFile(path)
	bad := regexp.MustCompile(`(?m)^hash [0-9a-f]{16}$`).ReplaceAll(data, []byte("hash 0000000000000000"))
	badPath := filepath.Join(dir, "bad.replay")
	os.WriteFile(badPath, bad, 0o644)
	if code, _, errs := invokeReplay(t, badPath); code != exitUsage || !strings.Contains(errs, "did not reproduce") {
		t.Fatalf("tampered hash: exit %d, stderr %s", code, errs)
	}
}

// TestSaveAndReplayPass: --save on any run writes a file that replays to the same hash.
func TestSaveAndReplayPass(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.replay")
	code, out, errs := invoke(t, dir, "--seed", "11", "--steps", "80", "--save", path)
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rcode, rout, rerr := invokeReplay(t, "--json", path)
	if rcode != code {
		t.Fatalf("replay exit %d, run exit %d: %s", rcode, code, rerr)
	}
	var got struct{ Hash string }
	if err := json.Unmarshal([]byte(rout), &got); err != nil || got.Hash != hashIn(t, out) {
		t.Fatalf("replay --json hash %q (err %v), run hash %s", got.Hash, err, hashIn(t, out))
	}
}

func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.replay")
	os.WriteFile(bad, []byte("parsley-sim-replay 1\nscenario random\nseed x\n"), 0o644)
	cases := map[string][]string{
		"no file":      {},
		"two files":    {"a", "b"},
		"missing file": {filepath.Join(dir, "nope.replay")},
		"bad line":     {bad},
		"exclusive":    {"-v", "--json", bad},
	}
	wants := map[string]string{"no file": "exactly one", "two files": "exactly one", "missing file": "nope.replay",
		"bad line": "bad.replay:3:", "exclusive": "-v and --json"}
	for name, args := range cases {
		code, _, errs := invokeReplay(t, args...)
		if code != exitUsage || !strings.Contains(errs, wants[name]) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 mentioning %q", name, code, errs, wants[name])
		}
	}
}

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

// runCLI runs simrun with args and returns the exit code and outputs.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

const diamondFile = "../../scenarios/testdata/diamond_hold.txt"

// TestRunFilePass: an honest run of a targeted file prints its story and exits 0.
func TestRunFilePass(t *testing.T) {
	code, out, errOut := runCLI("run", diamondFile)
	if code != exitPass || !strings.Contains(out, "p3 holds c2/0@0:A (1 held) blocked by c1/0 required=0 settled=none") ||
		!strings.Contains(out, "verdict: PASS, as expected") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestRunFileSabotage: a sabotaged run breaks the file's expectations: exit 1, each failure
// named by its line.
func TestRunFileSabotage(t *testing.T) {
	code, out, _ := runCLI("run", "--sabotage", "IGNORE_CAUSES", diamondFile)
	named := regexp.MustCompile(`diamond_hold\.txt:\d+: expect delivered p3: c1/0@0:A c2/0@0:A\n    but p3 delivered c2/0@0:A c1/0@0:A`)
	if code != exitViolation || !named.MatchString(out) ||
		!strings.Contains(out, "VIOLATION (REFERENCE, S1), NOT as expected") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestRunFileJSON: --json prints one object with the verdict, the failures and the story.
func TestRunFileJSON(t *testing.T) {
	code, out, _ := runCLI("run", diamondFile, "--json", "--sabotage", "IGNORE_CAUSES")
	var rep runFileReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitViolation || rep.OK || rep.Verdict != "violation" || len(rep.Failures) == 0 || len(rep.Story) == 0 || rep.Scenario != "diamond_hold" {
		t.Fatalf("exit %d: %+v", code, rep)
	}
}

// TestRunFileBadInput: a bad file or bad flags exit 2 with a message naming the line or flag.
func TestRunFileBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("topic e\nprocess p receives=e\nfeed p topic=nope\n"), 0o644)
	cases := [][]string{
		{"run", bad},
		{"run"},
		{"run", bad, bad},
		{"run", diamondFile, "--sabotage", "NOPE"},
		{"run", filepath.Join(dir, "missing.txt")},
	}
	wants := []string{"bad.txt:3: topic=nope: expected a declared topic", "expected exactly one scenario FILE",
		"expected exactly one scenario FILE", "--sabotage: unknown sabotage mode", "missing.txt"}
	for i, args := range cases {
		code, _, errOut := runCLI(args...)
		if code != exitUsage || !strings.Contains(errOut, wants[i]) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, errOut, wants[i])
		}
	}
}

// TestRunFileRewrite: --rewrite records the story; a later run matches it, and an edited story
// is reported as a difference with exit 1.
func TestRunFileRewrite(t *testing.T) {
	src, err := os.ReadFile(diamondFile)
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := strings.Cut(string(src), "\n----\n")
	path := filepath.Join(t.TempDir(), "d.txt")
	os.WriteFile(path, []byte(body+"\n"), 0o644)
	if code, out, _ := runCLI("run", path, "--rewrite"); code != exitPass {
		t.Fatalf("rewrite: exit %d\n%s", code, out)
	}
	written, _ := os.ReadFile(path)
	if string(written) != string(src) {
		t.Fatalf("rewritten file differs from the committed one:\n%s", written)
	}
	os.WriteFile(path, []byte(strings.Replace(string(written), "p3 committed", "p3 did something else", 1)), 0o644)
	code, out, _ := runCLI("run", path)
	if code != exitViolation || !strings.Contains(out, "the story differs from the recorded one") {
		t.Fatalf("edited story: exit %d\n%s", code, out)
	}
}

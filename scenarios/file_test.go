package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
)

// rewrite regenerates the recorded stories of testdata/*.txt: go test ./scenarios -run
// TestScenarioFiles -rewrite. Read the diff and commit only what you understand.
var rewrite = flag.Bool("rewrite", false, "rewrite the recorded story of every scenario file in testdata/")

// TestScenarioFiles runs every scenario file: its expectations must hold, its story must match
// the recorded one, and its verdict must be pass (or the violation it expects).
func TestScenarioFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenario files in testdata/ (%v)", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			f, err := scenariofile.LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if *rewrite {
				if err := os.WriteFile(path, run.Rewrite(), 0o644); err != nil {
					t.Fatal(err)
				}
				run.StoryDiff = ""
			}
			for _, fail := range run.Failures {
				t.Error(fail)
			}
			if run.StoryDiff != "" {
				t.Errorf("%s\n(run with -rewrite to record the new story, then read the diff)", run.StoryDiff)
			}
			if !run.OK() {
				t.Errorf("verdict %s: %v\nstory:\n%s", run.Result.Verdict, run.Result.Violations, strings.Join(run.Story, "\n"))
			}
		})
	}
}

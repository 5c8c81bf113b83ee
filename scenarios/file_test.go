package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
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

// TestFileRunOptions: a file run hands back the options it ran with, its sabotage parsed once,
// for a second run of the same choices (a comparison's live run) to run alike.
func TestFileRunOptions(t *testing.T) {
	f, err := scenariofile.LoadFile("testdata/diamond_hold.txt")
	if err != nil {
		t.Fatal(err)
	}
	run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{Sabotage: "IGNORE_CAUSES"})
	if err != nil {
		t.Fatal(err)
	}
	engine, host, _ := spec.ParseSabotage("IGNORE_CAUSES")
	if run.Options.Sabotage != engine || run.Options.HostSabotage != host || run.Options.Sinks != nil {
		t.Errorf("Options: sabotage %v/%v, %d sinks; want %v/%v and none", run.Options.Sabotage, run.Options.HostSabotage, len(run.Options.Sinks), engine, host)
	}
}

// TestScenarioFilesAnyTopicIDs runs every scenario file again under other seeds, which give its
// topics other IDs in another order, as a live substrate does, on the model behind the substrate
// interface as a live run goes (so a stamp's causes, listed in topic-ID order, compare as a set):
// its expectations and story must still hold, so a file says nothing that only the seeded IDs'
// order makes true, such as the order in which heads deliverable at once drain.
func TestScenarioFilesAnyTopicIDs(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, path := range files {
		for seed := uint64(2); seed <= 5; seed++ {
			f, err := scenariofile.LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Settings.Seed = seed
			behind := func(ids func() substrate.TopicID, _ func() int) substrate.Substrate { return substrate.NewModel(ids) }
			run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{Substrate: behind})
			if err != nil {
				t.Fatalf("%s, seed %d: %v", path, seed, err)
			}
			if len(run.Failures) > 0 || run.StoryDiff != "" {
				t.Errorf("%s under seed %d: %s%s", path, seed, strings.Join(run.Failures, "; "), run.StoryDiff)
			}
		}
	}
}

// TestStorySaysWhyAnActionIsSkipped: a scripted action that does not apply is skipped, and the
// story says why: the process does not receive the topic it is fed (naming what it does
// receive), is down, is already running, or has refused.
func TestStorySaysWhyAnActionIsSkipped(t *testing.T) {
	text := `topic e partitions=1 external
topic c1 partitions=1
process p1 receives=e sends=c1
process p2 receives=c1
produce topic=e value=A
feed p2 topic=e
start p1
crash p1
feed p1 topic=e
produce-corrupt topic=e
start p1
feed p1 topic=e
feed p1 topic=e
drain p1
`
	f, err := scenariofile.ParseFile("skips.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	story := strings.Join(run.Story, "\n")
	for _, want := range []string{
		"> feed p2 topic=e\n  skipped: p2 does not receive e (its last start received c1)\n",
		"> start p1\n  skipped: p1 is already running\n",
		"> feed p1 topic=e\n  skipped: p1 is down\n",
		"> drain p1\n  skipped: p1 has refused (UNDECODABLE_METADATA) and takes no further action\n",
	} {
		if !strings.Contains(story, want) {
			t.Errorf("the story lacks %q:\n%s", want, story)
		}
	}
}

package scenariofile

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Running a scenario file: sim.Run gives the verdict (the authority), sim.RunObserved the same
// run with a snapshot after every action (for the story and the expectations); the runner
// refuses to report when the two disagree. Then the story is rendered and every expectation and
// the recorded story are checked.

// FileRunOptions are the parts of a file run the command line chooses.
type FileRunOptions struct {
	Sabotage string       // engine or host sabotage mode name; "" is honest
	Sinks    []trace.Sink // extra sinks for sim.Run's events (--trace, -v)
}

// FileRun is a finished run of a scenario file.
type FileRun struct {
	File     *File
	Result   *sim.Result
	Observed *sim.Observed
	Hash     string   // sim.Run's trace hash
	Events   int      // sim.Run's event count
	Story    []string // the readable story of the run
	// Failures lists every expectation that did not hold, each naming its file and line.
	Failures []string
	// StoryDiff describes the first difference from the recorded story ("" when it matches or
	// the file records none).
	StoryDiff string
}

// OK reports whether the run met every expectation, told the recorded story and passed — or
// violated as the file expects (a reproduction of a bug kept as a regression scenario).
func (r *FileRun) OK() bool {
	if len(r.Failures) > 0 || r.StoryDiff != "" {
		return false
	}
	if r.Result.Verdict == "pass" {
		return true
	}
	for _, e := range r.File.Expects {
		if e.Kind == ExpectVerdict && e.Verdict == "violation" {
			return true
		}
	}
	return false
}

// RunFile runs a parsed scenario file.
func RunFile(f *File, o FileRunOptions) (*FileRun, error) {
	engine, host := node.SabotageNone, sim.HostHonest
	if o.Sabotage != "" {
		var err error
		if engine, host, err = sim.ParseSabotage(o.Sabotage); err != nil {
			return nil, err
		}
	}
	set := f.Settings.Sim()
	hash := trace.NewHashSink()
	opts := sim.RunOptions{Sabotage: engine, HostSabotage: host, Sinks: append([]trace.Sink{hash}, o.Sinks...)}
	res := sim.Run(f.Scenario, set, choose.NewRandom(set.Seed), opts)

	collect := &trace.CollectSink{}
	obsOpts := sim.RunOptions{Sabotage: engine, HostSabotage: host, Sinks: []trace.Sink{collect}}
	ob := sim.RunObserved(f.Scenario, set, choose.NewRandom(set.Seed), obsOpts)
	if err := sameRun(res, ob.Result); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	run := &FileRun{File: f, Result: res, Observed: ob, Hash: hash.Sum(), Events: hash.Events()}
	st := newStory(f, ob, collect.Events)
	run.Story = st.render()
	run.Failures = checkExpects(f, ob, st, set, obsOpts)
	run.StoryDiff = diffStory(f, run.Story)
	return run, nil
}

// sameRun checks that the observed run made the run sim.Run made.
func sameRun(a, b *sim.Result) error {
	switch {
	case a.Verdict != b.Verdict || !reflect.DeepEqual(a.Violations, b.Violations):
		return fmt.Errorf("the observed run diverged from sim.Run (verdicts %s vs %s): sim/script_ext_observe.go no longer follows sim.Run", a.Verdict, b.Verdict)
	case a.Steps != b.Steps || !reflect.DeepEqual(a.Deliveries, b.Deliveries) || !reflect.DeepEqual(a.Stats, b.Stats):
		return fmt.Errorf("the observed run diverged from sim.Run (steps %d vs %d): sim/script_ext_observe.go no longer follows sim.Run", a.Steps, b.Steps)
	}
	return nil
}

// diffStory compares the rendered story with the file's recorded one and names the first
// differing line (by its line number in the file).
func diffStory(f *File, got []string) string {
	if f.Story == nil {
		return ""
	}
	want := f.Story
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("%s:%d: the story differs from the recorded one:\n  recorded: %s\n  now:      %s",
				f.Path, f.StoryLine+1+i, orEnd(w, i < len(want)), orEnd(g, i < len(got)))
		}
	}
	return ""
}

func orEnd(s string, present bool) string {
	if !present {
		return "(end of story)"
	}
	return s
}

// Rewrite returns the file's text with its story section replaced by the run's story (the
// -rewrite workflow: read the diff, commit only what you understand).
func (r *FileRun) Rewrite() []byte {
	body := strings.TrimRight(r.File.Body, "\n") + "\n"
	return []byte(body + storySeparator + "\n" + strings.Join(r.Story, "\n") + "\n")
}

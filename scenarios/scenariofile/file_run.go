package scenariofile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/substrate"
)

// Running a scenario file: one run, sim.RunObserved (sim.Run's run with a snapshot after every
// action): its result is the verdict, its snapshots and events make the story and judge the
// expectations. Then the story is rendered and every expectation and the recorded story are
// checked.

// FileRunOptions are the parts of a file run the command line chooses.
type FileRunOptions struct {
	Sabotage string       // engine or host sabotage mode name; "" is honest
	Sinks    []trace.Sink // extra sinks for sim.Run's events (--trace, -v)
	// Substrate, when not nil, runs the file on a live substrate (sim.RunOptions.Substrate).
	Substrate func(ids func() substrate.TopicID, step func() int) substrate.Substrate
}

// FileRun is a finished run of a scenario file.
type FileRun struct {
	File     *File
	Result   *spec.Result
	Observed *sim.Observed
	Hash     string   // sim.Run's trace hash
	Events   int      // sim.Run's event count
	Story    []string // the readable story of the run
	// Failures lists every expectation that did not hold, each naming its file and line.
	Failures []string
	// StoryDiff describes the first difference from the recorded story ("" when it matches or
	// the file records none).
	StoryDiff string
	// Options are the options the file ran with (its sabotage, parsed once, and its substrate;
	// no sinks), for another run of the same choices to run alike.
	Options sim.RunOptions
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
	engine, host := node.SabotageNone, spec.HostHonest
	if o.Sabotage != "" {
		var err error
		if engine, host, err = spec.ParseSabotage(o.Sabotage); err != nil {
			return nil, err
		}
	}
	set := f.Settings.Sim()
	hash, collect := trace.NewHashSink(), &trace.CollectSink{}
	opts := sim.RunOptions{Sabotage: engine, HostSabotage: host, Sinks: append([]trace.Sink{hash, collect}, o.Sinks...),
		Substrate: o.Substrate}
	ob := sim.RunObserved(f.Scenario, set, choose.NewRandom(set.Seed), opts)
	run := &FileRun{File: f, Result: ob.Result, Observed: ob, Hash: hash.Sum(), Events: hash.Events()}
	st := newStory(f, ob, collect.Events)
	run.Story = st.render()
	opts.Sinks = nil
	run.Options = opts
	run.Failures = checkExpects(f, ob, st, set, opts)
	run.StoryDiff = diffStory(f, run.Story, o.Substrate != nil)
	return run, nil
}

// diffStory compares the rendered story with the file's recorded one and names the first
// differing line (by its line number in the file). live compares the causes a line lists as a
// set: a stamp lists them in the order of their topic IDs, which on a live substrate are the
// substrate's, not the seeded ones the story was recorded with.
func diffStory(f *File, got []string, live bool) string {
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
		if w != g && !(live && causesAsSet(w) == causesAsSet(g)) {
			return fmt.Sprintf("%s:%d: the story differs from the recorded one:\n  recorded: %s\n  now:      %s",
				f.Path, f.StoryLine+1+i, orEnd(w, i < len(want)), orEnd(g, i < len(got)))
		}
	}
	return ""
}

// causesAsSet returns a story line with the causes after " causes " sorted.
func causesAsSet(line string) string {
	head, causes, ok := strings.Cut(line, " causes ")
	if !ok {
		return line
	}
	return head + " causes " + sortedWords(causes)
}

// sortedWords returns the words of s sorted, one space apart.
func sortedWords(s string) string {
	list := strings.Fields(s)
	slices.Sort(list)
	return strings.Join(list, " ")
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

package scenarios

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/shrink"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The script pass of a shrink and the scenario file it writes: the shrunk run's safety phase as
// scripted actions, reduced by removing actions, then written with Format so a person can read,
// edit and re-run the reproduction without the choice list.

// shrinkFileSettings are the settings a shrunk scenario file runs with: the seed's own (its swarm
// settings, durations and data streams), so the scripted run meets the faults it met.
func shrinkFileSettings(spec Spec) scenariofile.FileSettings {
	fs := scenariofile.DefaultFileSettings()
	fs.Seed, fs.Swarm = spec.Seed, spec.Seed
	return fs
}

// scriptRun runs scn with the given script the way RunFile runs a scenario file.
func (s *shrinkRun) scriptRun(scn *spec.Scenario, script []spec.ScriptedAction) *spec.Result {
	c := *scn
	c.Script = script
	set := shrinkFileSettings(s.spec).Sim()
	engine, host, err := spec.ParseSabotage(s.spec.Sabotage)
	if err != nil {
		panic(err) // the spec prepared: its sabotage parses
	}
	return sim.Run(&c, set, choose.NewRandom(set.Seed), sim.RunOptions{Sabotage: engine, HostSabotage: host})
}

// shrinkScript reduces a script with the budget left and writes the scenario file text into
// out.File: the shrunk run's script when, run as a file runs, it fails with the target criterion
// first, or else the original run's script when that does (out.ScriptFails says whether either
// did; otherwise the shrunk run's script is written with a note).
func (s *shrinkRun) shrinkScript(out *Shrunk, original []spec.ScriptedAction) {
	prep, err := s.spec.Prepare()
	if err != nil {
		panic(err)
	}
	scn := prep.Scenario
	var last *spec.Result
	for _, script := range [][]spec.ScriptedAction{out.Script, original} {
		if s.left() == 0 || len(script) == 0 {
			break
		}
		s.attempts++
		if last = s.scriptRun(scn, script); failsFirst(last, s.target) {
			out.Script, out.ScriptFails = script, true
			break
		}
	}
	if out.ScriptFails {
		test := func(candidate []spec.ScriptedAction) (bool, int) {
			return failsFirst(s.scriptRun(scn, candidate), s.target), len(candidate)
		}
		out.Script, out.ScriptStats = shrink.List(out.Script, test, nil, s.left())
		s.attempts += out.ScriptStats.Attempts
		if small := s.shrinkTopology(scn, out.Script); small != scn {
			c := *small
			c.Script = out.Script
			if last := s.scriptRun(small, out.Script); s.fileReproduces(formatShrunk(&c, s.spec, out, last)) {
				out.topologyOf = [2]int{len(scn.Processes), len(scn.Topics)}
				scn = small
			}
		}
		last = s.scriptRun(scn, out.Script)
	}
	c := *scn
	c.Script = out.Script
	out.File = formatShrunk(&c, s.spec, out, last)
	if out.ScriptFails && !s.fileReproduces(out.File) {
		out.ScriptFails = false
		out.File = formatShrunk(&c, s.spec, out, last)
	}
}

// fileReproduces parses a shrunk scenario file and runs it as `simrun run` does: it must fail
// with the target criterion first and meet its expectations.
func (s *shrinkRun) fileReproduces(text []byte) bool {
	f, err := scenariofile.ParseFile("shrunk.txt", text)
	if err != nil {
		return false
	}
	run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{Sabotage: s.spec.Sabotage})
	return err == nil && run.OK() && failsFirst(run.Result, s.target)
}

// formatShrunk writes the scenario file of a shrunk run: comments telling where it came from and
// how to run it, the topology and script, and the expected verdict.
func formatShrunk(scn *spec.Scenario, spec Spec, out *Shrunk, last *spec.Result) []byte {
	run := "go run ./cmd/simrun run"
	if spec.Sabotage != "" {
		run += " --sabotage " + spec.Sabotage
	}
	comments := []string{
		fmt.Sprintf("Shrunk reproduction of %s: the first violation is %s.", RerunCommand(out.From), out.Criterion),
		fmt.Sprintf("Before: %s. After: %s; this script: %d actions.", out.Before, out.After, len(scn.Script)),
		fmt.Sprintf("Run it: %s FILE (the settings line keeps the seed's swarm settings and data streams).", run),
	}
	if of := out.topologyOf; of[0] > 0 {
		comments = append(comments, fmt.Sprintf("Topology: %d of the run's %d processes and %d of its %d topics; without the others it fails the same way.",
			len(scn.Processes), of[0], len(scn.Topics), of[1]))
	}
	if out.ScriptFails && last != nil {
		comments = append(comments, "Violation: "+last.Violations[0].String())
	} else {
		comments = append(comments, "NOTE: run as a script this does not fail with "+string(out.Criterion)+
			" first; the replay file written beside it reproduces the run exactly.")
	}
	text := string(scenariofile.Format(scn, shrinkFileSettings(spec), comments...))
	if out.ScriptFails {
		text = strings.TrimRight(text, "\n") + "\nexpect verdict: violation " + string(out.Criterion) + "\n"
	}
	return []byte(text)
}

// String renders a size as "N choices, M steps (S safety)".
func (z Size) String() string {
	return fmt.Sprintf("%d choices, %d steps (%d safety, %d scripted actions)", z.Choices, z.Steps, z.Safety, z.Script)
}

// Replay returns the replay file of the shrunk run, with notes for a person.
func (out *Shrunk) Replay() *replay.File {
	r := out.Spec.ReplayOf(out.Result, out.Hash)
	r.Choices = out.Choices
	r.Notes = append(r.Notes,
		fmt.Sprintf("shrunk: first violation %s; before %s; after %s", out.Criterion, out.Before, out.After),
		"violation: "+out.Result.Violations[0].String())
	return r
}

package scenariofile

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Counterexamples as scenario files: the path to a violation is replayed in place with its
// script recorded, and written with Format so that `simrun run FILE --sabotage MODE` reproduces
// it (the file's seed is the exploration's, so topic IDs and with them the engines' channel
// order are the same; explored external records all carry the same payload, which the file
// spells out on produce lines).

// explorePayloadKey and explorePayloadValue are the bytes every explored external record
// carries (the exploration's payload stream draws only zeros).
var (
	explorePayloadKey   = []byte{0}
	explorePayloadValue = []byte{0, 0, 0, 0, 0}
)

// Counterexample renders violation v of the scope called name with the given budget, whose
// scenario scn was explored with opts under sabotage mode name ("" for none), as a scenario
// file, and checks that running the file reproduces a violation of the same criterion. It
// returns the file's bytes.
func Counterexample(name, budget string, scn *spec.Scenario, opts sim.ExploreOptions, sabotage string, v sim.ExploreViolation) ([]byte, error) {
	res, script, err := sim.ReplayPath(scn, opts, v.Path)
	if err != nil {
		return nil, fmt.Errorf("scope %s: %w", name, err)
	}
	if v.Restart != nil {
		return restartCounterexample(name, budget, scn, opts, sabotage, v, script)
	}
	if res.Verdict != "violation" {
		return nil, fmt.Errorf("scope %s: the path to %s does not reproduce in place", name, v.Criterion)
	}
	for i := range script {
		if script[i].Kind == spec.ActProducePlain && script[i].Key == nil {
			script[i].Key, script[i].Value = explorePayloadKey, explorePayloadValue
		}
	}
	data := formatCounterexample(name, budget, scn, opts, sabotage, v, script)
	// The expectation makes 'simrun run FILE --sabotage MODE' report the violation as expected
	// (as shrunk reproductions do, shrink_script.go) rather than as a failure.
	data = append(bytes.TrimRight(data, "\n"), []byte("\nexpect verdict: violation "+string(v.Criterion)+"\n")...)
	return data, checkReproduces(data, sabotage, v.Criterion)
}

// formatCounterexample writes the explored path's script as a scenario file with the
// exploration's settings and comments naming the violation.
func formatCounterexample(name, budget string, scn *spec.Scenario, opts sim.ExploreOptions, sabotage string, v sim.ExploreViolation, script []spec.ScriptedAction) []byte {
	for i := range script {
		if script[i].Kind == spec.ActProducePlain && script[i].Key == nil {
			script[i].Key, script[i].Value = explorePayloadKey, explorePayloadValue
		}
	}
	scn.Script = script
	set := sim.ExploreSettings(opts)
	fs := DefaultFileSettings()
	fs.Seed, fs.LivenessStepsMax, fs.HopsMax = set.Seed, set.LivenessStepsMax, set.ForwardHopsMax
	fs.RetentionRecords = set.RetentionRecords
	fs.Given = map[string]bool{"seed": true, "hops": true}
	mode := sabotage
	if mode == "" {
		mode = "NONE"
	}
	return Format(scn, fs,
		fmt.Sprintf("Shortest counterexample found by 'simrun explore --scenario %s --sabotage %s' (budget %s).", name, mode, budget),
		fmt.Sprintf("%s (process %d): %s", v.Criterion, v.Process, v.Detail),
		fmt.Sprintf("Reproduce: simrun run FILE --sabotage %s", mode))
}

// restartCounterexample writes a RESTART_INVISIBILITY violation an exploration's restart check
// found: the path's script with an 'expect restart-invisible' line after the action the restart
// followed, which running the file must find broken.
func restartCounterexample(name, budget string, scn *spec.Scenario, opts sim.ExploreOptions, sabotage string, v sim.ExploreViolation, script []spec.ScriptedAction) ([]byte, error) {
	r := v.Restart
	if r.After < 0 || r.After >= len(script) {
		return nil, fmt.Errorf("scope %s: the restart follows action %d of a path of %d actions", name, r.After, len(script))
	}
	data := formatCounterexample(name, budget, scn, opts, sabotage, v, script)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	first := len(lines) - countActionLines(script) // the action lines close the file
	at := first + actionLine(script, r.After)
	out := append(append(slices.Clone(lines[:at+1]), "expect restart-invisible "+r.Process), lines[at+1:]...)
	data = []byte(strings.Join(out, "\n") + "\n")
	f, err := ParseFile("counterexample", data)
	if err != nil {
		return nil, fmt.Errorf("the counterexample file does not parse: %w", err)
	}
	run, err := RunFile(f, FileRunOptions{Sabotage: sabotage})
	if err != nil {
		return nil, fmt.Errorf("the counterexample file does not run: %w", err)
	}
	if len(run.Failures) == 0 {
		return nil, fmt.Errorf("scope %s: the counterexample file does not reproduce %s", name, v.Criterion)
	}
	return data, nil
}

// countActionLines returns how many lines Format writes for script (repeated feeds fold into one).
func countActionLines(script []spec.ScriptedAction) int {
	return actionLine(script, len(script)-1) + 1
}

// actionLine returns the index, among the action lines Format writes for script, of the line
// that holds action i.
func actionLine(script []spec.ScriptedAction, i int) int {
	line := 0
	for j := 0; j < len(script); {
		n := 1
		for script[j].Kind == spec.ActFeed && j+n < len(script) && sameAction(script[j], script[j+n]) {
			n++
		}
		if i < j+n {
			return line
		}
		line++
		j += n
	}
	return line
}

// checkReproduces runs a written counterexample file and checks it violates crit.
func checkReproduces(data []byte, sabotage string, crit spec.Criterion) error {
	f, err := ParseFile("counterexample", data)
	if err != nil {
		return fmt.Errorf("the counterexample file does not parse: %w", err)
	}
	run, err := RunFile(f, FileRunOptions{Sabotage: sabotage})
	if err != nil {
		return fmt.Errorf("the counterexample file does not run: %w", err)
	}
	if len(run.Failures) > 0 || !run.OK() {
		return fmt.Errorf("the counterexample file's expectations do not hold: %s", strings.Join(run.Failures, "; "))
	}
	for _, got := range run.Result.Violations {
		if got.Criterion == crit {
			return nil
		}
	}
	return fmt.Errorf("the counterexample file does not reproduce %s (verdict %s, %d violations)", crit, run.Result.Verdict, len(run.Result.Violations))
}

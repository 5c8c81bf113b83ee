package scenarios

import (
	"embed"
	"fmt"
	"path"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The targeted scenarios of SPEC §9, one scenario file each under testdata/, embedded and
// registered under their file names (diamond_hold, join_clamp, ...), so that
// "simrun --scenario diamond_hold" runs one by name, like "simrun run scenarios/testdata/diamond_hold.txt".
// The files are the source of truth; TestScenarioFiles checks their expectations and stories.

//go:embed testdata/*.txt
var targetedFS embed.FS

// TargetedNames returns the names of the embedded targeted scenario files, sorted.
func TargetedNames() []string {
	entries, err := targetedFS.ReadDir("testdata")
	if err != nil {
		panic("scenarios: reading the embedded scenario files: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".txt"); ok {
			names = append(names, n)
		}
	}
	return names
}

// Targeted parses the embedded targeted scenario file of the given name.
func Targeted(name string) (*scenariofile.File, error) {
	p := path.Join("testdata", name+".txt")
	data, err := targetedFS.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("no targeted scenario %q (known: %s)", name, strings.Join(TargetedNames(), ", "))
	}
	return scenariofile.ParseFile("scenarios/"+p, data)
}

func init() {
	for _, name := range TargetedNames() {
		f, err := Targeted(name)
		if err != nil {
			panic("scenarios: embedded scenario file does not parse: " + err.Error())
		}
		summary := "targeted scenario (scenarios/testdata/" + name + ".txt)"
		if len(f.Comments) > 0 {
			summary = firstSentence(f.Comments)
		}
		Register(Builder{Name: name, Summary: summary, Build: func(_ uint64, opts Options) (*spec.Scenario, error) {
			if opts.Processes != 0 {
				return nil, fmt.Errorf("scenario %s has a fixed topology: --processes is not supported", name)
			}
			// Parsed again on every call: the caller owns the scenario it gets.
			f, err := Targeted(name)
			if err != nil {
				return nil, err
			}
			return f.Scenario, nil
		}})
	}
}

// firstSentence returns the opening comment up to its first colon or full stop, on one line.
func firstSentence(comments []string) string {
	text := strings.Join(comments, " ")
	if i := strings.Index(text, ": "); i >= 0 {
		text = text[i+2:]
	}
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	if len(text) > 110 {
		text = text[:107] + "..."
	}
	return text
}

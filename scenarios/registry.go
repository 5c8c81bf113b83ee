package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Options are the command line's scenario overrides, passed to every Builder.
type Options struct {
	// Processes asks for a generated topology of this many processes (simrun --processes N); 0
	// means the scenario's own size. A scenario with a fixed topology rejects a non-zero value.
	Processes int
}

// Builder is one entry of the catalogue: a name, a one-line summary (simrun list) and the
// function that builds the scenario for a seed. A fixed scenario ignores the seed. Build returns
// a scenario of its own on every call, sharing nothing with another call's: the caller may
// change it.
type Builder struct {
	Name    string
	Summary string
	Build   func(seed uint64, opts Options) (*spec.Scenario, error)
}

var registry = map[string]Builder{}

// Register adds a scenario to the catalogue; scenario files call it from init. A duplicate or
// empty name, or a nil Build, is a programming error and panics.
func Register(b Builder) {
	if b.Name == "" || b.Build == nil {
		panic("scenarios: Register needs a name and a Build function")
	}
	if _, dup := registry[b.Name]; dup {
		panic("scenarios: scenario " + b.Name + " registered twice")
	}
	registry[b.Name] = b
}

// Lookup returns the scenario registered under name.
func Lookup(name string) (Builder, bool) {
	b, ok := registry[name]
	return b, ok
}

// Names returns every registered scenario name, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Build looks up and builds a scenario; an unknown name is an error listing the known ones.
func Build(name string, seed uint64, opts Options) (*spec.Scenario, error) {
	b, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	scn, err := b.Build(seed, opts)
	if err != nil {
		return nil, err
	}
	if err := scn.Validate(); err != nil {
		return nil, fmt.Errorf("scenario %s seed %d: %w", name, seed, err)
	}
	return scn, nil
}

package scopes

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
)

var exploreReference = flag.Bool("explore.reference", false, "also explore the reference scope completely (minutes)")

// TestScopeCatalogue is issue 7 item 6 (and issue 8 item 3): the honest engine and session tiers
// are clean in every scope (explored completely), and every sabotage mode of the engine, the host
// (except TREAT_COVERED_FEED_AS_REPLAY) and the session tiers is caught by the exhaustive
// exploration of a scope that claims it.
func TestScopeCatalogue(t *testing.T) {
	claimed := map[string][]Scope{}
	for _, sc := range ShapedScopes() {
		for _, m := range sc.Catches {
			claimed[m] = append(claimed[m], sc)
		}
		if sc.Reference && !*exploreReference {
			continue
		}
		opts, err := sc.Options()
		if err != nil {
			t.Fatal(err)
		}
		res := sim.Explore(sc.Build(), opts)
		t.Logf("%-18s honest: %v", sc.Name, res)
		if res.Verdict != "pass" || !res.Complete || res.TerminalStates == 0 {
			t.Errorf("scope %s: the honest engine is not clean: %v %+v", sc.Name, res, res.Violations)
		}
	}
	for _, m := range append(reachableEngineHostModes(), tierModes(spec.TierSession)...) {
		if len(claimed[m]) == 0 {
			t.Errorf("no scope claims sabotage mode %s", m)
			continue
		}
		for _, sc := range claimed[m] {
			res := exploreSabotaged(t, sc, m)
			if res.Verdict != "violation" {
				t.Errorf("scope %s does not catch %s: %v", sc.Name, m, res)
				continue
			}
			t.Logf("%-18s catches %-24s %s after %d states", sc.Name, m, res.Violations[0].Criterion, res.States)
		}
	}
}

// reachableEngineHostModes lists the engine and host sabotage modes an honest host can reach:
// every one but TREAT_COVERED_FEED_AS_REPLAY.
func reachableEngineHostModes() []string {
	var modes []string
	for _, m := range node.SabotageModes() {
		if m != node.SabotageTreatCoveredFeedAsReplay {
			modes = append(modes, m.String())
		}
	}
	return append(modes, tierModes(spec.TierHost)...)
}

// tierModes returns the names of the registered sabotage modes of one tier, in order.
func tierModes(tier spec.SabotageTier) []string {
	var names []string
	for _, m := range spec.SabotageModes() {
		if m.Tier == tier {
			names = append(names, m.Name)
		}
	}
	return names
}

// exploreSabotaged explores sc under sabotage mode name until the first violation.
func exploreSabotaged(t *testing.T, sc Scope, name string) sim.ExploreResult {
	t.Helper()
	opts, err := sc.Options()
	if err != nil {
		t.Fatal(err)
	}
	opts.Sabotage, opts.HostSabotage, err = spec.ParseSabotage(name)
	if err != nil {
		t.Fatal(err)
	}
	opts.StopAtFirst = true
	return sim.Explore(sc.Build(), opts)
}

func TestLookupScope(t *testing.T) {
	for _, name := range []string{"chain", "general.crash.a-m.am", "general.none.a"} {
		if sc, err := LookupScope(name); err != nil || sc.Name != name {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"nope", "general.crash.am.a-m", "general.crash", "general.bogus.a"} {
		if _, err := LookupScope(name); err == nil {
			t.Fatalf("the unknown scope name %s was accepted", name)
		}
	}
	names := map[string]bool{}
	for _, s := range Scopes() {
		if names[s.Name] {
			t.Fatalf("scope %s listed twice", s.Name)
		}
		names[s.Name] = true
		if !slices.Contains(Families(), s.Family) {
			t.Fatalf("scope %s has family %q", s.Name, s.Family)
		}
	}
}

// TestCounterexampleFilesReproduce writes the shortest counterexample of every claimed catch as
// a scenario file and checks that running the file reproduces the violation.
func TestCounterexampleFilesReproduce(t *testing.T) {
	for _, sc := range ShapedScopes() {
		for _, m := range sc.Catches {
			res := exploreSabotaged(t, sc, m)
			if len(res.Violations) == 0 {
				t.Fatalf("%s does not catch %s", sc.Name, m)
			}
			opts, _ := sc.Options()
			opts.Sabotage, opts.HostSabotage, _ = spec.ParseSabotage(m)
			v := sim.ShortestViolation(sc.Build(), opts, res.Violations[0])
			data, err := scenariofile.Counterexample(sc.Name, sc.Budget, sc.Build(), opts, m, v)
			if err != nil {
				t.Errorf("%s under %s: %v\n%s", sc.Name, m, err, data)
				continue
			}
			if want := "expect verdict: violation " + string(v.Criterion); !strings.Contains(string(data), want) {
				t.Errorf("%s under %s: the file does not say %q, so simrun run reports it as a failure", sc.Name, m, want)
			}
			t.Logf("%s under %s: %d steps", sc.Name, m, v.Depth)
		}
	}
}

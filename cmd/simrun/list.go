package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// listEntry is one line of `simrun list`: a scenario or a sabotage mode.
type listEntry struct {
	Kind    string `json:"kind"` // "scenario", "sabotage" (engine), "host-sabotage" or "session-tier"
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// listMain is `simrun list [--json]`: every scenario and every sabotage mode, one line each.
func listMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("simrun list", "usage: simrun list [--json]\n\nLists every scenario and sabotage mode, one line each (kind, name, summary).")
	jsonOut := fs.Bool("json", false, "print a JSON array instead of lines")
	rest, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return usageError(stderr, "simrun list", "unexpected argument %q", rest[0])
	}
	entries := listEntries()
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(entries)
		return exitPass
	}
	for _, e := range entries {
		fmt.Fprintf(stdout, "%-13s  %-28s  %s\n", e.Kind, e.Name, e.Summary)
	}
	return exitPass
}

// listEntries returns the scenarios (sorted by name), then the sabotage modes (engine modes in
// node's order, then host modes), each with what it needs to be caught.
func listEntries() []listEntry {
	var out []listEntry
	for _, name := range scenarios.Names() {
		b, _ := scenarios.Lookup(name)
		out = append(out, listEntry{Kind: "scenario", Name: name, Summary: b.Summary})
	}
	for _, m := range spec.SabotageModes() {
		switch m.Tier {
		case spec.TierEngine:
			out = append(out, listEntry{Kind: "sabotage", Name: m.Name, Summary: eligibility(m.Name)})
		case spec.TierHost:
			out = append(out, listEntry{Kind: "host-sabotage", Name: m.Name, Summary: eligibility(m.Name)})
		case spec.TierSession:
			out = append(out, listEntry{Kind: "session-tier", Name: m.Name,
				Summary: "a session tier's fault; measure it with simrun sweep --scenario session --sabotage " + m.Name})
		}
	}
	return out
}

// eligibility says which seeds can expose a sabotage mode (swarm.SabotageNeeds).
func eligibility(mode string) string {
	needs, ok := swarm.SabotageNeeds(mode)
	switch {
	case !ok:
		return "no seed is eligible: its guard is unreachable by a host keeping the in-order feed"
	case len(needs) == 0:
		return "eligible on every seed"
	}
	names := make([]string, len(needs))
	for i, k := range needs {
		names[i] = k.String()
	}
	return "eligible when the seed switches on " + strings.Join(names, " or ")
}

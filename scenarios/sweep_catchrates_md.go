package scenarios

import (
	"fmt"
	"strings"
)

// Markdown renders the table as results/catch-rates.md: how it was made (command, commit,
// machine), one row per mode and the exempt modes with their reasons.
func (t *CatchRateTable) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Sabotage catch rates\n\n")
	swept := fmt.Sprintf("the scenario its row names (`%s`, but `%s` for the session tiers' modes, whose "+
		"tiers act only where there are sessions)", t.Scenario, SessionName)
	if t.Scenario == SessionName {
		swept = fmt.Sprintf("the `%s` scenario", SessionName)
	}
	fmt.Fprintf(&b, "Each sabotage mode over seeds %d-%d of %s: the seeds on which the "+
		"simulator found a violation, over all seeds and over the **eligible** seeds (whose settings switch on "+
		"a fault class the mode needs, `swarm.Settings.Eligible`), next to the protocol's own figure from SPEC "+
		"§6.2. Goals: at least half of the eligible seeds caught, and a rate over all seeds "+
		"above the protocol's. `go test ./scenarios` sweeps the first %d seeds of each mode again and fails "+
		"when a mode is caught on more than %d fewer of them than the **floor** column "+
		"(`scenarios/catchrate_test.go`), so a weaker oracle is a red test.\n\n", t.FirstSeed, t.LastSeed, swept,
		FloorSeeds, FloorSlack)
	fmt.Fprintf(&b, "- command: `%s`\n- commit: `%s`\n- machine: %s\n- took: %.0f s\n", t.Command, t.Commit, t.Machine, t.Seconds)
	if t.Interrupted {
		fmt.Fprintf(&b, "- **interrupted**: the sweep was stopped early; the rows count the seeds that ran\n")
	}
	fmt.Fprintf(&b, "\n| mode | scenario | caught / all | rate | caught / eligible | eligible rate | caught / fault fired | fired rate | protocol (§6.2) | protocol rate | beats protocol | ≥ half eligible | floor | caught by (seeds) |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|:---:|---:|---|\n")
	for _, r := range t.Modes {
		proto, protoRate, beats := "-", "-", "-"
		if r.Protocol != nil {
			proto = fmt.Sprintf("%d/%d", r.Protocol.Caught, r.Protocol.Seeds)
			protoRate = pct(r.Protocol.Rate)
			beats = yesNo(r.BeatsProtocol)
		}
		half := yesNo(r.HalfOfEligible)
		if r.Exempt != "" {
			beats, half = "exempt", "exempt"
		}
		scn := r.Scenario
		if scn == "" {
			scn = t.Scenario
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %s | %d/%d | %s | %d/%d | %s | %s | %s | %s | %s | %d/%d | %s |\n", r.Mode, scn, r.Caught, r.Runs,
			pct(r.Rate), r.CaughtEligible, r.Eligible, pct(r.EligibleRate), r.CaughtFired, r.Fired, pct(r.FiredRate),
			proto, protoRate, beats, half, r.FloorCaught, r.FloorSeeds, caughtBy(r))
	}
	for _, r := range t.Modes {
		if r.Panics > 0 {
			fmt.Fprintf(&b, "\n**%s: the simulator panicked on %d seeds** (not counted as catches; replay each with "+
				"`go run ./cmd/simrun --seed N --scenario %s --sabotage %s`): %v\n", r.Mode, r.Panics, r.Scenario, r.Mode,
				r.PanicSeeds)
		}
	}
	var exempt []CatchRate
	for _, r := range t.Modes {
		if r.Exempt != "" {
			exempt = append(exempt, r)
		}
	}
	if len(exempt) > 0 {
		fmt.Fprintf(&b, "\nExempt from the goals:\n\n")
		for _, r := range exempt {
			fmt.Fprintf(&b, "- `%s`: %s.\n", r.Mode, r.Exempt)
		}
	}
	fmt.Fprintf(&b, "\nEligibility (`swarm.SabotageNeeds`): IGNORE_CAUSES, NO_FIFO, SKIP_RECEIPT_MERGE, OVEREXPRESS, "+
		"SILENT_DROP and the session tiers' modes but TOKEN_SALVAGE every seed; the others need one of their fault classes switched on by the seed's swarm "+
		"settings (see `sim/swarm/describe.go`). A mode without a rule has no eligible seeds. \"Fault fired\" counts "+
		"the eligible seeds whose run actually took an action of a needed fault class: it separates a generator "+
		"that rarely sets the fault up from checkers that miss it.\n")
	return []byte(b.String())
}

// caughtBy renders the criteria that caught a mode, most seeds first: "S1 640, S3 12".
func caughtBy(r CatchRate) string {
	crits := r.Criteria()
	if len(crits) == 0 {
		return "-"
	}
	parts := make([]string, len(crits))
	for i, c := range crits {
		parts[i] = fmt.Sprintf("%s %d", c, r.CaughtBy[c])
	}
	return strings.Join(parts, ", ")
}

// pct renders a rate as a percentage with one decimal.
func pct(rate float64) string { return fmt.Sprintf("%.1f%%", 100*rate) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

package scenarios

import (
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestTargetedCatchSabotage: the targeted scenarios bite. Each sabotage mode (engine and host)
// makes at least the named scenario file violate the named criterion, where the honest run
// passes (TestScenarioFiles). TREAT_COVERED_FEED_AS_REPLAY is exempt: it disarms a guard no host
// keeping the in-order feed can reach.
func TestTargetedCatchSabotage(t *testing.T) {
	catches := map[string]struct {
		file      string
		criterion spec.Criterion
	}{
		"IGNORE_CAUSES":           {"diamond_hold", spec.CritS1},
		"NO_FIFO":                 {"fifo_behind_blocked_head", spec.CritS3},
		"REDELIVER_REFEEDS":       {"rewind_dropped", spec.CritS2},
		"UNDECODABLE_AS_ABSENT":   {"undecodable_refusal", spec.CritS7},
		"SKIP_RECEIPT_MERGE":      {"causes_known_only_from_held_metadata", spec.CritStruct15},
		"DROP_HELD":               {"held_across_restart", spec.CritLiveness},
		"IGNORE_REMOVED_CHANNELS": {"removed_channel_with_holds", spec.CritLiveness},
		"SILENT_DROP":             {"every_fed_message_delivered", spec.CritLiveness},
		"OVEREXPRESS":             {"overexpression_guard_after_restart", spec.CritOverexpression},
		"IGNORE_RECREATION":       {"recreated_received_topic_refusal", spec.CritRecreation},
		"DELIVER_PAST_DEAD_HOLDS": {"pruned_dead_channel_cannot_deliver_past_held_cause", spec.CritS9},
		"RESET_PAST_LOG_START":    {"truncation_one_unread", spec.CritS8},
		"STATE_BEFORE_COMMIT":     {"crash_inside_commit", spec.CritReference},
		"STATE_AFTER_COMMIT":      {"crash_inside_commit", spec.CritReference},
		"OFFSETS_OUTSIDE_TXN":     {"crash_inside_commit", spec.CritHost},
		"ZOMBIE_IGNORES_FENCE":    {"zombie_commit_fenced", spec.CritHost},
	}
	for _, m := range spec.SabotageModes() {
		if m.Tier == spec.TierSession {
			continue // the session tiers act only in scenarios with sessions: scenarios/session.go
		}
		mode := m.Name
		c, ok := catches[mode]
		if !ok {
			if mode != "TREAT_COVERED_FEED_AS_REPLAY" {
				t.Errorf("sabotage mode %s has no targeted scenario that catches it", mode)
			}
			continue
		}
		t.Run(mode, func(t *testing.T) {
			f, err := Targeted(c.file)
			if err != nil {
				t.Fatal(err)
			}
			run, err := scenariofile.RunFile(f, scenariofile.FileRunOptions{Sabotage: mode})
			if err != nil {
				t.Fatal(err)
			}
			var crits []spec.Criterion
			for _, v := range run.Result.Violations {
				crits = append(crits, v.Criterion)
			}
			if !slices.Contains(crits, c.criterion) || run.OK() {
				t.Fatalf("%s under %s: violations %v, ok %v; want %s", c.file, mode, crits, run.OK(), c.criterion)
			}
		})
	}
}

// TestTargetedRegistered: every targeted file is in the registry under its name and builds the
// scenario its file declares.
func TestTargetedRegistered(t *testing.T) {
	names := TargetedNames()
	if len(names) < 25 {
		t.Fatalf("%d targeted scenario files, want the 25 of SPEC §9 at least", len(names))
	}
	for _, name := range names {
		scn, err := Build(name, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, _ := Targeted(name)
		if scn.Name != name || len(scn.Script) != len(f.Scenario.Script) || len(scn.Script) == 0 {
			t.Fatalf("%s: registry builds %q with %d actions", name, scn.Name, len(scn.Script))
		}
	}
}

// TestBuildReturnsAScenarioOfItsOwn: every registered scenario built twice for one seed gives two
// scenarios sharing nothing, so a caller changing one (a sweep worker, the shrinker) leaves the
// next build intact.
func TestBuildReturnsAScenarioOfItsOwn(t *testing.T) {
	for _, name := range Names() {
		first, err := Build(name, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := first.Topics[0].Name + "/" + first.Processes[0].Name
		first.Topics[0].Name, first.Processes[0].Name = "changed", "changed"
		if len(first.Script) > 0 {
			first.Script[0].Process = "changed"
		}
		second, err := Build(name, 1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if second == first {
			t.Fatalf("%s: two builds return the same *spec.Scenario", name)
		}
		if got := second.Topics[0].Name + "/" + second.Processes[0].Name; got != want {
			t.Fatalf("%s: a change to one build shows in the next: %s, want %s", name, got, want)
		}
		if len(second.Script) > 0 && second.Script[0].Process == "changed" {
			t.Fatalf("%s: a change to one build's script shows in the next", name)
		}
	}
}

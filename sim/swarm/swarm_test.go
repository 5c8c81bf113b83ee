package swarm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

func TestExpandSettingsDeterministic(t *testing.T) {
	for seed := range uint64(50) {
		if a, b := ExpandSettings(seed), ExpandSettings(seed); a != b {
			t.Fatalf("seed %d expanded to two different settings", seed)
		}
	}
	if ExpandSettings(1) == ExpandSettings(2) {
		t.Fatal("seeds 1 and 2 expanded to identical settings")
	}
}

func TestExpandSettingsShape(t *testing.T) {
	const seeds = 1000
	onCount := make([]int, spec.NumActionKinds)
	for seed := range uint64(seeds) {
		s := ExpandSettings(seed)
		if s.Seed != seed {
			t.Fatalf("seed %d: Settings.Seed = %d", seed, s.Seed)
		}
		if s.SafetySteps < 250 || s.SafetySteps > 500 {
			t.Fatalf("seed %d: safety steps %d outside 250..500", seed, s.SafetySteps)
		}
		if s.LivenessStepsMax <= 0 || s.ForwardHopsMax < 1 {
			t.Fatalf("seed %d: liveness budget %d, hops %d", seed, s.LivenessStepsMax, s.ForwardHopsMax)
		}
		for _, k := range []spec.ActionKind{spec.ActFeed, spec.ActDrain, spec.ActCommit, spec.ActStart, spec.ActProducePlain} {
			if !s.Enabled(k) {
				t.Fatalf("seed %d: core action %s is off", seed, k)
			}
		}
		if s.Enabled(spec.ActTxnOpen) != s.Enabled(spec.ActTxnClose) {
			t.Fatalf("seed %d: txn-open %v but txn-close %v", seed, s.Enabled(spec.ActTxnOpen), s.Enabled(spec.ActTxnClose))
		}
		if (s.CorruptProbabilityPct > 0) != s.Enabled(spec.ActProduceCorrupt) {
			t.Fatalf("seed %d: corrupt pct %d with produce-corrupt %v", seed, s.CorruptProbabilityPct, s.Enabled(spec.ActProduceCorrupt))
		}
		if (s.RetentionMicros > 0) != s.Enabled(spec.ActRetention) {
			t.Fatalf("seed %d: retention %dus with retention action %v", seed, s.RetentionMicros, s.Enabled(spec.ActRetention))
		}
		if s.CommitCrashPct < 25 || s.CommitCrashPct > 75 {
			t.Fatalf("seed %d: commit_crash_pct %d, want 25-75", seed, s.CommitCrashPct)
		}
		for _, k := range spec.ActionKinds() {
			d := s.DurationMicros[k]
			if d.Min < 0 || d.Max < d.Min {
				t.Fatalf("seed %d: %s duration range %v", seed, k, d)
			}
			if s.Enabled(k) {
				onCount[k]++
			}
		}
	}
	// Swarm: every optional fault class is on for some seeds and off for others.
	for _, k := range spec.ActionKinds() {
		if swarmKinds[k].always || k == spec.ActCommitCrash { // never scheduled: Settings.CommitCrashPct
			continue
		}
		if onCount[k] == 0 || onCount[k] == seeds {
			t.Errorf("%s on in %d of %d seeds: want both on and off", k, onCount[k], seeds)
		}
	}
}

func TestDescribeListsEveryOptionSeedFirst(t *testing.T) {
	s := ExpandSettings(42)
	d := s.Describe(nil)
	lines := strings.Split(d, "\n")
	if !strings.HasPrefix(lines[0], "seed") || !strings.HasSuffix(lines[0], " 42") {
		t.Fatalf("first line %q, want the seed", lines[0])
	}
	for _, want := range []string{"safety_steps", "liveness_steps_max", "forward_hops_max", "corrupt_probability_pct", "retention_us", "retention_records"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %s:\n%s", want, d)
		}
	}
	for _, k := range spec.ActionKinds() {
		if !strings.Contains(d, "  "+k.String()+" ") {
			t.Errorf("Describe lacks action %s", k)
		}
	}
	s.Weights[spec.ActZombie] = 0
	if !strings.Contains(s.Describe(nil), "zombie                 off") {
		t.Errorf("an off kind is not marked off:\n%s", s.Describe(nil))
	}
}

// TestDescribeSaysWhatTheRunDoes holds the restart check's line to the process the run restarts
// (the drawn index modulo the process count, by name) and the commit crash's two lines to each
// other and to whether crashes happen at all.
func TestDescribeSaysWhatTheRunDoes(t *testing.T) {
	procs := []spec.ProcessSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	s := ExpandSettings(42)
	s.RestartCheck = RestartCheck{On: true, Process: 1520, AtPermille: 814}
	d := s.Describe(procs)
	if want := "restart_check            c (or the next process running with its step committed) from 81.4%"; !strings.Contains(d, want) {
		t.Errorf("Describe lacks %q:\n%s", want, d)
	}
	if strings.Contains(d, "1520") || strings.Contains(d, "modulo") {
		t.Errorf("Describe gives the drawn index, not the process:\n%s", d)
	}
	s.CommitCrashPct, s.Weights[spec.ActCrash] = 62, 100
	d = s.Describe(procs)
	for _, want := range []string{"commit_crash_pct         62% of the crashes", "commit-crash           62%"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q:\n%s", want, d)
		}
	}
	s.Weights[spec.ActCrash] = 0
	d = s.Describe(procs)
	for _, want := range []string{"commit_crash_pct         off: crash is off", "commit-crash           off"} {
		if !strings.Contains(d, want) {
			t.Errorf("with crashes off, Describe lacks %q:\n%s", want, d)
		}
	}
}

func TestEligible(t *testing.T) {
	var s Settings // everything off
	for _, mode := range []string{"IGNORE_CAUSES", "NO_FIFO", "SKIP_RECEIPT_MERGE", "OVEREXPRESS", "SILENT_DROP"} {
		if !s.Eligible(mode) {
			t.Errorf("%s not eligible on a seed with every fault off", mode)
		}
	}
	needs := map[string][]spec.ActionKind{
		"REDELIVER_REFEEDS":       {spec.ActRewind, spec.ActCrash, spec.ActStop, spec.ActMigrate, spec.ActZombie, spec.ActDeleteTopic, spec.ActRecreateTopic},
		"UNDECODABLE_AS_ABSENT":   {spec.ActProduceCorrupt},
		"DROP_HELD":               {spec.ActCrash, spec.ActStop, spec.ActMigrate, spec.ActZombie, spec.ActDeleteTopic, spec.ActRecreateTopic},
		"IGNORE_REMOVED_CHANNELS": {spec.ActRedeclare},
		"IGNORE_RECREATION":       {spec.ActRecreateTopic},
		"DELIVER_PAST_DEAD_HOLDS": {spec.ActDeleteTopic},
		"RESET_PAST_LOG_START":    {spec.ActDeleteRecords, spec.ActRetention},
	}
	for mode, kinds := range needs {
		if s.Eligible(mode) {
			t.Errorf("%s eligible with every fault off", mode)
		}
		for _, k := range kinds {
			on := s
			on.Weights[k] = 1
			if !on.Eligible(mode) {
				t.Errorf("%s not eligible with %s on", mode, k)
			}
		}
	}
	all := s
	for k := range all.Weights {
		all.Weights[k] = 1
	}
	for _, mode := range []string{"NO_SUCH_MODE", "TREAT_COVERED_FEED_AS_REPLAY"} {
		if all.Eligible(mode) {
			t.Errorf("%s eligible", mode)
		}
	}
}

// TestFaultAtStepShape: every enabled fail-closed kind, and only those, gets a step from which the
// scheduler insists it fire, inside its window of the safety phase; the feed lag comes from the
// menu.
func TestFaultAtStepShape(t *testing.T) {
	for seed := range uint64(1000) {
		s := ExpandSettings(seed)
		for _, k := range FailClosedKinds {
			at := s.FaultAtStep[k]
			if !s.Enabled(k) {
				if at != 0 {
					t.Fatalf("seed %d: %s is off but due at step %d", seed, k, at)
				}
				continue
			}
			w := faultAtPct[k]
			lo, hi := int(int64(s.SafetySteps)*w.Min/100), int(int64(s.SafetySteps)*w.Max/100)
			if at < max(1, lo) || at > hi {
				t.Fatalf("seed %d: %s due at step %d, outside %d..%d", seed, k, at, lo, hi)
			}
		}
		if !slices.Contains(feedLagFactors, s.FeedLagFactor) {
			t.Fatalf("seed %d: feed lag %d not in %v", seed, s.FeedLagFactor, feedLagFactors)
		}
	}
	for _, k := range spec.ActionKinds() {
		if !slices.Contains(FailClosedKinds, k) && ExpandSettings(7).FaultAtStep[k] != 0 {
			t.Errorf("%s is not fail-closed but has a due step", k)
		}
	}
}

// TestMetadataBudgetDraw: about one seed in MetadataBudgetShare draws a budget, inside
// metadataBudgetRange, shown in the settings; a scenario's own budget wins over it.
func TestMetadataBudgetDraw(t *testing.T) {
	const seeds = 8000
	on := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		s := ExpandSettings(seed)
		b := s.MetadataBudgetBytes
		if b == 0 {
			if !strings.Contains(s.Describe(nil), "metadata_budget_bytes    the scenario's (tight for 1 seed in 8)") {
				t.Fatalf("seed %d: no budget, described as:\n%s", seed, s.Describe(nil))
			}
			continue
		}
		on++
		if int64(b) < metadataBudgetRange.Min || int64(b) > metadataBudgetRange.Max {
			t.Fatalf("seed %d: budget %d outside %v", seed, b, metadataBudgetRange)
		}
		if want := fmt.Sprintf("metadata_budget_bytes    %d, tight", b); !strings.Contains(s.Describe(nil), want) {
			t.Fatalf("seed %d: Describe lacks %q:\n%s", seed, want, s.Describe(nil))
		}
		if s.MetadataBudget(0) != b || s.MetadataBudget(4096) != 4096 {
			t.Fatalf("seed %d: MetadataBudget(0) = %d, (4096) = %d; want %d and the scenario's 4096", seed, s.MetadataBudget(0), s.MetadataBudget(4096), b)
		}
	}
	if want := seeds / MetadataBudgetShare; on < want*8/10 || on > want*12/10 {
		t.Errorf("%d of %d seeds draw a budget, want about %d", on, seeds, want)
	}
}

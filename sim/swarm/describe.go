package swarm

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Describe prints every option of the settings, seed first, one per line, the way a run prints
// them before its first step so a person sees what this seed does: the step budgets, the scalar
// fault knobs, then each action kind in offer order with its weight (or "off") and its virtual
// duration range in microseconds. processes are the run's, which the restart check picks from.
func (s Settings) Describe(processes []spec.ProcessSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed                     %d\n", s.Seed)
	fmt.Fprintf(&b, "safety_steps             %d\n", s.SafetySteps)
	fmt.Fprintf(&b, "liveness_steps_max       %d\n", s.LivenessStepsMax)
	fmt.Fprintf(&b, "forward_hops_max         %d\n", s.ForwardHopsMax)
	fmt.Fprintf(&b, "corrupt_probability_pct  %s\n", offIfZero(int64(s.CorruptProbabilityPct), "%"))
	fmt.Fprintf(&b, "retention_us             %s\n", offIfZero(s.RetentionMicros, ""))
	fmt.Fprintf(&b, "retention_records        %s\n", offIfZero(int64(s.RetentionRecords), ""))
	fmt.Fprintf(&b, "feed_lag_factor          %s\n", offIfZero(int64(s.FeedLagFactor), ""))
	fmt.Fprintf(&b, "hold_pause_steps         %s\n", offIfZero(int64(s.HoldPauseSteps), ""))
	fmt.Fprintf(&b, "spare_survivors          %s\n", onOff(s.SpareDeadHoldSurvivors))
	fmt.Fprintf(&b, "restart_check            %s\n", s.RestartCheck.describe(processes))
	fmt.Fprintf(&b, "commit_crash_pct         %s\n", s.describeCommitCrash())
	fmt.Fprintf(&b, "metadata_budget_bytes    %s\n", s.describeBudget())
	on := 0
	for k := range spec.NumActionKinds {
		if s.Weights[k] > 0 || (k == spec.ActCommitCrash && s.commitCrashes()) {
			on++
		}
	}
	fmt.Fprintf(&b, "actions                  %d of %d on (weight, duration_us)\n", on, spec.NumActionKinds)
	for _, k := range spec.ActionKinds() {
		d := s.DurationMicros[k]
		weight := "off"
		if s.Weights[k] > 0 {
			weight = fmt.Sprintf("w=%d", s.Weights[k])
		}
		at := ""
		if s.FaultAtStep[k] > 0 {
			at = fmt.Sprintf(" due from step %d", s.FaultAtStep[k])
		}
		if k == spec.ActCommitCrash && s.commitCrashes() {
			weight, at = fmt.Sprintf("%d%%", s.CommitCrashPct), " (a share of the crashes: commit_crash_pct)"
		}
		fmt.Fprintf(&b, "  %-22s %-6s %d..%d%s\n", k, weight, d.Min, d.Max, at)
	}
	return b.String()
}

// commitCrashes reports whether the run crashes processes inside their commits: a share
// CommitCrashPct of the scheduled crashes does, so never when crashes are off.
func (s Settings) commitCrashes() bool {
	return s.CommitCrashPct > 0 && s.Weights[spec.ActCrash] > 0
}

// describeCommitCrash renders CommitCrashPct as what the run does with it.
func (s Settings) describeCommitCrash() string {
	switch {
	case s.CommitCrashPct == 0:
		return "off"
	case !s.commitCrashes():
		return fmt.Sprintf("off: crash is off (%d%% of the crashes mid-step when it is on)", s.CommitCrashPct)
	}
	return fmt.Sprintf("%d%% of the crashes of a process with its step uncommitted land inside its commit", s.CommitCrashPct)
}

// describeBudget renders MetadataBudgetBytes with the share of seeds that draw one.
func (s Settings) describeBudget() string {
	if s.MetadataBudgetBytes == 0 {
		return fmt.Sprintf("the scenario's (tight for 1 seed in %d)", MetadataBudgetShare)
	}
	return fmt.Sprintf("%d, tight: engines whose metadata outgrows it refuse (1 seed in %d)", s.MetadataBudgetBytes, MetadataBudgetShare)
}

func offIfZero(v int64, unit string) string {
	if v == 0 {
		return "off"
	}
	return fmt.Sprintf("%d%s", v, unit)
}

// everySeed marks sabotage modes that every run can expose: they act on ordinary feeds,
// deliveries and sends, so every seed is eligible.
var everySeed = []spec.ActionKind{}

// restartKinds are the faults after which a process starts again from its committed state: a
// crash, a stop, a migration, a zombie's successor, and the task re-initialisation that deleting
// or recreating a received topic forces. DROP_HELD loses holds at any of them; REDELIVER_REFEEDS
// is exposed by the re-feed after them as well as by rewinds.
var restartKinds = []spec.ActionKind{spec.ActCrash, spec.ActStop, spec.ActMigrate, spec.ActZombie, spec.ActDeleteTopic, spec.ActRecreateTopic}

// sabotageNeeds maps each sabotage mode (engine and host modes) to the
// fault classes that can expose it: a seed is eligible when at least one of them is on. An empty
// list means every seed is eligible. TREAT_COVERED_FEED_AS_REPLAY is absent on purpose: no host
// keeping the in-order feed reaches its guard, so no seed is eligible (it is shown by a property
// test instead).
var sabotageNeeds = map[string][]spec.ActionKind{
	"IGNORE_CAUSES":           everySeed,
	"NO_FIFO":                 everySeed,
	"SKIP_RECEIPT_MERGE":      everySeed,
	"OVEREXPRESS":             everySeed,
	"SILENT_DROP":             everySeed,
	"REDELIVER_REFEEDS":       append([]spec.ActionKind{spec.ActRewind}, restartKinds...),
	"UNDECODABLE_AS_ABSENT":   {spec.ActProduceCorrupt},
	"DROP_HELD":               restartKinds,
	"IGNORE_REMOVED_CHANNELS": {spec.ActRedeclare},
	"IGNORE_RECREATION":       {spec.ActRecreateTopic},
	"DELIVER_PAST_DEAD_HOLDS": {spec.ActDeleteTopic},
	"RESET_PAST_LOG_START":    {spec.ActDeleteRecords, spec.ActRetention},
	"STATE_BEFORE_COMMIT":     {spec.ActCrash, spec.ActZombie}, // a crash inside a commit is a crash (CommitCrashPct)
	"STATE_AFTER_COMMIT":      {spec.ActCrash},
	"OFFSETS_OUTSIDE_TXN":     {spec.ActCrash, spec.ActZombie},
	"ZOMBIE_IGNORES_FENCE":    {spec.ActZombie},
	// The session tiers' modes act on session writes and reads, which only a scenario with
	// sessions makes (the session actions are always on in the settings).
	"READ_SKIPS_UNKNOWN_CHANNELS": {spec.ActSessionRead},
	"WRITE_MERGES_LOG_END":        {spec.ActSessionWrite},
	"WRITE_MERGES_BEFORE_COMMIT":  {spec.ActSessionWrite},
	"TOKEN_SALVAGE":               {spec.ActTokenDamage},
	"PROJECTOR_RECORDS_FRONTIER":  {spec.ActSessionRead},
}

// SabotageNeeds returns the fault classes that can expose a sabotage mode (an empty list: every
// seed can) and whether the mode has an eligibility rule at all.
func SabotageNeeds(mode string) ([]spec.ActionKind, bool) {
	needs, ok := sabotageNeeds[mode]
	return needs, ok
}

// Eligible reports whether a run with these settings can expose the sabotage mode: the mode acts
// on every seed, or the settings switch on a fault class it needs (sabotageNeeds: rewinds or
// restarts for REDELIVER_REFEEDS, corrupt produce for UNDECODABLE_AS_ABSENT, topic deletion for
// DELIVER_PAST_DEAD_HOLDS, crashes or zombies for the host's commit modes, ...). Catch rates are
// reported over all seeds and over the eligible ones. An unknown mode, or one without a rule, is
// never eligible.
func (s Settings) Eligible(mode string) bool {
	needs, ok := sabotageNeeds[mode]
	if !ok {
		return false
	}
	if len(needs) == 0 {
		return true
	}
	for _, k := range needs {
		if s.Enabled(k) {
			return true
		}
	}
	return false
}

// onOff names a switch's state.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

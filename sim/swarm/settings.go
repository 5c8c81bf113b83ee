package swarm

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Range is an inclusive range of integers drawn uniformly, such as a duration in microseconds.
type Range struct {
	Min, Max int64
}

// Settings are a run's knobs, expanded from the seed like a swarm test (ExpandSettings) and
// printed before the first step so a person sees what this seed does. Every field is plain data:
// a run with the same scenario, settings and choices is the same run.
type Settings struct {
	Seed uint64

	// SafetySteps is the action budget of the safety phase (faults on). The liveness phase that
	// follows heals the world and runs until nothing moves, bounded by LivenessStepsMax.
	SafetySteps      int
	LivenessStepsMax int

	// Weights gives each action kind's relative weight in the safety phase; zero switches the
	// kind off for this run (swarm testing: most runs exercise a subset of fault classes).
	Weights [spec.NumActionKinds]uint32

	// DurationMicros gives each action kind's virtual duration range, drawn from the durations
	// stream; the engine's work counters add WorkMicrosPerUnit-scaled cost on top.
	DurationMicros [spec.NumActionKinds]Range

	// FaultAtStep gives, for each fail-closed fault class that is on (a corrupt header, a
	// truncation, deleting or recreating a topic: FailClosedKinds), the world step from which the
	// scheduler insists it fire once if it has not yet: late in the safety phase, after holds have
	// built up, so the fault meets a run with something to lose instead of ending its interesting
	// life early (0 = no insistence).
	FaultAtStep [spec.NumActionKinds]int

	// FeedLagFactor skews which received channel a process feeds next: one received channel of
	// each process lags (it weighs 1, the others FeedLagFactor), and the lagging channel rotates
	// every few dozen world steps, so records arrive out of order across channels and a
	// record's causes on the lagging channel are often not yet delivered (holds). 0 or 1 feeds
	// uniformly.
	FeedLagFactor int

	// HoldPauseSteps shapes feeding around holds (the world's feed choice): for this many world steps
	// after a process was fed a message that waits for a cause on another of its channels, it does
	// not feed that channel, so the message stays held across drains and more records queue
	// behind it; it also prefers channels whose next record will wait, and feeds a channel a held
	// head waits on last. 0 feeds without regard to holds (explorations and scripted runs).
	HoldPauseSteps int

	// SpareDeadHoldSurvivors keeps a running process that holds messages on a dead channel out of
	// the crash, stop, migration and zombie targets, so it lives to show whether
	// it delivers past its dead hold. Only an engine that ignored the deletion or recreation gets
	// there. Swarm runs switch it on; explorations and scripted runs leave it off, so an
	// exploration still enumerates every fault the run could take.
	SpareDeadHoldSurvivors bool

	// Fault shaping.
	CorruptProbabilityPct int   // share of external produces that carry a corrupt header, when enabled
	RetentionMicros       int64 // time retention of external topics (0 = infinite)
	RetentionRecords      int   // size retention in records per partition (0 = infinite)
	ForwardHopsMax        int   // application logic forwards a message at most this many hops

	// RestartCheck, when on, runs the run's script again with a clean restart of one process
	// inserted and compares every process's deliveries (RESTART_INVISIBILITY).
	RestartCheck RestartCheck
	// CommitCrashPct is the share, in percent, of the scheduled crashes of a process whose step
	// is not committed that land inside its commit sequence instead, between two of its
	// substrate calls of the host. 0 (scripted runs, explorations) never.
	CommitCrashPct int

	// MetadataBudgetBytes, when positive, is every engine's metadata budget in this run, drawn
	// tight for a share of the seeds (drawMetadataBudget) so that engines refuse
	// METADATA_BUDGET_EXCEEDED at receipt, in a drain and at a stamp; 0 leaves the scenario's
	// (node's default unless the scenario sets one). A scenario's own budget wins over it.
	MetadataBudgetBytes int

	// WorkUnitsPerMicro converts the engine's work counters (heads offered, causes compared
	// and merged, header bytes / 64, holds added and removed) into virtual microseconds charged
	// on top of an action's drawn duration; 0 means the world's default (vclock.DefaultWorkUnitsPerMicro).
	WorkUnitsPerMicro int64
}

// MetadataBudget returns the metadata budget a run of a scenario whose own budget is scenario
// hands its engines: the scenario's when it sets one, else MetadataBudgetBytes (0: node's
// default).
func (s *Settings) MetadataBudget(scenario int) int {
	if scenario != 0 {
		return scenario
	}
	return s.MetadataBudgetBytes
}

// FrontierFitsBudget reports whether no frontier of scn's processes under s can reach the
// metadata budget (MetadataBudget, node's default when neither sets one): one pair per channel
// that can ever exist (every partition of every incarnation), at most 40 bytes each. Then no
// drain refuses for the budget.
func (s *Settings) FrontierFitsBudget(scn *spec.Scenario) bool {
	budget := s.MetadataBudget(scn.MetadataBudgetBytes)
	if budget == 0 {
		budget = node.DefaultMetadataBudgetBytes
	}
	chans := 0
	for _, t := range scn.Topics {
		chans += t.Partitions
	}
	incarnations := 1
	if s.Weights[spec.ActRecreateTopic] > 0 {
		incarnations = 256 // the budget caps recreations at 255
	}
	return 16+40*chans*incarnations < budget
}

// Enabled reports whether the run's settings switch action kind k on in the safety phase.
func (s *Settings) Enabled(k spec.ActionKind) bool { return s.Weights[k] > 0 }

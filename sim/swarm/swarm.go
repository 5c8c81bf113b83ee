package swarm

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// swarmStream is the PCG stream constant of settings expansion ("swarm" in ASCII), distinct from
// the schedule chooser's and the world's data streams', so settings never share a sequence with
// the run.
const swarmStream = 0x737761726d

// Default step budgets. The safety phase of a default run is 250–500 actions (the size of the
// protocol's own random runs); the liveness phase runs until nothing moves, bounded by
// LivenessStepsMax.
const (
	SafetyStepsMin       = 250
	SafetyStepsMax       = 500
	LivenessStepsDefault = 20000
)

// swarmKind is how ExpandSettings treats one action kind: always on (the core of every run) or a
// fault class switched on with probability onPct; its weight range when on; and its virtual
// duration bounds (the drawn range lies inside them).
type swarmKind struct {
	always         bool
	onPct          int // chance in percent that an optional kind is on
	weightMin      uint32
	weightMax      uint32
	durationMicros Range
}

// swarmKinds gives every action kind's swarm treatment, in offer order. The on-probabilities are
// high enough that each fault class is on for most seeds (catch rates over all seeds must beat the
// protocol's own) and low enough that every seed leaves some classes out (swarm testing: a fault
// class that is always on can mask another's bug).
//
// Weights are on a scale where the core actions sum to about ten thousand, fine enough to give a
// fault a fraction of a percent. Faults a process survives (crash, stop, rewind, transactions,
// retention, redeclaration, migration, zombies) weigh 100–400: tens of times per run. Faults that
// make an honest receiver fail closed for good (a corrupt header, a truncation past a read
// position, deleting or recreating a received topic) are rescaled per seed (scaleFailClosed) to
// about one per run in most seeds: enough to exercise the refusals and the sabotage modes that
// need them, rare enough that most of the run still delivers (at weights like the other faults'
// they would end nearly every run within its first tens of steps).
var swarmKinds = [spec.NumActionKinds]swarmKind{
	spec.ActFeed:           {always: true, weightMin: 2000, weightMax: 6000, durationMicros: Range{20, 400}},
	spec.ActDrain:          {always: true, weightMin: 800, weightMax: 2400, durationMicros: Range{20, 400}},
	spec.ActCommit:         {always: true, weightMin: 400, weightMax: 1600, durationMicros: Range{200, 3000}},
	spec.ActCrash:          {onPct: 85, weightMin: 100, weightMax: 400, durationMicros: Range{100, 1000}},
	spec.ActStop:           {onPct: 60, weightMin: 100, weightMax: 400, durationMicros: Range{100, 1000}},
	spec.ActStart:          {always: true, weightMin: 400, weightMax: 1000, durationMicros: Range{500, 8000}},
	spec.ActRewind:         {onPct: 95, weightMin: 100, weightMax: 400, durationMicros: Range{100, 1000}},
	spec.ActProducePlain:   {always: true, weightMin: 150, weightMax: 450, durationMicros: Range{50, 800}},
	spec.ActProduceStamped: {onPct: 90, weightMin: 200, weightMax: 600, durationMicros: Range{50, 800}},
	spec.ActProduceCorrupt: {onPct: 95, weightMin: 20, weightMax: 60, durationMicros: Range{50, 800}},
	spec.ActTxnAbort:       {onPct: 70, weightMin: 100, weightMax: 400, durationMicros: Range{100, 1500}},
	spec.ActTxnOpen:        {onPct: 60, weightMin: 100, weightMax: 300, durationMicros: Range{100, 1500}},
	spec.ActTxnClose:       {onPct: 0, weightMin: 200, weightMax: 600, durationMicros: Range{100, 1500}}, // on exactly when txn-open is
	spec.ActDeleteRecords:  {onPct: 85, weightMin: 20, weightMax: 80, durationMicros: Range{100, 1000}},
	spec.ActRetention:      {onPct: 50, weightMin: 100, weightMax: 300, durationMicros: Range{100, 1000}},
	spec.ActDeleteTopic:    {onPct: 80, weightMin: 20, weightMax: 50, durationMicros: Range{500, 5000}},
	spec.ActRecreateTopic:  {onPct: 92, weightMin: 20, weightMax: 50, durationMicros: Range{500, 5000}},
	spec.ActRedeclare:      {onPct: 80, weightMin: 100, weightMax: 300, durationMicros: Range{200, 2000}},
	spec.ActMigrate:        {onPct: 50, weightMin: 100, weightMax: 300, durationMicros: Range{500, 8000}},
	spec.ActZombie:         {onPct: 50, weightMin: 100, weightMax: 300, durationMicros: Range{100, 1500}},
	// Session actions act only in a scenario with sessions (Scenario.Session): the scenario, not
	// the settings, decides whether a run has session clients.
	spec.ActSessionWrite: {always: true, weightMin: 300, weightMax: 900, durationMicros: Range{200, 3000}},
	spec.ActSessionRead:  {always: true, weightMin: 300, weightMax: 900, durationMicros: Range{100, 2000}},
	spec.ActTokenDamage:  {onPct: 80, weightMin: 30, weightMax: 120, durationMicros: Range{10, 100}},
	// A crash inside a commit is never scheduled as a kind of its own (its weight stays 0, so
	// every seed keeps its schedule): a scheduled crash of a process mid-step lands inside its
	// commit instead, for a seeded share of such crashes (Settings.CommitCrashPct).
	spec.ActCommitCrash: {durationMicros: Range{200, 3000}},
}

// AlwaysOn reports whether action kind k is on in every seed's settings (the core of every run:
// feed, drain, commit, start, plain produce, and the session actions where a scenario has
// sessions), as against a fault class that each seed switches on or off.
func AlwaysOn(k spec.ActionKind) bool { return swarmKinds[k].always }

// ExpandSettings derives a run's settings from its seed, like TigerBeetle's VOPR: which fault
// classes are on (an action kind's weight; zero is off — feed, drain, commit, start and plain
// produce are always on), each kind's weight and virtual duration range, fault probabilities and
// retention, the forwarding bound, and the step budgets (safety 250–500 actions). The expansion
// draws from its own PCG stream, so the same seed always gives the same settings and the
// settings never consume the schedule's choices. Draws happen in a fixed order, scalar knobs first and
// then one group per action kind, so an appended action kind appends draws at the end and existing
// seeds keep their settings.
func ExpandSettings(seed uint64) Settings {
	rng := rand.New(rand.NewPCG(seed, swarmStream))
	set := Settings{Seed: seed, LivenessStepsMax: LivenessStepsDefault}
	set.SafetySteps = SafetyStepsMin + rng.IntN(SafetyStepsMax-SafetyStepsMin+1)
	corruptPct := 5 + rng.IntN(26)
	retentionMicros := int64(40_000 + 2*rng.IntN(80_001))
	retentionRecords := 8 + 2*rng.IntN(29)
	bySize := rng.IntN(2) == 0
	set.ForwardHopsMax = 1 + rng.IntN(4)
	failClosedPerRunTenths := failClosedIntensity[rng.IntN(len(failClosedIntensity))]
	var drawn [spec.NumActionKinds]uint32
	for k := range spec.NumActionKinds {
		sk := swarmKinds[k]
		roll := rng.IntN(100) // drawn for every kind, so each kind uses the same draws
		weight := sk.weightMin + uint32(rng.IntN(int(sk.weightMax-sk.weightMin)+1))
		drawn[k] = weight
		if sk.always || roll < sk.onPct {
			set.Weights[k] = weight
		}
		set.DurationMicros[k] = drawRange(rng, sk.durationMicros)
	}
	if set.Enabled(spec.ActRewind) && !set.Enabled(spec.ActCrash) && !set.Enabled(spec.ActStop) {
		set.Weights[spec.ActStop] = rewindStopWeight // an operator rewinds a stopped group
	}
	stampWhereDeleted(&set, drawn[spec.ActProduceStamped])
	scaleFailClosed(&set, failClosedPerRunTenths)
	if set.Enabled(spec.ActTxnOpen) {
		set.Weights[spec.ActTxnClose] = drawn[spec.ActTxnClose] // an open transaction must be able to close
	}
	if set.Enabled(spec.ActProduceCorrupt) {
		set.CorruptProbabilityPct = corruptPct
	}
	if set.Enabled(spec.ActRetention) {
		set.RetentionMicros = retentionMicros
		if bySize {
			set.RetentionRecords = retentionRecords
		}
	}
	drawFaultSchedule(rand.New(rand.NewPCG(seed, faultScheduleStream)), &set)
	set.HoldPauseSteps = holdPauseSteps
	set.SpareDeadHoldSurvivors = true
	set.RestartCheck = drawRestartCheck(seed)
	set.CommitCrashPct = drawCommitCrashPct(seed)
	set.MetadataBudgetBytes = drawMetadataBudget(seed)
	// A crash inside a commit is a scheduled crash: it takes a crash's time, so a run's script,
	// which records it as one, advances the clock as the run did.
	set.DurationMicros[spec.ActCommitCrash] = set.DurationMicros[spec.ActCrash]
	return set
}

// stampWhereDeleted switches stamped produce on, at its drawn weight, in a seed whose settings
// delete topics: only a stamped record is held on an external channel, and a deletion tests a
// hold only there (the random scenario's deletion quarry, scenarios.addDeletionQuarry, holds
// nothing without one).
func stampWhereDeleted(set *Settings, drawnWeight uint32) {
	if set.Enabled(spec.ActDeleteTopic) && !set.Enabled(spec.ActProduceStamped) {
		set.Weights[spec.ActProduceStamped] = drawnWeight
	}
}

// rewindStopWeight is the stop weight of a seed whose settings switch rewinds on but crashes and
// stops off: only a down process can be rewound, and without a way down (a migration or a zombie
// restarts at once) its rewinds never fire. The weight is low so that the stops it adds take
// little from the other faults' runs.
const rewindStopWeight = 50

// holdPauseSteps is Settings.HoldPauseSteps of every swarm run: long enough for the held message's
// receiver to drain and to be fed what queues behind it, short enough that the cause channel's
// backlog never stalls a receiver for long. The pause is aimed at holds, not at whole channels: a
// pause with no regard to holds costs deliveries, and with them the catches of the modes that
// need many.
const holdPauseSteps = 60

// Fail-closed fault schedule and feed lag. They draw from their own stream ("faults" in ASCII),
// so they do not depend on how many action kinds the expansion draws for.
const faultScheduleStream = 0x6661756c7473

// feedLagFactors is the menu of FeedLagFactor drawn per seed: uniform feeding for some seeds,
// a lagging channel for most.
var feedLagFactors = []int{1, 4, 8, 16}

// faultAtPct gives, per fail-closed kind, the window (in percent of the safety phase) in which
// Settings.FaultAtStep falls. A corrupt header comes first: it stops a receiver only once the
// receiver reads up to it, which with a backlog is much later. Truncation and recreation act at
// once, so they come last, when the run has had most of its life. A deletion waits for a blocked
// head to delete past (faultHasTarget), which is rare, so it is due a little earlier. Blocked
// heads are commonest mid-run (receivers stop later on), but a deletion due mid-run stops the
// receivers the truncation and the FIFO checks need, so the deletion stays late.
var faultAtPct = map[spec.ActionKind]Range{
	spec.ActProduceCorrupt: {35, 60},
	spec.ActDeleteRecords:  {65, 90},
	spec.ActDeleteTopic:    {55, 90},
	spec.ActRecreateTopic:  {70, 95},
}

// drawFaultSchedule draws, for each fail-closed kind that is on, the step from which it must fire
// once (Settings.FaultAtStep, inside its window of faultAtPct), and the seed's feed lag. A
// fail-closed fault stops its receivers for good in an honest run: due late, it meets a run with
// holds built up and something to lose, instead of ending the run's deliveries in its first
// steps; due at all, every seed that switches it on exercises it.
func drawFaultSchedule(rng *rand.Rand, set *Settings) {
	for _, k := range FailClosedKinds {
		window := faultAtPct[k]
		pct := window.Min + rng.Int64N(window.Max-window.Min+1)
		if set.Enabled(k) {
			set.FaultAtStep[k] = max(1, int(int64(set.SafetySteps)*pct/100))
		}
	}
	set.FeedLagFactor = feedLagFactors[rng.IntN(len(feedLagFactors))]
}

// FailClosedKinds are the faults after which an honest receiver fails closed for good: a corrupt
// header it reads, a truncation past its read position, deleting (with holds) or recreating a
// topic it receives.
var FailClosedKinds = []spec.ActionKind{spec.ActProduceCorrupt, spec.ActDeleteRecords, spec.ActDeleteTopic, spec.ActRecreateTopic}

// failClosedIntensity is the menu of expected fail-closed faults per run at random times, in
// tenths, one drawn per seed, on top of the one late firing of each enabled kind that
// Settings.FaultAtStep insists on: most seeds get almost none early, so the run delivers and
// builds up holds for long before a receiver stops, and some get several, so the refusal paths
// (and their interplay with the other faults) are exercised hard. An early refusal or topic
// deletion in every run would end most runs' deliveries early, which hides the ordering faults.
var failClosedIntensity = []int{0, 0, 0, 3, 10}

// scaleFailClosed sets the weights of the fail-closed kinds that are on so that, while every
// action stays enabled, they fire perRunTenths/10 times per safety phase in total, shared evenly
// (failClosedIntensity gives the menu of perRunTenths). A weight never drops below 1: a kind that
// is on can always fire. A fault that stops receivers for good, at a survivable fault's weight,
// would end nearly every run within its first tens of steps.
func scaleFailClosed(set *Settings, perRunTenths int) {
	var others uint64
	on := 0
	for k := range spec.NumActionKinds {
		switch {
		case slices.Contains(FailClosedKinds, spec.ActionKind(k)):
			if set.Weights[k] > 0 {
				on++
			}
		case spec.ActionKind(k).Session():
			// Enabled only in scenarios with sessions; left out so every earlier seed keeps its
			// fail-closed weights.
		default:
			others += uint64(set.Weights[k])
		}
	}
	if on == 0 {
		return
	}
	// Each on kind fires with probability w/total per step: w = perRun*others / (steps*on - perRun).
	perRun := float64(perRunTenths) / 10
	w := perRun * float64(others) / (float64(set.SafetySteps*on) - perRun)
	for _, k := range FailClosedKinds {
		if set.Weights[k] > 0 {
			set.Weights[k] = uint32(max(1, math.Round(w)))
		}
	}
}

// CommitCrashStream is the PCG stream constant of a seed's CommitCrashPct ("ccrash" in ASCII);
// a run's draws of which crashes land inside a commit, and where, use CommitCrashStream+1. Both
// are distinct from every other stream.
const CommitCrashStream = 0x636372617368

// drawCommitCrashPct draws a seed's Settings.CommitCrashPct: 25-75%.
func drawCommitCrashPct(seed uint64) int {
	return 25 + rand.New(rand.NewPCG(seed, CommitCrashStream)).IntN(51)
}

// MetadataBudgetShare is how many seeds in each draw a tight metadata budget: one in
// MetadataBudgetShare. The node's default budget (256 KiB) is never reached by a swarm run, so
// without a drawn one the engines' budget refusals (at receipt, in a drain, at a stamp) and the
// oracle's judgement of them (OVER_REFUSAL, REFERENCE) go unexercised. A tight budget fails its
// receivers closed early, so it costs the seed much of what the other fault classes would
// exercise: one seed in eight keeps that cost small while a sweep of a few hundred seeds meets
// dozens of budget refusals.
const MetadataBudgetShare = 8

// metadataBudgetStream is the PCG stream constant of a seed's metadata budget ("budget" in
// ASCII), distinct from every other stream, so the budget's draw moves no other draw.
const metadataBudgetStream = 0x627564676574

// metadataBudgetRange is the range a drawn budget lies in, in bytes: from a header of about six
// causes (a one-cause header of a 16-byte topic ID is 21 bytes) to one of about fifteen, the size
// the largest frontiers of the random topologies reach late in a run, so that only the engines
// whose metadata grows most refuse, and late: a tighter budget fails receivers closed early and
// costs the seed the catches of the other fault classes.
var metadataBudgetRange = Range{Min: 120, Max: 320}

// drawMetadataBudget draws a seed's Settings.MetadataBudgetBytes: for one seed in
// MetadataBudgetShare a budget in metadataBudgetRange, else 0 (the scenario's).
func drawMetadataBudget(seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, metadataBudgetStream))
	on := rng.IntN(MetadataBudgetShare) == 0
	bytes := metadataBudgetRange.Min + rng.Int64N(metadataBudgetRange.Max-metadataBudgetRange.Min+1)
	if !on {
		return 0
	}
	return int(bytes)
}

// drawRange draws a sub-range of bounds: a minimum in the lower half, a maximum above it.
func drawRange(rng *rand.Rand, bounds Range) Range {
	lo := bounds.Min + rng.Int64N((bounds.Max-bounds.Min)/2+1)
	hi := lo + rng.Int64N(bounds.Max-lo+1)
	return Range{Min: lo, Max: hi}
}

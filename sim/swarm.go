package sim

import "math/rand/v2"

// swarmStream is the PCG stream constant of settings expansion ("swarm" in ASCII), distinct from
// the schedule chooser's and NewStreams', so settings never share a sequence with the run.
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
// protocol's own, issue 6 item 7) and low enough that every seed leaves some classes out (swarm
// testing: a fault class that is always on can mask another's bug).
var swarmKinds = [numActionKinds]swarmKind{
	ActFeed:           {always: true, weightMin: 20, weightMax: 60, durationMicros: Range{20, 400}},
	ActDrain:          {always: true, weightMin: 8, weightMax: 24, durationMicros: Range{20, 400}},
	ActCommit:         {always: true, weightMin: 4, weightMax: 16, durationMicros: Range{200, 3000}},
	ActCrash:          {onPct: 85, weightMin: 1, weightMax: 4, durationMicros: Range{100, 1000}},
	ActStop:           {onPct: 60, weightMin: 1, weightMax: 4, durationMicros: Range{100, 1000}},
	ActStart:          {always: true, weightMin: 4, weightMax: 10, durationMicros: Range{500, 8000}},
	ActRewind:         {onPct: 85, weightMin: 1, weightMax: 4, durationMicros: Range{100, 1000}},
	ActProducePlain:   {always: true, weightMin: 4, weightMax: 12, durationMicros: Range{50, 800}},
	ActProduceStamped: {onPct: 90, weightMin: 2, weightMax: 10, durationMicros: Range{50, 800}},
	ActProduceCorrupt: {onPct: 85, weightMin: 1, weightMax: 3, durationMicros: Range{50, 800}},
	ActTxnAbort:       {onPct: 70, weightMin: 1, weightMax: 4, durationMicros: Range{100, 1500}},
	ActTxnOpen:        {onPct: 60, weightMin: 1, weightMax: 3, durationMicros: Range{100, 1500}},
	ActTxnClose:       {onPct: 0, weightMin: 2, weightMax: 6, durationMicros: Range{100, 1500}}, // on exactly when txn-open is
	ActDeleteRecords:  {onPct: 75, weightMin: 1, weightMax: 4, durationMicros: Range{100, 1000}},
	ActRetention:      {onPct: 50, weightMin: 1, weightMax: 3, durationMicros: Range{100, 1000}},
	ActDeleteTopic:    {onPct: 80, weightMin: 1, weightMax: 2, durationMicros: Range{500, 5000}},
	ActRecreateTopic:  {onPct: 85, weightMin: 1, weightMax: 2, durationMicros: Range{500, 5000}},
	ActRedeclare:      {onPct: 80, weightMin: 1, weightMax: 3, durationMicros: Range{200, 2000}},
	ActMigrate:        {onPct: 50, weightMin: 1, weightMax: 3, durationMicros: Range{500, 8000}},
	ActZombie:         {onPct: 50, weightMin: 1, weightMax: 3, durationMicros: Range{100, 1500}},
}

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
	retentionMicros := int64(20_000 + rng.IntN(80_001))
	retentionRecords := 4 + rng.IntN(29)
	bySize := rng.IntN(2) == 0
	set.ForwardHopsMax = 1 + rng.IntN(4)
	var drawn [numActionKinds]uint32
	for k := range numActionKinds {
		sk := swarmKinds[k]
		roll := rng.IntN(100) // drawn for every kind, so each kind uses the same draws
		weight := sk.weightMin + uint32(rng.IntN(int(sk.weightMax-sk.weightMin)+1))
		drawn[k] = weight
		if sk.always || roll < sk.onPct {
			set.Weights[k] = weight
		}
		set.DurationMicros[k] = drawRange(rng, sk.durationMicros)
	}
	if set.Enabled(ActTxnOpen) {
		set.Weights[ActTxnClose] = drawn[ActTxnClose] // an open transaction must be able to close
	}
	if set.Enabled(ActProduceCorrupt) {
		set.CorruptProbabilityPct = corruptPct
	}
	if set.Enabled(ActRetention) {
		set.RetentionMicros = retentionMicros
		if bySize {
			set.RetentionRecords = retentionRecords
		}
	}
	return set
}

// drawRange draws a sub-range of bounds: a minimum in the lower half, a maximum above it.
func drawRange(rng *rand.Rand, bounds Range) Range {
	lo := bounds.Min + rng.Int64N((bounds.Max-bounds.Min)/2+1)
	hi := lo + rng.Int64N(bounds.Max-lo+1)
	return Range{Min: lo, Max: hi}
}

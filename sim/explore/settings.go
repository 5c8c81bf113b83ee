package explore

import (
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Settings are the run settings of an exploration under budget b (and of a reproduction of what
// it finds): every kind b allows on, every action the same virtual duration (stepMicros), so
// that no duration branches, the topic-ID seed (0 means 1), the liveness phase's bound at each
// terminal state (0 means 1000) and the forwarding bound (Settings.ForwardHopsMax; 0 means 1).
// With a retention budget, external topics keep their newest retentionRecords records when a
// retention sweep runs (a size policy: with constant durations a time policy would only say the
// same in microseconds); without one there is no retention policy.
func Settings(b budget.Budget, seed uint64, livenessStepsMax, hopsMax int) swarm.Settings {
	set := swarm.Settings{Seed: max(seed, 1), LivenessStepsMax: livenessStepsMax, ForwardHopsMax: max(hopsMax, 1)}
	if set.LivenessStepsMax == 0 {
		set.LivenessStepsMax = 1000
	}
	if b.Allows(spec.ActRetention) {
		set.RetentionRecords = retentionRecords
	}
	for k := range spec.NumActionKinds {
		if b.Allows(spec.ActionKind(k)) {
			set.Weights[k] = 1
		}
		set.DurationMicros[k] = swarm.Range{Min: stepMicros, Max: stepMicros}
	}
	return set
}

// retentionRecords is the size retention of external topics in an exploration with a retention
// budget: a sweep drops every record but the newest of each partition, so a receiver behind the
// newest record finds its next record gone.
const retentionRecords = 1

// stepMicros is every action's virtual duration in an exploration.
const stepMicros = 100

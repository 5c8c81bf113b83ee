package spec

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/substrate"
)

// The documented limits of one simulated world. Every edge that takes a size from a person (the
// command line's --processes and --steps, scenario files, replay files) checks it against these
// before building anything, and names the limit when it refuses. They are set from what runs in
// reasonable time and memory on a 2-core machine today (results/limits.md); raise them as the
// world scales.
const (
	// MaxProcesses is the most processes a world may have (simrun --processes N, process lines
	// of a scenario file): the largest size of the scale benchmark, whose run completes in about
	// a minute and under a gigabyte (results/scale.md).
	MaxProcesses = 64000
	// MaxChannels is the most channels (partitions, over every topic) a world may declare: room
	// for the generated topology of MaxProcesses processes (twelve partitions a sender), whose
	// channels a world indexes sparsely (sim/chanindex), so they cost memory in proportion to
	// their count (results/scale.md).
	MaxChannels = 1 << 20
	// MaxTopicPartitions is the most partitions one topic may have: the substrate's limit.
	MaxTopicPartitions = substrate.MaxPartitions
	// MaxSubscriptions is the most (process, topic) pairs a world's processes may receive or send,
	// with room above what the generated topology of MaxProcesses processes declares (about
	// 186,000; results/limits.md).
	MaxSubscriptions = 250000
	// MaxSteps bounds a run's safety-phase steps (--steps, a replay file's "steps") and its
	// liveness phase (a scenario file's liveness=).
	MaxSteps = 1_000_000
	// MaxStepMicros bounds the virtual duration of one step (a scenario file's step-us=), and
	// with it retention-us=: MaxSteps steps of it stay far inside the virtual clock's int64.
	MaxStepMicros = 3_600_000_000
)

// validateLimits checks the scenario's sizes against the limits of spec, and every topic name
// against the substrate's rule (Kafka's), so that an unfit scenario is refused with a message
// instead of failing where the world creates it.
func (s *Scenario) validateLimits() error {
	if n := len(s.Processes); n > MaxProcesses {
		return fmt.Errorf("scenario %q: %d processes, above the limit of %d", s.Name, n, MaxProcesses)
	}
	channels := 0
	normalized := make(map[string]string, len(s.Topics))
	for _, t := range s.Topics {
		if err := substrate.ValidateTopicName(t.Name); err != nil {
			return fmt.Errorf("scenario %q: %w", s.Name, err)
		}
		// Kafka (and kfake) refuse a topic whose name differs from an existing one only in '.'
		// versus '_': the two would collide in its metric names.
		n := strings.ReplaceAll(t.Name, ".", "_")
		if other, ok := normalized[n]; ok && other != t.Name {
			return fmt.Errorf("scenario %q: topics %q and %q differ only in '.' versus '_', which Kafka refuses (their metric names collide)", s.Name, other, t.Name)
		}
		normalized[n] = t.Name
		if t.Partitions > MaxTopicPartitions {
			return fmt.Errorf("scenario %q: topic %q has %d partitions, above the limit of %d", s.Name, t.Name, t.Partitions, MaxTopicPartitions)
		}
		channels += t.Partitions
		if channels > MaxChannels {
			return fmt.Errorf("scenario %q: more than %d channels (partitions over every topic)", s.Name, MaxChannels)
		}
	}
	subs := 0
	for _, p := range s.Processes {
		subs += len(p.Receives) + len(p.Sends)
	}
	if subs > MaxSubscriptions {
		return fmt.Errorf("scenario %q: its processes receive or send %d (process, topic) pairs, above the limit of %d", s.Name, subs, MaxSubscriptions)
	}
	return nil
}

package sim

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// validateLimits checks the scenario's sizes against the limits of spec, and every topic name
// against the substrate's rule (Kafka's), so that an unfit scenario is refused with a message
// instead of failing where the world creates it.
func (s *Scenario) validateLimits() error {
	if n := len(s.Processes); n > spec.MaxProcesses {
		return fmt.Errorf("scenario %q: %d processes, above the limit of %d", s.Name, n, spec.MaxProcesses)
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
		if t.Partitions > spec.MaxChannels {
			return fmt.Errorf("scenario %q: topic %q has %d partitions, above the limit of %d", s.Name, t.Name, t.Partitions, spec.MaxChannels)
		}
		channels += t.Partitions
		if channels > spec.MaxChannels {
			return fmt.Errorf("scenario %q: more than %d channels (partitions over every topic)", s.Name, spec.MaxChannels)
		}
	}
	subs := 0
	for _, p := range s.Processes {
		subs += len(p.Receives) + len(p.Sends)
	}
	if subs > spec.MaxSubscriptions {
		return fmt.Errorf("scenario %q: its processes receive or send %d (process, topic) pairs, above the limit of %d", s.Name, subs, spec.MaxSubscriptions)
	}
	return nil
}

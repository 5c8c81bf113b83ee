package world

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestValidateRefusesWhatTheSubstrateWouldReject: topic names the substrate (and Kafka) reject,
// and sizes above the documented limits, are refused by Validate with the limit in the message,
// before a world is built (where the substrate's refusal was a panic).
func TestValidateRefusesWhatTheSubstrateWouldReject(t *testing.T) {
	base := func() *spec.Scenario { return chainScope() }
	cases := []struct {
		name string
		edit func(s *spec.Scenario)
		want string
	}{
		{"dot", func(s *spec.Scenario) { s.Topics[0].Name = "." }, `topic name "."`},
		{"dot dot", func(s *spec.Scenario) { s.Topics[0].Name = ".." }, `topic name ".."`},
		{"250 characters", func(s *spec.Scenario) { s.Topics[0].Name = strings.Repeat("a", 250) }, "need 1-249 characters"},
		{"illegal character", func(s *spec.Scenario) { s.Topics[0].Name = "a b" }, "illegal character"},
		{"dot versus underscore", func(s *spec.Scenario) {
			s.Topics = append(s.Topics, spec.TopicSpec{Name: "a.b", Partitions: 1}, spec.TopicSpec{Name: "a_b", Partitions: 1})
		}, "differ only in '.' versus '_'"},
		{"partitions", func(s *spec.Scenario) { s.Topics[0].Partitions = spec.MaxTopicPartitions + 1 }, fmt.Sprintf("above the limit of %d", spec.MaxTopicPartitions)},
		{"channels", func(s *spec.Scenario) {
			for i := range spec.MaxChannels / spec.MaxTopicPartitions {
				s.Topics = append(s.Topics, spec.TopicSpec{Name: fmt.Sprintf("wide%d", i), Partitions: spec.MaxTopicPartitions})
			}
		}, fmt.Sprintf("more than %d channels", spec.MaxChannels)},
		{"cause at the reserved position", func(s *spec.Scenario) {
			s.Script = []spec.ScriptedAction{{Kind: spec.ActProducePlain, Topic: "ext", Causes: []spec.CauseRef{{Topic: "ext", Position: math.MaxInt64}}}}
		}, "a header carries positions 0..2^63-2"},
		{"processes", func(s *spec.Scenario) {
			for i := range spec.MaxProcesses {
				s.Processes = append(s.Processes, spec.ProcessSpec{Name: fmt.Sprintf("extra%d", i)})
			}
		}, fmt.Sprintf("above the limit of %d", spec.MaxProcesses)},
		{"subscriptions", func(s *spec.Scenario) {
			for i := range 40 {
				s.Topics = append(s.Topics, spec.TopicSpec{Name: fmt.Sprintf("t%d", i), Partitions: 1})
			}
			for i := range spec.MaxSubscriptions/len(s.Topics) + 1 {
				p := spec.ProcessSpec{Name: fmt.Sprintf("reader%d", i)}
				for _, t := range s.Topics {
					p.Receives = append(p.Receives, t.Name)
				}
				s.Processes = append(s.Processes, p)
			}
		}, fmt.Sprintf("above the limit of %d", spec.MaxSubscriptions)},
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("the base scenario is invalid: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.edit(s)
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestExploreDepthCutIsIncomplete: an exploration whose MaxDepth cut a path that could go on is
// not complete; one whose bound cut nothing is.
func TestExploreDepthCutIsIncomplete(t *testing.T) {
	budget := mustBudget(t, "msgs=1,crash=1")
	full := exploreScope(chainScope(), exploreOptions{Budget: budget})
	if !full.Complete || full.DepthCut != 0 {
		t.Fatalf("unbounded exploration: complete %v, depth cut %d", full.Complete, full.DepthCut)
	}
	cut := exploreScope(chainScope(), exploreOptions{Budget: budget, MaxDepth: 3})
	if cut.Complete || cut.DepthCut == 0 {
		t.Fatalf("--max-depth 3: complete %v, depth cut %d (the full scope is %d deep)", cut.Complete, cut.DepthCut, full.MaxDepth)
	}
	roomy := exploreScope(chainScope(), exploreOptions{Budget: budget, MaxDepth: full.MaxDepth + 1})
	if !roomy.Complete || roomy.DepthCut != 0 {
		t.Fatalf("--max-depth above the scope's depth: complete %v, depth cut %d", roomy.Complete, roomy.DepthCut)
	}
}

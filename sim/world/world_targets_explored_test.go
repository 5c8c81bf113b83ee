package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// TestExploredWeightsKeepCandidates: in the states swarm runs reach, the target weights an
// explored world skips (explored) are zero exactly where the full bias weights are, so an
// exploration enumerates the same candidates.
func TestExploredWeightsKeepCandidates(t *testing.T) {
	kinds := []spec.ActionKind{spec.ActProducePlain, spec.ActProduceStamped, spec.ActProduceCorrupt, spec.ActDeleteTopic, spec.ActRecreateTopic, spec.ActTxnAbort}
	compared := 0
	for _, scn := range []func() *spec.Scenario{diamondScenario, deletionOnlyScenario} {
		for seed := uint64(1); seed <= 30; seed++ {
			for _, steps := range []int{15, 60, 200} {
				set := swarm.ExpandSettings(seed)
				set.SafetySteps, set.LivenessStepsMax = steps, 0
				w := newWorld(scn(), &set, choose.NewRandom(seed), &RunOptions{})
				w.run()
				zeros := func() (out []bool) {
					for _, k := range kinds {
						for tp := range w.topics {
							if w.topics[tp].spec.External {
								out = append(out, shape.ExternalWeight(w.shapeRun(), k, tp, 0) == 0)
							}
						}
					}
					for c := range w.chans {
						if !w.alive(int32(c)) {
							continue
						}
						out = append(out, shape.TruncationWeight(w.shapeRun(), int32(c)) == 0, shape.PartitionWeight(w.shapeRun(), spec.ActProducePlain, int32(c), 0) == 0)
						for _, o := range shape.TruncationOffsets((*shapeView)(w), int32(c), nil) {
							out = append(out, shape.TruncationOffsetWeight(w.shapeRun(), int32(c), o) == 0)
						}
					}
					return out
				}
				full := zeros()
				w.opts.explored = true
				skipped := zeros()
				w.opts.explored = false
				if len(full) != len(skipped) {
					t.Fatalf("seed %d steps %d: %d weights, %d explored", seed, steps, len(full), len(skipped))
				}
				for i := range full {
					if full[i] != skipped[i] {
						t.Fatalf("seed %d steps %d: weight %d is zero=%v, explored zero=%v", seed, steps, i, full[i], skipped[i])
					}
					compared++
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("no weight compared")
	}
}

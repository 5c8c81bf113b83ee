package sim

import (
	"maps"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// countRefusal counts one refusal in the run's stats.
func (w *world) countRefusal(r node.Reason) {
	s := &w.stats
	if w.refusalsShared {
		s.Refusals, w.refusalsShared = maps.Clone(s.Refusals), false
	}
	if s.Refusals == nil {
		s.Refusals = make(map[string]int)
	}
	s.Refusals[string(r)]++
}

// finishStats computes the virtual-time figures of s at the end of a run.
func finishStats(s *spec.Stats, nowMicros int64, l *latencies) {
	s.EndMicros = nowMicros
	if nowMicros > 0 {
		s.DeliveriesPerVirtualSecond = float64(s.Deliveries) * 1e6 / float64(nowMicros)
	}
	s.HoldLatency = summarise(l.hold)
	s.EndToEndLatency = summarise(l.endToEnd)
}

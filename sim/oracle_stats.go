package sim

import "github.com/parsleysim/parsleysim/sim/spec"

// finishStats computes the virtual-time figures of s at the end of a run.
func finishStats(s *spec.Stats, nowMicros int64, l *latencies) {
	s.EndMicros = nowMicros
	if nowMicros > 0 {
		s.DeliveriesPerVirtualSecond = float64(s.Deliveries) * 1e6 / float64(nowMicros)
	}
	s.HoldLatency = summarise(l.hold)
	s.EndToEndLatency = summarise(l.endToEnd)
}

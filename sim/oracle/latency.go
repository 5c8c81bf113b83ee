package oracle

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Latency figures in virtual time. Every committed delivery contributes its end-to-end latency
// (produce → delivery) and, when the oracle saw its receipt, its hold latency (receipt →
// delivery); a delivery rolled back with its step contributes nothing. Figures are exact integers
// of microseconds, so the same seed gives the same figures everywhere.

// LatencySample is one delivery's latencies; holdMicros is -1 when the receipt is unknown.
type LatencySample struct {
	HoldMicros     int64
	EndToEndMicros int64
}

// latencies accumulates the committed samples of a run.
type latencies struct {
	hold, endToEnd []int64
}

// add appends a committed step's samples.
func (l *latencies) add(samples []LatencySample) {
	for _, s := range samples {
		if s.HoldMicros >= 0 {
			l.hold = append(l.hold, s.HoldMicros)
		}
		l.endToEnd = append(l.endToEnd, s.EndToEndMicros)
	}
}

// summarise computes the statistics of samples (sorted in place).
func summarise(samples []int64) spec.LatencyStats {
	if len(samples) == 0 {
		return spec.LatencyStats{}
	}
	slices.Sort(samples)
	var sum int64
	for _, v := range samples {
		sum += v
	}
	n := len(samples)
	rank := func(pct int) int64 { return samples[max(0, (pct*n+99)/100-1)] }
	return spec.LatencyStats{Count: n, MeanMicros: sum / int64(n), P50Micros: rank(50), P99Micros: rank(99), MaxMicros: samples[n-1]}
}

package benchmarks

import (
	"testing"
)

// TestMeasureCases runs every fixed case: the trace rebuild must agree with spec.Stats (Measure
// fails otherwise) and the figures must be self-consistent.
func TestMeasureCases(t *testing.T) {
	for _, c := range Cases {
		r, err := Measure(c)
		if err != nil {
			t.Fatal(err)
		}
		m := r.Metrics
		t.Logf("%s: %v", c.Name, m)
		if m["hold_p50_us"] > m["hold_p99_us"] || m["hold_p99_us"] > m["hold_max_us"] {
			t.Errorf("%s: hold quantiles out of order: %v", c.Name, m)
		}
		if m["end_to_end_count"] != m["deliveries"] {
			t.Errorf("%s: %d end-to-end samples for %d deliveries", c.Name, m["end_to_end_count"], m["deliveries"])
		}
	}
}

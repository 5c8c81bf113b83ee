package sim

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
)

// BenchmarkOracle measures what the oracle's causal-order check (S1) costs per checked delivery,
// on a finished throughput run of the diamond scenario (every check on, ~20,000 actions).
// Sub-benchmark check=at-delivery re-runs the delivery-time half (checkCausalOrderAtDelivery) on
// every committed delivery: a walk over the record's true past (a few entries here) with a map
// lookup and two comparisons each; envelope ~20 ns an entry, ~100 ns a delivery. check=lifetime
// re-runs the end-of-run half (checkCausalOrderLifetime) over all committed history; its
// ns/delivery is its time divided by the deliveries it judged. Both are read-only on an honest
// run: a violation found fails the benchmark. The checksum is the number of deliveries checked.
//
//	go test ./sim/ -run '^$' -bench Oracle -benchmem
func BenchmarkOracle(b *testing.B) {
	set := throughputSettings(7)
	opts := RunOptions{}
	w := newWorld(diamondScenario(), &set, choose.NewRandom(1), &opts)
	res := w.run()
	if len(res.Violations) > 0 {
		b.Fatalf("honest run found %v", res.Violations[0])
	}
	type delivery struct {
		p   *proc
		uid uint64
	}
	var ds []delivery
	for i, uids := range res.Deliveries {
		for _, uid := range uids {
			ds = append(ds, delivery{w.procs[i], uid})
		}
	}
	if len(ds) == 0 {
		b.Fatal("the run delivered nothing")
	}
	b.Run("check=at-delivery", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for _, d := range ds {
				w.checkCausalOrderAtDelivery(d.p, d.uid)
			}
			n += len(ds)
		}
		oracleReport(b, w, n, len(ds))
	})
	b.Run("check=lifetime", func(b *testing.B) {
		n := 0
		for b.Loop() {
			w.checkCausalOrderLifetime()
			n += len(ds)
		}
		oracleReport(b, w, n, len(ds))
	})
}

// oracleReport fails on a staged or found violation and reports ns per checked delivery.
func oracleReport(b *testing.B, w *world, checked, deliveries int) {
	for _, p := range w.procs {
		if len(p.o.staged) > 0 {
			b.Fatalf("re-check staged %v", p.o.staged[0])
		}
	}
	if len(w.or.Violations()) > 0 {
		b.Fatalf("re-check found %v", w.or.Violations()[0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(checked), "ns/delivery")
	b.ReportMetric(float64(deliveries), "checksum")
}

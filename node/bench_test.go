package node

import (
	"fmt"
	"testing"
)

// Benchmarks for the codec and the gate. Run them with:
//
//	go test -run '^$' -bench . -benchmem ./node/
//
// results/bench.txt holds the committed figures (go run ./benchmarks/benchgate -update).
//
// Goals (designed for, not asserted): DecodeInto of one entry < 20 ns and 0 allocs; Decode of one
// entry < 50 ns; 64 entries into a reused buffer < 600 ns; Decide at width 4 ≥ 50 million
// decisions/s. Every benchmark folds its results into a checksum it reports, so the compiler
// cannot drop the work and a wrong result shows as a changed metric.

// benchChecksum folds bytes into a 16-bit checksum that a benchmark reports, so a changed
// encoding shows as a changed metric.
func benchChecksum(b []byte) int {
	sum := 0
	for _, x := range b {
		sum = (sum*31 + int(x)) & 0xffff
	}
	return sum
}

// benchEntries are the frontier sizes the codec benchmarks use.
var benchEntries = []int{1, 4, 16, 64, 1024}

// benchShape is a frontier layout: few topics with many partitions, or many single-partition
// topics. The wire cost differs (9 versus 26 bytes an entry).
type benchShape struct {
	name  string
	build func(entries int) Causes
}

var benchShapes = []benchShape{
	{"few-topics", func(n int) Causes {
		topics := max(1, n/16) // 16 partitions a topic, one topic below 16 entries
		return fxFrontier(topics, n/topics)
	}},
	{"many-topics", func(n int) Causes { return fxFrontier(n, 1) }},
}

func BenchmarkEncode(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchEntries {
			c := shape.build(n)
			b.Run(fmt.Sprintf("%s/entries=%d", shape.name, c.Len()), func(b *testing.B) {
				buf := make([]byte, 0, EncodedLen(c))
				for b.Loop() {
					buf = AppendEncode(buf[:0], c)
				}
				b.SetBytes(int64(len(buf)))
				b.ReportMetric(float64(benchChecksum(buf)), "checksum")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchEntries {
			c := shape.build(n)
			enc := Encode(c)
			b.Run(fmt.Sprintf("%s/entries=%d", shape.name, c.Len()), func(b *testing.B) {
				sum := 0
				for b.Loop() {
					got, err := Decode(enc)
					if err != nil {
						b.Fatal(err)
					}
					sum += got.Len()
				}
				b.SetBytes(int64(len(enc)))
				b.ReportMetric(float64(sum/b.N), "checksum")
			})
		}
	}
}

func BenchmarkDecodeInto(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchEntries {
			c := shape.build(n)
			enc := Encode(c)
			b.Run(fmt.Sprintf("%s/entries=%d", shape.name, c.Len()), func(b *testing.B) {
				var dst Causes
				sum := 0
				for b.Loop() {
					if err := DecodeInto(&dst, enc); err != nil {
						b.Fatal(err)
					}
					sum += dst.Len()
				}
				b.SetBytes(int64(len(enc)))
				b.ReportMetric(float64(sum/b.N), "checksum")
			})
		}
	}
}

// benchGate builds the deliverable case at width w: a message naming w channels, at a receiver
// that receives those w channels and w others interleaved with them, all settled above the causes.
func benchGate(w int) (Causes, *SettledTable) {
	var causes Causes
	table := &SettledTable{}
	for i := 0; i < 2*w; i++ {
		ch := fxChannel(i, Partition(i%3))
		table.Settle(ch, Offset(5000+i))
		if i%2 == 0 {
			causes.Merge(ch, Offset(4000+i))
		}
	}
	return causes, table
}

// benchGateMixed is benchGate's deliverable case for two senders taking turns: two lists of w
// channels each, at a receiver of those 2w and 2w others interleaved with them, all settled above
// the causes. Deciding the lists in turn is a table gating many senders: no call's lookups
// follow the last call's.
func benchGateMixed(w int) ([2]Causes, *SettledTable) {
	var lists [2]Causes
	table := &SettledTable{}
	for i := 0; i < 4*w; i++ {
		ch := fxChannel(i, Partition(i%3))
		table.Settle(ch, Offset(5000+i))
		if i%2 == 0 {
			lists[i/2%2].Merge(ch, Offset(4000+i))
		}
	}
	return lists, table
}

// mapView is a straightforward map-backed ReceivedSet and SettledView: the general, interface
// path of Decide, for comparison with the SettledTable fast path.
type mapView map[Channel]Offset

func (m mapView) Receives(ch Channel) bool { _, ok := m[ch]; return ok }

func (m mapView) Settled(ch Channel) (Offset, bool) { p, ok := m[ch]; return p, ok }

func BenchmarkDecide(b *testing.B) {
	for _, w := range []int{1, 4, 16, 64} {
		causes, table := benchGate(w)
		b.Run(fmt.Sprintf("table/width=%d", w), func(b *testing.B) {
			delivered := 0
			for b.Loop() {
				if table.Decide(causes).Deliverable() {
					delivered++
				}
			}
			reportDecisions(b, delivered)
		})
	}
	for _, w := range []int{1, 4, 16, 64} {
		lists, table := benchGateMixed(w)
		b.Run(fmt.Sprintf("table-mixed/width=%d", w), func(b *testing.B) {
			delivered, k := 0, 0
			for b.Loop() {
				if table.Decide(lists[k&1]).Deliverable() {
					delivered++
				}
				k++
			}
			reportDecisions(b, delivered)
		})
	}
	for _, w := range []int{1, 4, 16, 64} {
		causes, table := benchGate(w)
		view := mapView{}
		for ch, pos := range table.all() {
			view[ch] = pos
		}
		b.Run(fmt.Sprintf("map/width=%d", w), func(b *testing.B) {
			benchDecide(b, causes, view, view)
		})
	}
}

// benchDecide decides through the views' interfaces.
func benchDecide(b *testing.B, causes Causes, received ReceivedSet, settled SettledView) {
	delivered := 0
	for b.Loop() {
		if Decide(causes, received, settled).Deliverable() {
			delivered++
		}
	}
	reportDecisions(b, delivered)
}

// reportDecisions checks every decision was deliverable and reports the rate and the checksum.
func reportDecisions(b *testing.B, delivered int) {
	if delivered != b.N {
		b.Fatalf("%d of %d decisions deliverable, want all", delivered, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(delivered/b.N), "checksum")
}

// BenchmarkDecideHeld measures the held path, which builds blockers into a reused buffer.
func BenchmarkDecideHeld(b *testing.B) {
	for _, w := range []int{1, 4, 16, 64} {
		causes, table := benchGate(w)
		for _, c := range causes.Pairs() {
			table.Settle(c.Channel, c.Position-1)
		}
		b.Run(fmt.Sprintf("width=%d", w), func(b *testing.B) {
			var buf []Blocker
			sum := 0
			for b.Loop() {
				buf = AppendBlockers(buf[:0], causes, table, table)
				sum += len(buf)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			b.ReportMetric(float64(sum/b.N), "checksum")
		})
	}
}

package session

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// Run with: go test -run '^$' -bench . -benchmem ./node/session/

// benchWidths are the token widths (channels named) the benchmarks measure.
var benchWidths = []int{1, 4, 16}

// widePast returns a past naming width channels (four partitions per topic) at position base+i.
func widePast(width int, base int64) CausalPast {
	causes := make([]node.Cause, width)
	for i := range causes {
		topic := node.TopicID{byte(i/4 + 1), 15: 0x5a}
		causes[i] = at(topic, int32(i%4), base+int64(i))
	}
	return pastOf(causes...)
}

// checksum is an FNV-1a hash of a benchmark's final result, reported so the measured work can be
// neither optimised away nor quietly redefined.
func checksum(b *testing.B, result string) {
	h := fnv.New32a()
	h.Write([]byte(result))
	b.ReportMetric(float64(h.Sum32()), "checksum")
}

// BenchmarkCoverageOf measures a read tier's steady state: a recorded past covering a token of
// the same width. Estimate before measuring: two binary searches per token channel (the received
// set, then the recorded view), about log2(width)+1 twenty-byte compares of ~3 ns each, behind two
// interface calls: ~15 ns at width 1, ~40 ns at 4, ~300 ns at 16, and no allocation.
func BenchmarkCoverageOf(b *testing.B) {
	for _, width := range benchWidths {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			recorded, token := widePast(width, 100), widePast(width, 90)
			var cov Coverage
			for b.Loop() {
				cov = recorded.CoverageOf(token)
			}
			if !cov.Covered() {
				b.Fatalf("benchmark token not covered: %v", cov)
			}
			checksum(b, cov.String()+token.String())
		})
	}
}

// BenchmarkMergePast measures folding a served past into a token of the same width, both when the
// served past already covers the token (returned as is: one Covers walk, no allocation) and when
// each side has a channel the other lacks (two failed Covers walks, a clone and a sorted merge:
// about 2 allocations and ~100 ns + 10 ns per channel).
func BenchmarkMergePast(b *testing.B) {
	for _, width := range benchWidths {
		served := widePast(width, 100)
		cases := map[string]CausalPast{
			"covered": widePast(width, 90),
			"grows":   Meet(widePast(width, 90), widePast(width+1, 200)).MergePast(pastOf(at(topicC, 7, 1))),
		}
		for _, name := range []string{"covered", "grows"} {
			token := cases[name]
			b.Run(fmt.Sprintf("case=%s/width=%d", name, width), func(b *testing.B) {
				var merged CausalPast
				for b.Loop() {
					merged = served.MergePast(token)
				}
				checksum(b, merged.String())
			})
		}
	}
}

// BenchmarkDecode measures decoding an inbound token. Estimate: node.Decode's parse (~10 ns plus
// ~5 ns per channel) and two allocations (the pair slice and the boxed frontier, ~25 ns each):
// ~60 ns at width 1, ~80 ns at 4, ~150 ns at 16.
func BenchmarkDecode(b *testing.B) {
	for _, width := range benchWidths {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			encoded := widePast(width, 100).Encode()
			b.SetBytes(int64(len(encoded)))
			var token CausalPast
			for b.Loop() {
				var err error
				if token, err = Decode(encoded); err != nil {
					b.Fatal(err)
				}
			}
			checksum(b, token.String())
		})
	}
}

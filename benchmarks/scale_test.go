package benchmarks

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var scaleLarge = flag.Bool("scale.large", false, "BenchmarkScale: also run the large sizes (16,000 and 64,000 processes)")

// BenchmarkScale runs the scale benchmark's generated topologies (scale.go: the envelope is
// there) and reports the wall time per step and the peak heap per process.
//
//	go test ./benchmarks/ -run '^$' -bench Scale -benchtime 1x                  1,000 and 4,000
//	go test ./benchmarks/ -run '^$' -bench Scale -benchtime 1x -scale.large     and 16,000, 64,000
//
// results/scale.md has the figures (go run ./benchmarks/scalereport).
func BenchmarkScale(b *testing.B) {
	sizes := scaleSizesSmall
	if *scaleLarge {
		sizes = ScaleSizes
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("processes=%d", n), func(b *testing.B) {
			var r scaleRun
			steps := 0
			for i := 0; i < b.N; i++ {
				var err error
				if r, err = runScale(n); err != nil {
					b.Fatal(err)
				}
				steps += r.steps
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(steps), "us/step")
			b.ReportMetric(float64(r.heapBytes)/float64(n), "B/process")
			b.ReportMetric(float64(r.channels), "channels")
		})
	}
}

// TestScaleReportIsFresh renders results/scale.md and results/scale.svg from results/scale.json
// and fails when either differs from the committed file: the report is generated, never edited
// (go run ./benchmarks/scalereport regenerates all three).
func TestScaleReportIsFresh(t *testing.T) {
	dir := filepath.Join("..", "results")
	r, err := ReadScaleReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, svg := RenderScale(r)
	for name, want := range map[string][]byte{ScaleMD: md, ScaleSVG: svg} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("results/%s is stale: regenerate it with go run ./benchmarks/scalereport -rerender", name)
		}
	}
}

// TestRenderScaleShowsEveryPoint renders a report of two points and checks the table and the
// plot carry both, and the ratio of their times per step. It fails if a point is dropped.
func TestRenderScaleShowsEveryPoint(t *testing.T) {
	r := &ScaleReport{Commit: "abc", Machine: "m", Command: "cmd", Points: []ScalePoint{
		{Processes: 1000, Channels: 12000, Steps: 3000, Seconds: 0.3, UsPerStep: 100, BytesPerProcess: 2048, Hash: "h1"},
		{Processes: 64000, Channels: 768000, Steps: 192000, Seconds: 57.6, UsPerStep: 300, BytesPerProcess: 4096, Hash: "h2"},
	}}
	md, svg := RenderScale(r)
	for _, want := range []string{"| 1,000 | 12,000 | 3,000 |", "| 64,000 | 768,000 | 192,000 |", "`h2`", "3.00x"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("64000")) && !bytes.Contains(svg, []byte("10000")) {
		t.Errorf("svg lacks the axis of processes:\n%s", svg)
	}
}

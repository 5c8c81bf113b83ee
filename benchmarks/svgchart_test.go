package benchmarks

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestEmpiricalQuantile: the smallest sample with at least fraction p of the samples at or below
// it (the p50 and p99 of the exact metrics).
func TestEmpiricalQuantile(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	cases := []struct {
		p      float64
		sorted []float64
		want   float64
	}{
		{0.5, []float64{1, 2, 3, 4}, 2},
		{0.5, []float64{1, 2, 3}, 2},
		{0.99, hundred, 99},
		{0.999, hundred, 100},
		{0, []float64{7, 8}, 7},
		{1, []float64{7, 8}, 8},
		{0.25, []float64{5}, 5},
	}
	for _, c := range cases {
		if got := empiricalQuantile(c.p, c.sorted); got != c.want {
			t.Errorf("empiricalQuantile(%v, %v) = %v, want %v", c.p, c.sorted, got, c.want)
		}
	}
}

// TestChartIsWellFormedSVG: a line chart and a box plot render as well-formed SVG with one line
// per series, one box per case, every label escaped.
func TestChartIsWellFormedSVG(t *testing.T) {
	lines := &chart{title: "a <title> & more", xLabel: "x", yLabel: "y", logX: true, width: 400, height: 300,
		lines: []series{{"one", []xy{{1, 2}, {10, 3}, {100, 5}}}, {"two & two", []xy{{1, 1}, {1000, 9}}}}}
	boxes := &chart{title: "boxes", yLabel: "µs", logY: true, width: 400, height: 300,
		boxes: []boxStats{newBox("a", []float64{1, 2, 3, 4, 100}), newBox("b<c>", []float64{10, 20, 30})}}
	for name, c := range map[string]*chart{"lines": lines, "boxes": boxes} {
		out := c.render()
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: not well-formed: %v\n%s", name, err, out)
			}
		}
		if got := strings.Count(string(out), "<polyline"); got != len(c.lines) {
			t.Errorf("%s: %d polylines, want %d", name, got, len(c.lines))
		}
		if got := strings.Count(string(out), `fill="#dbe9f6"`); got != len(c.boxes) {
			t.Errorf("%s: %d boxes, want %d", name, got, len(c.boxes))
		}
	}
	if b := newBox("a", []float64{1, 2, 3, 4, 100}); b.median != 3 || len(b.outliers) != 1 || b.outliers[0] != 100 || b.hi != 4 {
		t.Errorf("box of 1, 2, 3, 4, 100: %+v, want median 3, whisker to 4 and 100 an outlier", b)
	}
}

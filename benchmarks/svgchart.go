package benchmarks

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A small SVG chart writer for the report's plots: line charts (linear or logarithmic axes) and
// box plots over named cases. It draws only what the report needs and depends on nothing, so the
// command-line binary carries no plotting library.

// xy is one point of a line.
type xy struct{ X, Y float64 }

// series is one named line of a chart.
type series struct {
	name string
	pts  []xy
}

// boxStats is one box of a box plot: quartiles, whiskers (the furthest samples within 1.5
// interquartile ranges of the box) and the samples beyond them.
type boxStats struct {
	name                   string
	q1, median, q3, lo, hi float64
	outliers               []float64
}

// chart is one plot: title, axis labels and scales, and either lines or boxes.
type chart struct {
	title, xLabel, yLabel string
	logX, logY            bool
	yFromZero             bool // the y axis starts at 0 (linear only)
	width, height         float64
	lines                 []series
	boxes                 []boxStats
}

// palette colours the lines in order.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

// margins of the plotting area inside the picture, in points.
const (
	marginLeft, marginRight, marginTop = 64.0, 24.0, 36.0
	marginBottom                       = 48.0
	boxLabelRoom                       = 110.0 // below a box plot, for its rotated labels
)

// axis maps data values to picture coordinates along one dimension.
type axis struct {
	lo, hi   float64 // data range (logarithms when log)
	from, to float64 // picture range
	log      bool
}

func (a axis) at(v float64) float64 {
	if a.log {
		v = math.Log10(math.Max(v, 1e-300))
	}
	if a.hi == a.lo {
		return (a.from + a.to) / 2
	}
	return a.from + (v-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// ticks returns the tick values of the axis and their labels.
func (a axis) ticks() ([]float64, []string) {
	var vals []float64
	var labels []string
	if a.log {
		for e := math.Ceil(a.lo); e <= a.hi; e++ {
			v := math.Pow(10, e)
			vals, labels = append(vals, v), append(labels, strconv.FormatFloat(v, 'f', -1, 64))
		}
		return vals, labels
	}
	step := niceStep((a.hi - a.lo) / 5)
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step*1e-9; v += step {
		vals, labels = append(vals, v), append(labels, strconv.FormatFloat(v, 'g', 6, 64))
	}
	return vals, labels
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// dataRange returns the range an axis must show for vals, widened a little (by a factor on a log
// axis) so no mark sits on the frame; a log range is in powers of ten.
func dataRange(vals []float64, log, fromZero bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if log {
			v = math.Log10(math.Max(v, 1e-300))
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	if log {
		return lo - 0.15, hi + 0.15
	}
	if fromZero {
		lo = math.Min(lo, 0)
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.1, 1)
	}
	if fromZero && lo == 0 {
		return 0, hi + pad
	}
	return lo - pad, hi + pad
}

// svg accumulates a picture.
type svg struct{ bytes.Buffer }

func (s *svg) printf(format string, args ...any) { fmt.Fprintf(&s.Buffer, format, args...) }

// text writes escaped text at (x, y) with an anchor and an optional rotation.
func (s *svg) text(x, y float64, anchor, size string, rotate float64, body string) {
	var esc bytes.Buffer
	_ = xml.EscapeText(&esc, []byte(body))
	transform := ""
	if rotate != 0 {
		transform = fmt.Sprintf(` transform="rotate(%.4g %.2f %.2f)"`, rotate, x, y)
	}
	s.printf(`<text x="%.2f" y="%.2f" text-anchor="%s" font-size="%s"%s>%s</text>`+"\n", x, y, anchor, size, transform, esc.String())
}

// save renders the chart and writes it to path.
func (c *chart) save(path string) error {
	return os.WriteFile(path, c.render(), 0o644)
}

// render draws the chart.
func (c *chart) render() []byte {
	bottom := marginBottom
	if len(c.boxes) > 0 {
		bottom = boxLabelRoom
	}
	left, right, top, base := marginLeft, c.width-marginRight-c.legendWidth(), marginTop, c.height-bottom
	var xs, ys []float64
	for _, l := range c.lines {
		for _, p := range l.pts {
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
	}
	for _, b := range c.boxes {
		ys = append(append(ys, b.lo, b.hi), b.outliers...)
	}
	xa := axis{from: left, to: right, log: c.logX}
	xa.lo, xa.hi = dataRange(xs, c.logX, false)
	if len(c.boxes) > 0 {
		xa.lo, xa.hi = -0.5, float64(len(c.boxes))-0.5
	}
	ya := axis{from: base, to: top, log: c.logY}
	ya.lo, ya.hi = dataRange(ys, c.logY, c.yFromZero && !c.logY)

	var s svg
	s.printf(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif">`+"\n",
		c.width, c.height, c.width, c.height)
	s.printf(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	s.text(c.width/2, 20, "middle", "13", 0, c.title)
	// Grid and ticks.
	if len(c.boxes) == 0 {
		vals, labels := xa.ticks()
		for i, v := range vals {
			x := xa.at(v)
			s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#e5e5e5"/>`+"\n", x, top, x, base)
			s.text(x, base+14, "middle", "10", 0, labels[i])
		}
	}
	vals, labels := ya.ticks()
	for i, v := range vals {
		y := ya.at(v)
		s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#e5e5e5"/>`+"\n", left, y, right, y)
		s.text(left-6, y+3.5, "end", "10", 0, labels[i])
	}
	s.printf(`<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="none" stroke="#000000"/>`+"\n", left, top, right-left, base-top)
	s.text((left+right)/2, c.height-10, "middle", "11", 0, c.xLabel)
	s.text(16, (top+base)/2, "middle", "11", -90, c.yLabel)
	for i, l := range c.lines {
		colour := palette[i%len(palette)]
		var pts []string
		for _, p := range l.pts {
			pts = append(pts, fmt.Sprintf("%.2f,%.2f", xa.at(p.X), ya.at(p.Y)))
		}
		s.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), colour)
		for _, p := range l.pts {
			s.printf(`<circle cx="%.2f" cy="%.2f" r="2.5" fill="%s"/>`+"\n", xa.at(p.X), ya.at(p.Y), colour)
		}
	}
	for i, b := range c.boxes {
		c.drawBox(&s, xa, ya, float64(i), b, base)
	}
	c.legend(&s, right, top)
	s.printf("</svg>\n")
	return s.Bytes()
}

// drawBox draws one box with its whiskers, outliers and rotated label.
func (c *chart) drawBox(s *svg, xa, ya axis, at float64, b boxStats, base float64) {
	x, half := xa.at(at), 7.0
	s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#000000"/>`+"\n", x, ya.at(b.lo), x, ya.at(b.q1))
	s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#000000"/>`+"\n", x, ya.at(b.q3), x, ya.at(b.hi))
	for _, v := range []float64{b.lo, b.hi} {
		s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#000000"/>`+"\n", x-half/2, ya.at(v), x+half/2, ya.at(v))
	}
	yTop, yBottom := ya.at(b.q3), ya.at(b.q1)
	s.printf(`<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#dbe9f6" stroke="#000000"/>`+"\n", x-half, yTop, 2*half, math.Max(yBottom-yTop, 0.5))
	s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="#000000" stroke-width="2"/>`+"\n", x-half, ya.at(b.median), x+half, ya.at(b.median))
	for _, v := range b.outliers {
		s.printf(`<circle cx="%.2f" cy="%.2f" r="2" fill="none" stroke="#000000"/>`+"\n", x, ya.at(v))
	}
	s.text(x+3, base+10, "end", "10", -36, b.name)
}

// legendWidth is the room the legend takes right of the plotting area (none without lines).
func (c *chart) legendWidth() float64 {
	if len(c.lines) == 0 {
		return 0
	}
	width := 0.0
	for _, l := range c.lines {
		width = math.Max(width, 5.6*float64(len([]rune(l.name))))
	}
	return width + 40
}

// legend lists the lines' names with their colours, right of the plotting area.
func (c *chart) legend(s *svg, right, top float64) {
	for i, l := range c.lines {
		x, y := right+12, top+10+16*float64(i)
		colour := palette[i%len(palette)]
		s.printf(`<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" stroke-width="1.5"/>`+"\n", x, y-3.5, x+16, y-3.5, colour)
		s.text(x+20, y, "start", "10", 0, l.name)
	}
}

// newBox summarises samples (any order) as a box: empirical quartiles, whiskers at the furthest
// samples within 1.5 interquartile ranges of the box, and the samples beyond them.
func newBox(name string, samples []float64) boxStats {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	b := boxStats{name: name, q1: empiricalQuantile(0.25, sorted), median: empiricalQuantile(0.5, sorted),
		q3: empiricalQuantile(0.75, sorted)}
	iqr := b.q3 - b.q1
	b.lo, b.hi = b.q1, b.q3
	for _, v := range sorted {
		if v < b.q1-1.5*iqr || v > b.q3+1.5*iqr {
			b.outliers = append(b.outliers, v)
			continue
		}
		b.lo, b.hi = math.Min(b.lo, v), math.Max(b.hi, v)
	}
	return b
}

// empiricalQuantile returns the smallest of the sorted samples with at least fraction p of the
// samples at or below it (the empirical quantile, as gonum's stat.Quantile with stat.Empirical
// computes it, the same loop in the same floating point).
func empiricalQuantile(p float64, sorted []float64) float64 {
	fidx := p * float64(len(sorted))
	var cumsum float64
	for _, v := range sorted {
		cumsum++
		if cumsum >= fidx {
			return v
		}
	}
	return math.NaN()
}

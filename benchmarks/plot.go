package benchmarks

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The report's plots, drawn with gonum/plot as SVG. Wall-clock plots take the median of the
// samples in results/bench.txt; the latency plot takes the exact samples of the fixed cases.

// wallMedians is a benchmark file read for plotting: by "pkg BenchmarkName" key, by unit as
// written, the median of the samples.
type wallMedians map[string]map[string]float64

// lookup returns the median of unit for benchmark name of the package whose import path ends
// in pkg (e.g. "/node").
func (w wallMedians) lookup(pkg, name, unit string) (float64, bool) {
	v, ok := w[modulePath+pkg+" "+name][unit]
	return v, ok
}

// modulePath is the module's import path, the prefix of every benchmark key.
const modulePath = "github.com/parsleysim/parsleysim"

// series builds the points (x from the sub-benchmark parameter param, y the median of unit) of
// every benchmark named prefix + "/" + param + "=" + value (+ nothing more).
func (w wallMedians) series(prefix, param, unit string) plotter.XYs {
	var pts plotter.XYs
	for k, units := range w {
		_, name, _ := strings.Cut(k, " ")
		rest, ok := strings.CutPrefix(name, prefix+"/"+param+"=")
		if !ok || strings.Contains(rest, "/") {
			continue
		}
		x, err := strconv.ParseFloat(rest, 64)
		if v, has := units[unit]; err == nil && has {
			pts = append(pts, plotter.XY{X: x, Y: v})
		}
	}
	sortXYs(pts)
	return pts
}

// sortXYs sorts points by X (insertion sort: a handful of points).
func sortXYs(pts plotter.XYs) {
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && pts[j].X < pts[j-1].X; j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
}

// newPlot returns a plot with a title and axis labels, logarithmic in x when logX.
func newPlot(title, xLabel, yLabel string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: the lines rise to the right
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(24), vg.Points(8)
	return p
}

// addLines adds named series (name, points, name, points, ...) skipping empty ones.
func addLines(p *plot.Plot, named ...any) error {
	var keep []any
	for i := 0; i+1 < len(named); i += 2 {
		if pts := named[i+1].(plotter.XYs); len(pts) > 0 {
			keep = append(keep, named[i], pts)
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("no data")
	}
	if err := plotutil.AddLinePoints(p, keep...); err != nil {
		return err
	}
	if _, ok := p.X.Scale.(plot.LogScale); ok {
		p.X.Max *= 1.6 // room for the last tick label
	}
	return nil
}

// plotCodec draws codec time per op against frontier width.
func plotCodec(w wallMedians, path string) error {
	p := newPlot("Codec time against frontier width (median)", "entries", "ns/op", true, true)
	var named []any
	for _, fn := range []string{"Encode", "Decode", "DecodeInto"} {
		for _, shape := range []string{"few-topics", "many-topics"} {
			named = append(named, fn+" "+shape, w.series("Benchmark"+fn+"/"+shape, "entries", "ns/op"))
		}
	}
	if err := addLines(p, named...); err != nil {
		return fmt.Errorf("codec plot: %w", err)
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// plotDepth draws the engine's drain and commit cost against hold-back depth.
func plotDepth(w wallMedians, path string) error {
	p := newPlot("Release one held message against hold-back depth (median)", "depth", "ns/op", true, false)
	p.Y.Min = 0
	err := addLines(p, "drain", w.series("BenchmarkEngineDrainDepth", "depth", "ns/op"),
		"drain + commit + apply", w.series("BenchmarkEngineCommitDepth", "depth", "ns/op"))
	if err != nil {
		return fmt.Errorf("depth plot: %w", err)
	}
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}

// plotSimulator draws the simulator's wall time per action against processes, with the goal.
func plotSimulator(w wallMedians, path string) error {
	p := newPlot("Simulator: wall time per action, every check on (median)", "processes", "ns/action", true, false)
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left, p.Legend.XOffs, p.Legend.YOffs = true, true, vg.Points(8), -vg.Points(16)
	pts := w.series("BenchmarkScale", "processes", "ns/action")
	goal := plotter.XYs{}
	for _, pt := range pts {
		goal = append(goal, plotter.XY{X: pt.X, Y: 1e9 / goalActionsPerSecond})
	}
	if err := addLines(p, "grid topology", pts, "goal (300,000 actions/s)", goal); err != nil {
		return fmt.Errorf("simulator plot: %w", err)
	}
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}

// plotHold draws each case's hold-latency distribution as a box plot (log scale; a zero sample
// is drawn at 1 µs).
func plotHold(results []*ScenarioResult, path string) error {
	p := newPlot("Hold latency per scenario (virtual µs, exact)", "", "hold latency (µs)", false, true)
	var names []string
	for _, r := range results {
		if len(r.HoldMicros) == 0 {
			continue
		}
		vals := make(plotter.Values, len(r.HoldMicros))
		for i, v := range r.HoldMicros {
			vals[i] = math.Max(float64(v), 1)
		}
		box, err := plotter.NewBoxPlot(vg.Points(14), float64(len(names)), vals)
		if err != nil {
			return fmt.Errorf("hold plot of %s: %w", r.Name, err)
		}
		p.Add(box)
		names = append(names, fmt.Sprintf("%s (%d)", shortCase(r.Name), len(r.HoldMicros)))
	}
	if len(names) == 0 {
		return fmt.Errorf("hold plot: no samples")
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter // labels end at their box
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// shortCase abbreviates a case name for an axis label.
func shortCase(name string) string {
	name = strings.ReplaceAll(name, "processes=", "p=")
	if len(name) > 24 {
		return name[:22] + "…"
	}
	return name
}

// writePlots writes the report's SVG plots into dir and returns their file names.
func writePlots(dir string, w wallMedians, results []*ScenarioResult) ([]string, error) {
	files := []string{"hold-latency.svg"}
	if err := plotHold(results, filepath.Join(dir, files[0])); err != nil {
		return nil, err
	}
	if len(w) == 0 {
		return files, nil
	}
	draws := []struct {
		file string
		draw func(wallMedians, string) error
	}{{"codec-width.svg", plotCodec}, {"drain-depth.svg", plotDepth}, {"simulator-speed.svg", plotSimulator}}
	for _, d := range draws {
		if err := d.draw(w, filepath.Join(dir, d.file)); err != nil {
			return nil, err
		}
		files = append(files, d.file)
	}
	return files, nil
}

package benchmarks

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The report's plots, drawn as SVG (svgchart.go). Wall-clock plots take the median of the samples
// in results/bench.txt; the latency plot takes the exact samples of the fixed cases.

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
// every benchmark named prefix + "/" + param + "=" + value (+ nothing more), in x order.
func (w wallMedians) series(prefix, param, unit string) []xy {
	var pts []xy
	for k, units := range w {
		_, name, _ := strings.Cut(k, " ")
		rest, ok := strings.CutPrefix(name, prefix+"/"+param+"=")
		if !ok || strings.Contains(rest, "/") {
			continue
		}
		x, err := strconv.ParseFloat(rest, 64)
		if v, has := units[unit]; err == nil && has {
			pts = append(pts, xy{X: x, Y: v})
		}
	}
	slices.SortFunc(pts, func(a, b xy) int { return cmp.Compare(a.X, b.X) })
	return pts
}

// addLines adds the named series that have points; a chart with none is an error.
func addLines(c *chart, lines ...series) error {
	for _, l := range lines {
		if len(l.pts) > 0 {
			c.lines = append(c.lines, l)
		}
	}
	if len(c.lines) == 0 {
		return fmt.Errorf("no data")
	}
	return nil
}

// plotCodec draws codec time per op against frontier width.
func plotCodec(w wallMedians, path string) error {
	c := &chart{title: "Codec time against frontier width (median)", xLabel: "entries", yLabel: "ns/op",
		logX: true, logY: true, width: 600, height: 324}
	var lines []series
	for _, fn := range []string{"Encode", "Decode", "DecodeInto"} {
		for _, shape := range []string{"few-topics", "many-topics"} {
			lines = append(lines, series{fn + " " + shape, w.series("Benchmark"+fn+"/"+shape, "entries", "ns/op")})
		}
	}
	if err := addLines(c, lines...); err != nil {
		return fmt.Errorf("codec plot: %w", err)
	}
	return c.save(path)
}

// plotDepth draws the engine's drain and commit cost against hold-back depth.
func plotDepth(w wallMedians, path string) error {
	c := &chart{title: "Release one held message against hold-back depth (median)", xLabel: "depth", yLabel: "ns/op",
		logX: true, yFromZero: true, width: 576, height: 288}
	err := addLines(c, series{"drain", w.series("BenchmarkEngineDrainDepth", "depth", "ns/op")},
		series{"drain + commit + apply", w.series("BenchmarkEngineCommitDepth", "depth", "ns/op")})
	if err != nil {
		return fmt.Errorf("depth plot: %w", err)
	}
	return c.save(path)
}

// plotSimulator draws the simulator's wall time per action against processes, with the goal.
func plotSimulator(w wallMedians, path string) error {
	c := &chart{title: "Simulator: wall time per action, every check on (median)", xLabel: "processes", yLabel: "ns/action",
		logX: true, yFromZero: true, width: 576, height: 288}
	pts := w.series("BenchmarkScale", "processes", "ns/action")
	var goal []xy
	for _, pt := range pts {
		goal = append(goal, xy{X: pt.X, Y: 1e9 / goalActionsPerSecond})
	}
	if err := addLines(c, series{"grid topology", pts}, series{"goal (300,000 actions/s)", goal}); err != nil {
		return fmt.Errorf("simulator plot: %w", err)
	}
	return c.save(path)
}

// plotHold draws each case's hold-latency distribution as a box plot (log scale; a zero sample
// is drawn at 1 µs).
func plotHold(results []*ScenarioResult, path string) error {
	c := &chart{title: "Hold latency per scenario (virtual µs, exact)", yLabel: "hold latency (µs)", logY: true,
		width: 648, height: 396}
	for _, r := range results {
		if len(r.HoldMicros) == 0 {
			continue
		}
		vals := make([]float64, len(r.HoldMicros))
		for i, v := range r.HoldMicros {
			vals[i] = math.Max(float64(v), 1)
		}
		c.boxes = append(c.boxes, newBox(fmt.Sprintf("%s (%d)", shortCase(r.Name), len(r.HoldMicros)), vals))
	}
	if len(c.boxes) == 0 {
		return fmt.Errorf("hold plot: no samples")
	}
	return c.save(path)
}

// shortCase abbreviates a case name for an axis label.
func shortCase(name string) string {
	name = strings.ReplaceAll(name, "processes=", "p=")
	if len(name) > 24 {
		return name[:22] + "…"
	}
	return name
}

// wallPlots are the plots drawn from results/bench.txt, by file name.
var wallPlots = []struct {
	file string
	draw func(wallMedians, string) error
}{{"codec-width.svg", plotCodec}, {"drain-depth.svg", plotDepth}, {"simulator-speed.svg", plotSimulator}}

// plotNames returns the file names of the report's plots: the latency plot, and the wall-clock
// ones when there are wall-clock figures.
func plotNames(hasWall bool) []string {
	files := []string{"hold-latency.svg"}
	if hasWall {
		for _, d := range wallPlots {
			files = append(files, d.file)
		}
	}
	return files
}

// writePlots writes the report's SVG plots into dir and returns their file names.
func writePlots(dir string, w wallMedians, results []*ScenarioResult) ([]string, error) {
	files := plotNames(len(w) > 0)
	if err := plotHold(results, filepath.Join(dir, files[0])); err != nil {
		return nil, err
	}
	if len(w) == 0 {
		return files, nil
	}
	for _, d := range wallPlots {
		if err := d.draw(w, filepath.Join(dir, d.file)); err != nil {
			return nil, err
		}
	}
	return files, nil
}

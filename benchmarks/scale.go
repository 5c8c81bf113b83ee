package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// The scale benchmark: one run of the random scenario's generated topology (simrun --processes N
// --seed ScaleSeed) at each of ScaleSizes, with every check on, reporting the wall time per step
// and the peak heap per process during the run (the whole world: substrate logs, engines, the
// oracle). Its figure of merit is the curve of time per step against the world's size: a
// step that touches only what it changes costs the same in a world of 1,000 processes and in one
// of 64,000.
//
// Envelope (TigerStyle's back of the envelope): a run of N processes takes about 3N steps (N
// starts, a safety phase of a few hundred chosen steps, then the liveness phase feeds, drains and
// commits every process), and a step's own work (a fetch, an engine receive or drain, a commit,
// the oracle's bookkeeping) is a few microseconds. A chosen step also weighs its candidates; if
// that costs O(N), it amortises over the ~3N steps to a constant. So time per step should stay
// within a small factor (~2x, cache effects) from 1,000 to 64,000 processes, and memory per
// process should be constant (a few tens of kilobytes: a process's engine, its channels' states,
// its share of the logs).

// ScaleSeed is the seed every size of the scale benchmark runs.
const ScaleSeed = 3

// ScaleSizes are the world sizes the scale report measures; scaleSizesSmall those BenchmarkScale
// runs without -scale.large.
var (
	ScaleSizes      = []int{1000, 4000, 16000, 64000}
	scaleSizesSmall = []int{1000, 4000}
)

// ScalePoint is one size's measurement.
type ScalePoint struct {
	Processes       int     `json:"processes"`
	Channels        int     `json:"channels"`
	Steps           int     `json:"steps"`
	Seconds         float64 `json:"seconds"`
	UsPerStep       float64 `json:"us_per_step"`
	BytesPerProcess float64 `json:"bytes_per_process"`
	Hash            string  `json:"hash"` // the run's trace hash: the work cannot be redefined unseen
}

// scaleRun is one run of the scale benchmark: its steps, channels, trace hash, and the peak of
// the heap's live objects during the run above what it was before.
type scaleRun struct {
	steps, channels int
	hash            string
	heapBytes       uint64
}

// runScale builds and runs the generated topology of n processes at ScaleSeed, as simrun
// --processes n --seed ScaleSeed does (its trace hashed), and fails unless the run passes.
func runScale(n int) (scaleRun, error) {
	prep, err := scenarios.Spec{Seed: ScaleSeed, Processes: n}.Prepare()
	if err != nil {
		return scaleRun{}, fmt.Errorf("scale: %d processes: %w", n, err)
	}
	channels := 0
	for _, t := range prep.Scenario.Topics {
		channels += t.Partitions
	}
	hash := trace.NewHashSink()
	opts := prep.Options
	opts.Sinks = []trace.Sink{hash}
	runtime.GC()
	before := heapObjects()
	peak := watchPeakHeap()
	res := sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(ScaleSeed), opts)
	top := peak()
	if res.Verdict != "pass" {
		return scaleRun{}, fmt.Errorf("scale: %d processes: verdict %s", n, res.Verdict)
	}
	return scaleRun{steps: res.Steps, channels: channels, hash: hash.Sum(), heapBytes: top - min(before, top)}, nil
}

// heapObjects returns the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// watchPeakHeap samples heapObjects every peakSampleEvery until the returned function is called,
// which stops the sampling and returns the highest sample. A sample includes garbage not yet
// collected, so the peak is an upper bound of the live heap, as a process's peak memory is.
func watchPeakHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		top := heapObjects()
		tick := time.NewTicker(peakSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- max(top, heapObjects())
				return
			case <-tick.C:
				top = max(top, heapObjects())
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}

// peakSampleEvery is how often watchPeakHeap samples the heap.
const peakSampleEvery = 2 * time.Millisecond

// MeasureScale runs one size once and times it.
func MeasureScale(n int) (ScalePoint, error) {
	start := time.Now()
	r, err := runScale(n)
	secs := time.Since(start).Seconds()
	if err != nil {
		return ScalePoint{}, err
	}
	return ScalePoint{Processes: n, Channels: r.channels, Steps: r.steps, Seconds: secs,
		UsPerStep: secs * 1e6 / float64(r.steps), BytesPerProcess: float64(r.heapBytes) / float64(n), Hash: r.hash}, nil
}

// ScaleReport is results/scale.json: where and how the figures were measured, and the points.
type ScaleReport struct {
	Commit  string       `json:"commit"`
	Machine string       `json:"machine"`
	Command string       `json:"command"`
	Points  []ScalePoint `json:"points"`
}

// Scale report files, in the results directory.
const (
	ScaleJSON = "scale.json"
	ScaleMD   = "scale.md"
	ScaleSVG  = "scale.svg"
)

// WriteScaleReport writes the report's JSON, and the Markdown and SVG rendered from it, to dir.
func WriteScaleReport(dir string, r *ScaleReport) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	md, svg := RenderScale(r)
	for name, b := range map[string][]byte{ScaleJSON: append(js, '\n'), ScaleMD: md, ScaleSVG: svg} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadScaleReport reads dir's scale.json.
func ReadScaleReport(dir string) (*ScaleReport, error) {
	b, err := os.ReadFile(filepath.Join(dir, ScaleJSON))
	if err != nil {
		return nil, err
	}
	var r ScaleReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", ScaleJSON, err)
	}
	return &r, nil
}

// RenderScale renders the report's Markdown and its plot of time per step against processes.
func RenderScale(r *ScaleReport) (md, svg []byte) {
	c := &chart{title: "Wall time per step against world size (simrun --processes N --seed 3)", xLabel: "processes",
		yLabel: "µs/step", logX: true, yFromZero: true, width: 576, height: 288}
	var pts []xy
	for _, p := range r.Points {
		pts = append(pts, xy{X: float64(p.Processes), Y: p.UsPerStep})
	}
	c.lines = []series{{name: "time per step", pts: pts}}
	svg = c.render()

	var b bytes.Buffer
	fmt.Fprintf(&b, "# How large a world runs\n\n")
	fmt.Fprintf(&b, "Generated by `%s` (do not edit: the figures are in `%s`, and a test fails when this file or\n", r.Command, ScaleJSON)
	fmt.Fprintf(&b, "`%s` is not what they render to). Commit %s; %s.\n\n", ScaleSVG, r.Commit, r.Machine)
	fmt.Fprintf(&b, "One run of `simrun --processes N --seed %d` per size, every check on: wall time over the whole\n", ScaleSeed)
	fmt.Fprintf(&b, "run (topology generation, starts, safety phase, liveness phase) divided by its steps, and the\n")
	fmt.Fprintf(&b, "peak of the heap during the run (the whole world; garbage not yet collected included, sampled\n")
	fmt.Fprintf(&b, "every 2 ms) divided by the processes.\n\n")
	fmt.Fprintf(&b, "| processes | channels | steps | wall | µs/step | bytes/process | trace hash |\n|---|---|---|---|---|---|---|\n")
	for _, p := range r.Points {
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f s | %.1f | %s | `%s` |\n", thousands(p.Processes), thousands(p.Channels),
			thousands(p.Steps), p.Seconds, p.UsPerStep, thousands(int(p.BytesPerProcess)), p.Hash)
	}
	if len(r.Points) > 1 {
		first, last := r.Points[0], r.Points[len(r.Points)-1]
		fmt.Fprintf(&b, "\nTime per step at %s processes is %.2fx that at %s.\n", thousands(last.Processes),
			last.UsPerStep/first.UsPerStep, thousands(first.Processes))
	}
	fmt.Fprintf(&b, "\n![time per step against processes](%s)\n", ScaleSVG)
	return b.Bytes(), svg
}

// thousands renders n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var parts []string
	for len(s) > 3 {
		parts = append([]string{s[len(s)-3:]}, parts...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, parts...), ",")
}

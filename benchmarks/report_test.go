package benchmarks

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sampleWall is a small wall-clock file with the benchmarks the goals and plots read.
const sampleWall = `# go run ./benchmarks/benchgate -update
# commit abc load average 1.00 1.00 1.00 at start
goos: linux
pkg: github.com/parsleysim/parsleysim/node
BenchmarkEncode/many-topics/entries=1-2 	 100 	 30 ns/op
BenchmarkEncode/many-topics/entries=64-2 	 100 	 900 ns/op
BenchmarkDecodeInto/few-topics/entries=1-2 	 100 	 15 ns/op
BenchmarkDecodeInto/many-topics/entries=1-2 	 100 	 25 ns/op
BenchmarkEngineDrainDepth/depth=16-2 	 100 	 1000 ns/op
BenchmarkEngineDrainDepth/depth=4096-2 	 100 	 1200 ns/op
pkg: github.com/parsleysim/parsleysim/sim
BenchmarkScale/processes=10-2 	 1 	 5000 ns/op 	 2000 ns/action
BenchmarkScale/processes=100-2 	 1 	 5000 ns/op 	 4000 ns/action
BenchmarkActions-2 	 1 	 5000 ns/op 	 250000 actions/s
`

// TestWriteReport: the report's goals read the right figures (a missed and a met goal), the
// tables list every case, the optional reports are linked only when present, and every plot is
// an SVG.
func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	b, err := Collect("abc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, metricsFile), b.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, wallFile), []byte(sampleWall), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := WriteReport(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.Contains(ReportFiles(), f) {
			t.Errorf("WriteReport wrote %s, which ReportFiles does not list", f)
		}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(readme)
	for _, want := range []string{
		"| DecodeInto, 1 entry, reused buffer | ≤ 20 ns, 0 allocs | 15.0 ns (few topics), 25.0 ns (many topics); 0 allocs | no |",
		"(1.20x); work per op equal: true | yes |",
		"| 250000 actions/s | no |",
		"load average 1.00 1.00 1.00",
		"Exact metrics: commit abc,",
		"| node | BenchmarkEncode/many-topics/entries=64 | 900.0ns |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, c := range Cases {
		if !strings.Contains(md, "| "+c.Name+" | ") {
			t.Errorf("README lacks case %s", c.Name)
		}
	}
	if strings.Contains(md, speedFile) || strings.Contains(md, exploreFile) {
		t.Errorf("README links reports the directory lacks")
	}
	if len(files) != 5 {
		t.Errorf("files %v, want README and 4 plots", files)
	}
	for _, f := range files[1:] {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(data), "<svg") {
			t.Errorf("%s is not an SVG (%v)", f, err)
		}
		if !strings.Contains(md, "("+f+")") {
			t.Errorf("README does not show %s", f)
		}
	}
	for _, f := range []string{speedFile, exploreFile} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again, err := renderCommittedReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(again), "[speed.md](speed.md)") || !strings.Contains(string(again), "[explore.md](explore.md)") {
		t.Errorf("README does not link the speed and explorer reports once they exist")
	}
}

// TestResultsReportIsCurrent: the committed results/README.md is exactly what the committed
// results/sim-metrics.json and results/bench.txt produce, so it cannot quote stale figures.
func TestResultsReportIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "results")
	want, err := renderCommittedReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Fatalf("results/README.md is not what results/%s and results/%s produce (first difference, line %d):\n got %s\nwant %s\nregenerate it: %s",
			metricsFile, wallFile, i+1, line(gl), line(wl), ReportCommand)
	}
}

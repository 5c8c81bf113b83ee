package benchmarks

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// benchText renders Go benchmark output for one benchmark with the given ns/op values.
func benchText(pkg, name string, nsPerOp ...float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: linux\npkg: %s\n", pkg)
	for _, v := range nsPerOp {
		fmt.Fprintf(&b, "%s-2 \t 1000 \t %g ns/op \t 7 checksum\n", name, v)
	}
	b.WriteString("PASS\n")
	return b.String()
}

func TestParseBench(t *testing.T) {
	text := "# comment line\n" + benchText("example/p", "BenchmarkX/width=4", 100, 110) + benchText("example/q", "BenchmarkX/width=4", 5)
	s := ParseBench([]byte(text), "t.txt", "sec/op")
	if got := s["example/p BenchmarkX/width=4"]; len(got) != 2 || math.Abs(got[0]-100e-9) > 1e-15 || math.Abs(got[1]-110e-9) > 1e-15 {
		t.Errorf("p samples %v, want [1e-7 1.1e-7]", got)
	}
	if got := s["example/q BenchmarkX/width=4"]; len(got) != 1 {
		t.Errorf("q samples %v: packages must not mix", got)
	}
	if c := ParseBench([]byte(text), "t.txt", "checksum"); c["example/q BenchmarkX/width=4"][0] != 7 {
		t.Errorf("checksum unit not read: %v", c)
	}
}

func TestGate(t *testing.T) {
	base := ParseBench([]byte(benchText("p", "BenchmarkA", 100, 101, 99, 102, 98, 100)), "base", "sec/op")
	cases := []struct {
		name   string
		cur    []float64
		slower bool
	}{
		{"same", []float64{101, 99, 100, 103, 97, 100}, false},
		{"1.5x slower", []float64{150, 151, 149, 152, 148, 150}, false},
		{"2.5x slower", []float64{250, 251, 249, 252, 248, 250}, true},
		{"one slow run in six", []float64{100, 101, 99, 900, 98, 100}, false},
		{"3x faster", []float64{33, 34, 33, 32, 33, 34}, false},
	}
	for _, c := range cases {
		cur := ParseBench([]byte(benchText("p", "BenchmarkA", c.cur...)), "cur", "sec/op")
		res := Gate(base, cur)
		if len(res) != 1 || res[0].Slower() != c.slower {
			t.Errorf("%s: %v, want slower=%v", c.name, res, c.slower)
		}
		if out, failed := FormatGate(res); (failed == 1) != c.slower || strings.Contains(out, "SLOWER") != c.slower {
			t.Errorf("%s: report %q, %d failed", c.name, out, failed)
		}
	}
	res := Gate(base, ParseBench([]byte(benchText("p", "BenchmarkNew", 5, 5)), "cur", "sec/op"))
	if !res[0].NoBaseline || res[0].Slower() || !strings.Contains(res[0].String(), "not in the baseline") {
		t.Errorf("new benchmark: %v", res[0])
	}
}

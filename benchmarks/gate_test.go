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

// pair builds a side-by-side pair with the given rounds of ns/op and instructions per op.
func pair(base, cur []float64, baseInstr, newInstr float64) Pair {
	p := Pair{Key: "github.com/parsleysim/parsleysim/node BenchmarkA", BaseInstr: baseInstr, NewInstr: newInstr}
	for _, v := range base {
		p.Base = append(p.Base, v*1e-9)
	}
	for _, v := range cur {
		p.New = append(p.New, v*1e-9)
	}
	return p
}

// TestSideBySideGate: time fails only on a consistent slowdown beyond SlowdownFactor (not on one
// slow round, not on a 1.5x slowdown, not on a speedup), instructions fail beyond
// InstructionFactor whatever the times, and the report marks exactly the failing rows.
func TestSideBySideGate(t *testing.T) {
	base := []float64{100, 101, 99, 102, 98, 100}
	cases := []struct {
		name                string
		cur                 []float64
		baseInstr, newInstr float64
		slower              bool
	}{
		{"same", []float64{101, 99, 100, 103, 97, 100}, 300, 301, false},
		{"1.5x slower", []float64{150, 151, 149, 152, 148, 150}, 300, 300, false},
		{"2.5x slower", []float64{250, 251, 249, 252, 248, 250}, 300, 300, true},
		{"one slow round in six", []float64{100, 101, 99, 900, 98, 100}, 300, 300, false},
		{"3x faster", []float64{33, 34, 33, 32, 33, 34}, 300, 100, false},
		{"twice the instructions", []float64{101, 99, 100, 103, 97, 100}, 300, 600, true},
		{"1.4x the instructions", []float64{101, 99, 100, 103, 97, 100}, 300, 420, false},
		{"not counted", []float64{101, 99, 100, 103, 97, 100}, 0, 0, false},
	}
	for _, c := range cases {
		p := pair(base, c.cur, c.baseInstr, c.newInstr)
		if got := p.TimeSlower() || p.InstrSlower(); got != c.slower {
			t.Errorf("%s: slower = %v, want %v (speedup %v, p %.3f)", c.name, got, c.slower, p.Base, p.P())
		}
		if out, failed := FormatSideBySide([]Pair{p}, true); (failed == 1) != c.slower || strings.Contains(out, "SLOWER") != c.slower {
			t.Errorf("%s: report %q, %d failed", c.name, out, failed)
		}
	}
	s, lo, hi, ok := pair(base, []float64{50, 50, 50, 51, 49, 200}, 0, 0).Speedup()
	if !ok || s != 2 || lo != 0.5 || math.Abs(hi-2.02) > 0.001 {
		t.Errorf("speedup %v, spread %v..%v, want 2 and 0.5..2.02", s, lo, hi)
	}
	if _, _, _, ok := pair(base, nil, 0, 0).Speedup(); ok {
		t.Error("a speedup without the new build's rounds")
	}
}

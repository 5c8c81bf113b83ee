package benchmarks

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// The side-by-side comparison: a baseline commit and the working tree are built, and their
// benchmarks run interleaved (baseline, new, new, baseline, ...) on the same machine in the same
// minutes, so that the load both see is alike and their ratio means something where absolute
// times do not. Where valgrind is installed, each benchmark's instructions per op are counted
// too (cachegrind, GOMAXPROCS=1, the collector off): a deterministic measure that no load moves.

// InstructionFactor is how many times more instructions per op than the baseline fail the gate.
// Instruction counts move with the work done, not with the machine or its load, so added work
// shows in proportion and noise stays far below the factor.
const InstructionFactor = 1.5

// Pair is one benchmark measured in both builds: time per op of every round (seconds, in round
// order, so that Base[i] and New[i] ran side by side) and instructions per op (0 when not
// counted).
type Pair struct {
	Key                 string
	Base, New           []float64
	BaseInstr, NewInstr float64
}

// Speedup returns the baseline's time over the new build's, per round: the median, and the
// least and greatest of the rounds (the spread). ok is false without a round measured in both.
func (p Pair) Speedup() (median, lo, hi float64, ok bool) {
	var r []float64
	for i := range min(len(p.Base), len(p.New)) {
		if p.New[i] > 0 {
			r = append(r, p.Base[i]/p.New[i])
		}
	}
	if len(r) == 0 {
		return 0, 0, 0, false
	}
	slices.Sort(r)
	m := r[len(r)/2]
	if len(r)%2 == 0 {
		m = (r[len(r)/2-1] + r[len(r)/2]) / 2
	}
	return m, r[0], r[len(r)-1], true
}

// P is the Mann-Whitney U test's p-value for the two builds' times (1 when either is missing).
func (p Pair) P() float64 {
	if len(p.Base) == 0 || len(p.New) == 0 {
		return 1
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = GateAlpha
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(p.Base, &th), benchmath.NewSample(p.New, &th)).P
}

// TimeSlower reports whether the new build's time per op is more than SlowdownFactor times the
// baseline's in the median round, with p < GateAlpha.
func (p Pair) TimeSlower() bool {
	s, _, _, ok := p.Speedup()
	return ok && s < 1/SlowdownFactor && p.P() < GateAlpha
}

// InstrSlower reports whether the new build executes more than InstructionFactor times the
// baseline's instructions per op.
func (p Pair) InstrSlower() bool {
	return p.BaseInstr > 0 && p.NewInstr > InstructionFactor*p.BaseInstr
}

// FormatSideBySide renders the pairs as a Markdown table, one row per benchmark in key order,
// and returns how many fail the gate (instructions always; time only when timeGates).
func FormatSideBySide(pairs []Pair, timeGates bool) (string, int) {
	var b strings.Builder
	b.WriteString("| package | benchmark | baseline | new | speedup (median of rounds) | spread (rounds) | p | instructions/op baseline | new | ÷ |\n")
	b.WriteString("|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	failed := 0
	for _, p := range sortedPairs(pairs) {
		pkg, name, _ := strings.Cut(p.Key, " ")
		pkg = strings.TrimPrefix(strings.TrimPrefix(pkg, modulePath), "/")
		row := fmt.Sprintf("| %s | %s | %s | %s |", pkg, name, medianTime(p.Base), medianTime(p.New))
		if s, lo, hi, ok := p.Speedup(); ok {
			row += fmt.Sprintf(" %.2fx | %.2fx–%.2fx | %.3f |", s, lo, hi, p.P())
		} else {
			row += " - | - | - |"
		}
		if p.BaseInstr > 0 && p.NewInstr > 0 {
			row += fmt.Sprintf(" %.1f | %.1f | %.2f |", p.BaseInstr, p.NewInstr, p.NewInstr/p.BaseInstr)
		} else {
			row += fmt.Sprintf(" %s | %s | - |", instrCell(p.BaseInstr), instrCell(p.NewInstr))
		}
		var why []string
		if p.InstrSlower() {
			why = append(why, fmt.Sprintf("instructions more than %gx", InstructionFactor))
		}
		if timeGates && p.TimeSlower() {
			why = append(why, fmt.Sprintf("time more than %gx", SlowdownFactor))
		}
		if len(why) > 0 {
			failed++
			row += " SLOWER: " + strings.Join(why, ", ")
		}
		b.WriteString(row + "\n")
	}
	return b.String(), failed
}

// sortedPairs returns the pairs in key order.
func sortedPairs(pairs []Pair) []Pair {
	out := slices.Clone(pairs)
	slices.SortFunc(out, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// medianTime renders the median of seconds-per-op samples, "-" when there are none.
func medianTime(s []float64) string {
	if len(s) == 0 {
		return "-"
	}
	v := slices.Clone(s)
	slices.Sort(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return formatSeconds(m)
}

// instrCell renders an instruction count, "-" when not counted.
func instrCell(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/benchmarks"
)

// TestUsage: stray arguments and a missing baseline exit 2 before any benchmark runs, the latter
// naming the file and the command that creates it.
func TestUsage(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"extra"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "extra") {
		t.Errorf("stray argument: exit %d, stderr %q", code, errs.String())
	}
	errs.Reset()
	if code := run([]string{"-baseline", "no-such-bench.txt"}, &out, &errs); code != 2 ||
		!strings.Contains(errs.String(), "no-such-bench.txt") || !strings.Contains(errs.String(), "-update") {
		t.Errorf("missing baseline: exit %d, stderr %q", code, errs.String())
	}
}

// TestSlowFamilies: only the gate families with a significant slowdown are measured again.
func TestSlowFamilies(t *testing.T) {
	slow := benchmarks.GateResult{Key: "github.com/parsleysim/parsleysim/substrate BenchmarkModelMixed",
		OldMedian: 1, NewMedian: 3, P: 0.002}
	fine := benchmarks.GateResult{Key: "github.com/parsleysim/parsleysim/node BenchmarkEngineChain",
		OldMedian: 1, NewMedian: 1.1, P: 0.3}
	got := slowFamilies([]benchmarks.GateResult{slow, fine})
	if len(got) != 1 || got[0].Pkg != "./substrate/" || got[0].Gate != "^BenchmarkModelMixed$" {
		t.Errorf("slow families %+v, want the substrate ModelMixed entry only", got)
	}
	if len(slowFamilies([]benchmarks.GateResult{fine})) != 0 {
		t.Error("a result within the gate re-measured")
	}
}

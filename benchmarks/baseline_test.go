package benchmarks

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectIsExact: two collections agree metric for metric, and the baseline file round-trips.
func TestCollectIsExact(t *testing.T) {
	a, err := Collect("c1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Collect("c2")
	if err != nil {
		t.Fatal(err)
	}
	if ch := Compare(a, b); len(ch) > 0 {
		t.Fatalf("two runs differ:\n%s", FormatChanges(ch))
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := writeFile(path, a.Marshal()); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if ch := Compare(a, back); len(ch) > 0 || back.MetricCount() != a.MetricCount() || a.MetricCount() < 200 {
		t.Fatalf("round trip: %d vs %d metrics, changes:\n%s", back.MetricCount(), a.MetricCount(), FormatChanges(ch))
	}
}

// TestCompareNamesEachChange: a moved, a removed and an added metric are each named with the
// amount.
func TestCompareNamesEachChange(t *testing.T) {
	old := &Baseline{Metrics: map[string]map[string]int64{
		"scenario/x":    {"hold_p99_us": 200, "steps": 10, "gone": 3},
		"allocs_per_op": {"node.Decode/entries=1": 0},
	}}
	cur := &Baseline{Metrics: map[string]map[string]int64{
		"scenario/x":    {"hold_p99_us": 250, "steps": 10, "added": 4},
		"allocs_per_op": {"node.Decode/entries=1": 1},
	}}
	got := FormatChanges(Compare(old, cur))
	want := "allocs_per_op node.Decode/entries=1: 0 -> 1 (+1, from zero)\n" +
		"scenario/x added: new metric (4), not in the baseline\n" +
		"scenario/x gone: gone (was 3)\n" +
		"scenario/x hold_p99_us: 200 -> 250 (+50, +25.00%)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(Compare(old, old)) != 0 {
		t.Error("a baseline differs from itself")
	}
}

// TestReadBaselineNamesFile: a file that is not a baseline is an error naming it.
func TestReadBaselineNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := writeFile(path, []byte(`{"command": "x"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseline(path); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("err %v, want one naming bad.json", err)
	}
}

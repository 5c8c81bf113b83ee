package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// invokeMerge runs `simrun merge ARGS` and returns the exit code, stdout and stderr.
func invokeMerge(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := mergeMain(args, &out, &errs)
	return code, out.String(), errs.String()
}

// shardedSweep runs `simrun sweep ARGS --shard i/n --result DIR/sweep-i.json` for every i and
// returns the result files.
func shardedSweep(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		file := filepath.Join(dir, fmt.Sprintf("sweep-%d.json", i))
		code, _, stderr := runSweep(context.Background(), append(args, "--shard", fmt.Sprintf("%d/%d", i, n), "--result", file)...)
		if code != exitPass && code != exitViolation {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, stderr)
		}
		files = append(files, file)
	}
	return files
}

// TestMergeSweepShards: the merged report of a sweep's shards is the unsharded report, in JSON
// and in the human form (but for the line saying how it ran and the timing), with and without a
// sabotage mode, whatever the order of the files, with a file given twice, and through a merged
// result file merged again.
func TestMergeSweepShards(t *testing.T) {
	for _, extra := range [][]string{{"--trace-digest"}, {"--sabotage", "SKIP_RECEIPT_MERGE"}} {
		args := append([]string{"--seeds", "1-12", "-j", "2"}, extra...)
		wantCode, want, _ := runSweep(context.Background(), append(args, "--json")...)
		_, wantHuman, _ := runSweep(context.Background(), args...)
		dir := t.TempDir()
		files := shardedSweep(t, dir, 4, args...)
		code, got, stderr := invokeMerge(append([]string{"--json"}, files[3], files[1], files[0], files[2], files[1])...)
		if code != wantCode || got != want || !strings.Contains(stderr, "counted once") {
			t.Fatalf("%v: merge exit %d (want %d), stderr %q\n%s\nwant\n%s", extra, code, wantCode, stderr, got, want)
		}
		_, human, _ := invokeMerge(files...)
		if body(human) != body(wantHuman) || !strings.Contains(human, "merged from 4 result files") {
			t.Fatalf("%v: the human report differs:\n%s\nwant\n%s", extra, human, wantHuman)
		}
		half := filepath.Join(dir, "half.json")
		if code, _, stderr := invokeMerge("--result", half, files[0], files[1]); code == exitPass || !strings.Contains(stderr, "missing shards 3, 4 of 4") {
			t.Fatalf("%v: half the shards: exit %d, stderr %q", extra, code, stderr)
		}
		if _, again, _ := invokeMerge("--json", half, files[2], files[3]); again != want {
			t.Fatalf("%v: a merged file merged again:\n%s\nwant\n%s", extra, again, want)
		}
	}
}

// body drops a sweep report's first line (how it ran) and its timing line.
func body(report string) string {
	var keep []string
	for i, l := range strings.Split(report, "\n") {
		if i > 0 && !strings.HasPrefix(l, "took ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestMergeRefusesOtherRuns: files of different runs, an unreadable file, a file that is not a
// result, and an honest sweep missing a shard are exit 2 with a message naming the problem.
func TestMergeRefusesOtherRuns(t *testing.T) {
	dir := t.TempDir()
	a := shardedSweep(t, filepath.Join(dir), 2, "--seeds", "1-4")
	other := filepath.Join(dir, "other.json")
	if code, _, stderr := runSweep(context.Background(), "--seeds", "1-4", "--sabotage", "NO_FIFO", "--shard", "2/2", "--result", other); code == exitUsage {
		t.Fatal(stderr)
	}
	wider := filepath.Join(dir, "wider.json")
	runSweep(context.Background(), "--seeds", "1-5", "--shard", "2/2", "--result", wider)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte(`{"format": "simrun-result/1", "header": {}}`), 0o644)
	tampered := filepath.Join(dir, "tampered.json")
	data, _ := os.ReadFile(a[1])
	os.WriteFile(tampered, bytes.Replace(data, []byte(`"steps": "from the seed"`), []byte(`"steps": "30"`), 1), 0o644)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{a[0], other}, `sabotage "NONE" differs from "NO_FIFO"`},
		{[]string{a[0], wider}, `settings_digest`},
		{[]string{a[0], filepath.Join(dir, "missing.json")}, "missing.json: open"},
		{[]string{a[0], garbage}, `garbage.json: kind ""`},
		{[]string{a[0], tampered}, "does not match its header"},
		{[]string{a[0], dir}, "is a directory"},
		{[]string{a[0]}, "missing shards 2 of 2"},
	} {
		if code, _, stderr := invokeMerge(tc.files...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want 2 naming %q", tc.files, code, stderr, tc.want)
		}
	}
	if code, _, _ := invokeMerge(a...); code != exitPass {
		t.Fatalf("the honest shards merge with exit %d", code)
	}
}

// TestSweepSaveFailures: --save-failures writes one replay file per failing seed, each of which
// replays its run exactly, and none for a passing seed; the summary says where they are.
func TestSweepSaveFailures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "failures")
	code, stdout, stderr := runSweep(context.Background(), "--seeds", "1-6", "--sabotage", "IGNORE_CAUSES", "--save-failures", dir, "--json")
	got := decodeSweep(t, stdout)
	if code != exitViolation || len(got.FailedSeeds) == 0 {
		t.Fatalf("exit %d, failed %v: %s", code, got.FailedSeeds, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != len(got.FailedSeeds) {
		t.Fatalf("%d files for %d failing seeds (%v)", len(entries), len(got.FailedSeeds), err)
	}
	_, human, _ := runSweep(context.Background(), "--seeds", "1-6", "--sabotage", "IGNORE_CAUSES", "--save-failures", dir)
	if want := fmt.Sprintf("replay files of the %d failing seeds in %s", len(got.FailedSeeds), dir); !strings.Contains(human, want) {
		t.Errorf("the summary does not say where the replay files went (%q):\n%s", want, human)
	}
	for _, seed := range got.FailedSeeds {
		file := filepath.Join(dir, fmt.Sprintf("simrun-random-%d-IGNORE_CAUSES.replay", seed))
		var out, errs bytes.Buffer
		if code := replayMain([]string{file, "--json"}, &out, &errs); code != exitViolation {
			t.Fatalf("replay %s: exit %d: %s", file, code, errs.String())
		}
		var r struct {
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Verdict != "violation" {
			t.Fatalf("replay %s: %v %s", file, err, out.String())
		}
	}
}

// TestMergeExploreShards: an exploration's shards merge into the unsharded verdict and
// violations, each with the unsharded shortest counterexample; the merged scope is complete only
// with every shard, and a missing shard is named (exit 2 when it leaves no violation to report).
func TestMergeExploreShards(t *testing.T) {
	for _, tc := range []struct{ scope, sabotage string }{{"delete_held", "DELIVER_PAST_DEAD_HOLDS"}, {"chain", "NONE"}, {"crash_hold", "DROP_HELD"}} {
		dir := t.TempDir()
		base := []string{"--scenario", tc.scope, "--sabotage", tc.sabotage, "--json"}
		wantCode, out, _ := invokeExplore(append(base, "--out", filepath.Join(dir, "whole.txt"))...)
		want := findings(t, out)
		var files []string
		for i := 1; i <= 3; i++ {
			file := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			code, _, stderr := invokeExplore(append(base, "--shard", fmt.Sprintf("%d/3", i), "--result", file, "--out", filepath.Join(dir, fmt.Sprintf("cx-%d.txt", i)))...)
			if code != exitPass && code != exitViolation {
				t.Fatalf("%s shard %d: exit %d: %s", tc.scope, i, code, stderr)
			}
			files = append(files, file)
		}
		code, merged, stderr := invokeMerge(append([]string{"--json"}, files...)...)
		var m struct {
			Complete bool   `json:"complete"`
			Verdict  string `json:"verdict"`
		}
		json.Unmarshal([]byte(merged), &m)
		if code != wantCode || !m.Complete || findings(t, merged) != want {
			t.Fatalf("%s: merge exit %d (want %d), complete %v, %s\nfindings %s\nwant %s", tc.scope, code, wantCode, m.Complete, stderr, findings(t, merged), want)
		}
		code, merged, stderr = invokeMerge(append([]string{"--json"}, files[:2]...)...)
		json.Unmarshal([]byte(merged), &m)
		if m.Complete || !strings.Contains(stderr, "missing shards 3 of 3") || (code != exitUsage && code != exitViolation) {
			t.Fatalf("%s: two of three shards: exit %d, complete %v, stderr %q", tc.scope, code, m.Complete, stderr)
		}
	}
}

// findings renders an exploration report's violations without the files they were written to.
func findings(t *testing.T, report string) string {
	t.Helper()
	var r struct {
		Verdict    string `json:"verdict"`
		Violations []struct {
			Criterion string  `json:"criterion"`
			Process   int     `json:"process"`
			Detail    string  `json:"detail"`
			Steps     int     `json:"shortest_steps"`
			Path      [][]int `json:"path"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("%v: %s", err, report)
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// TestMergeLiveShards: shards of a sweep on kfake compared with the model merge into a report
// that keeps the substrate and the compared and agreed seeds; a kfake shard beside a model shard,
// or a compared one beside an uncompared one, is refused naming both files.
func TestMergeLiveShards(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--seeds", "1-2", "--steps", "40", "-j", "1"}
	live := shardedSweep(t, dir, 2, append(args, "--substrate", "kfake", "--compare")...)
	code, out, stderr := invokeMerge(append([]string{"--json"}, live...)...)
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitPass {
		t.Fatalf("merge of kfake shards: exit %d, %v: %s%s", code, err, out, stderr)
	}
	if rep["substrate"] != "kfake" || rep["compared_seeds"] != 2.0 || rep["agreed_seeds"] != 2.0 {
		t.Errorf("merged: substrate %v, compared %v, agreed %v; want kfake, 2, 2", rep["substrate"], rep["compared_seeds"], rep["agreed_seeds"])
	}
	doctored := doctor(t, live[1], func(b map[string]any) { b["agreed_seeds"] = b["compared_seeds"].(float64) - 1 })
	if code, _, stderr := invokeMerge(live[0], doctored); code != exitUsage || !strings.Contains(stderr, doctored+" contradicts itself") ||
		!strings.Contains(stderr, "1 compared seeds, 0 agreed, but 0 seeds failed with MODEL_DIVERGENCE") {
		t.Errorf("a shard whose disagreeing seed did not fail: exit %d, stderr %q; want 2 naming the file and the counts", code, stderr)
	}
	model := filepath.Join(dir, "model-2.json")
	alone := filepath.Join(dir, "alone-2.json")
	for file, extra := range map[string][]string{model: nil, alone: {"--substrate", "kfake"}} {
		if code, _, stderr := runSweep(context.Background(), append(append(args, extra...), "--shard", "2/2", "--result", file)...); code != exitPass {
			t.Fatalf("%s: exit %d: %s", file, code, stderr)
		}
	}
	for _, tc := range []struct {
		other, want string
	}{
		{model, "the first ran on kfake compared with the model, the second on the model"},
		{alone, "the first ran on kfake compared with the model, the second on kfake alone"},
	} {
		code, _, stderr := invokeMerge(live[0], tc.other)
		if code != exitUsage || !strings.Contains(stderr, live[0]+" and "+tc.other) || !strings.Contains(stderr, tc.want) {
			t.Errorf("merge %s %s: exit %d, stderr %q; want 2 naming both files and %q", live[0], tc.other, code, stderr, tc.want)
		}
	}
}

// doctor writes a copy of the result file with its body changed by edit, and returns its path.
func doctor(t *testing.T, file string, edit func(body map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc["body"].(map[string]any))
	if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(file, ".json") + "-doctored.json"
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMergeRefusesDoctoredShards: a shard whose body contradicts itself or its shard (a failing
// seed another shard owns or outside the range, more runs than the shard has seeds, counts by
// criterion that the failures do not give, more caught seeds than eligible ones) is exit 2 naming
// the file and the contradiction, where it merged before as if it were true.
func TestMergeRefusesDoctoredShards(t *testing.T) {
	dir := t.TempDir()
	files := shardedSweep(t, dir, 2, "--seeds", "1-6", "--sabotage", "DROP_HELD")
	moveFailure := func(to float64) func(map[string]any) {
		return func(b map[string]any) {
			from := b["failed_seeds"].([]any)[0]
			b["failed_seeds"].([]any)[0] = to
			for _, f := range b["failures"].([]any) {
				if f := f.(map[string]any); f["seed"] == from {
					f["seed"] = to
				}
			}
		}
	}
	absent := func(b map[string]any) string {
		for _, c := range []string{"SESSION_DAMAGED", "SESSION_TOKEN", "STRUCT12", "RECREATION"} {
			if _, ok := b["seeds_by_criterion"].(map[string]any)[c]; !ok {
				return c
			}
		}
		t.Fatal("every criterion tried is in the report")
		return ""
	}
	for _, tc := range []struct {
		edit func(map[string]any)
		want string
	}{
		{moveFailure(5), "failed seed 5 is not in shard 1 of 2 (seed s is in shard s mod 2 + 1)"},
		{moveFailure(99), "failed seed 99 is not in shard 1 of 2"},
		{func(b map[string]any) { b["runs"] = 4.0 }, "4 runs, but seeds 1-6 have 3 in shard 1 of 2"},
		{func(b map[string]any) { b["seeds_by_criterion"].(map[string]any)[absent(b)] = 1.0 }, "but 0 failures name"},
		{func(b map[string]any) { b["violations_by_criterion"].(map[string]any)["NO_SUCH"] = 2.0 }, "violations_by_criterion NO_SUCH is 2, but seeds_by_criterion NO_SUCH is 0"},
		{func(b map[string]any) { b["caught_eligible"] = b["eligible_seeds"].(float64) + 1 }, "caught seeds are failed eligible ones"},
		{func(b map[string]any) { b["failures"].([]any)[0].(map[string]any)["criterion"] = "NO_SUCH" }, "names criterion NO_SUCH first"},
	} {
		bad := doctor(t, files[0], tc.edit)
		code, _, stderr := invokeMerge(bad, files[1])
		if code != exitUsage || !strings.Contains(stderr, bad+" contradicts itself") || !strings.Contains(stderr, tc.want) {
			t.Errorf("exit %d, stderr %q; want 2 naming %s and %q", code, stderr, bad, tc.want)
		}
	}
	if code, _, stderr := invokeMerge(files...); code != exitViolation {
		t.Fatalf("the shards as written: exit %d: %s", code, stderr)
	}
}

// TestMergeRefusesDoctoredExploreShards: an exploration shard whose report contradicts itself (a
// pass beside violations, more terminal states than states, a path shorter than it says) is exit
// 2 naming the file, where it merged before (a pass with violations listed under it).
func TestMergeRefusesDoctoredExploreShards(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := 1; i <= 2; i++ {
		file := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		code, _, stderr := invokeExplore("--scenario", "delete_held", "--sabotage", "DELIVER_PAST_DEAD_HOLDS", "--shard", fmt.Sprintf("%d/2", i),
			"--result", file, "--out", filepath.Join(dir, fmt.Sprintf("cx-%d.txt", i)))
		if code != exitViolation {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		files = append(files, file)
	}
	for _, tc := range []struct {
		edit func(map[string]any)
		want string
	}{
		{func(b map[string]any) { b["verdict"] = "pass" }, "verdict pass, but 1 violation(s) listed"},
		{func(b map[string]any) { b["verdict"] = "maybe" }, `verdict "maybe": expected pass or violation`},
		{func(b map[string]any) { b["terminal_states"] = b["states"].(float64) + 1 }, "the counts do not add up"},
		{func(b map[string]any) { b["own_subtrees"] = b["subtrees"].(float64) + 1 }, "subtrees its own"},
		{func(b map[string]any) { b["violations"].([]any)[0].(map[string]any)["shortest_steps"] = 1.0 }, "shortest path has 4 steps, but it says 1"},
	} {
		bad := doctor(t, files[0], tc.edit)
		code, _, stderr := invokeMerge(bad, files[1])
		if code != exitUsage || !strings.Contains(stderr, bad+" contradicts itself") || !strings.Contains(stderr, tc.want) {
			t.Errorf("exit %d, stderr %q; want 2 naming %s and %q", code, stderr, bad, tc.want)
		}
	}
	if code, _, stderr := invokeMerge(files...); code != exitViolation {
		t.Fatalf("the shards as written: exit %d: %s", code, stderr)
	}
}

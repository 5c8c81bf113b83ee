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

	"github.com/parsleysim/parsleysim/sim/explore/budget"
)

func invokeExplore(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := exploreCommand(context.Background(), args, &out, &errs, false)
	return code, out.String(), errs.String()
}

// TestExploreWorkers: --workers 1, 2 and 8 and -j 2 give the same JSON report of a scope but for
// the transitions, maximum depth, timings and workers; an interrupted exploration is reported
// incomplete and exits 130.
func TestExploreWorkers(t *testing.T) {
	strip := func(out string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, k := range []string{"transitions", "max_depth", "seconds", "states_per_s", "workers"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, sab := range []string{"DELIVER_PAST_DEAD_HOLDS", "NONE"} {
		var want string
		dir := t.TempDir()
		for _, w := range [][]string{{"--workers", "1"}, {"--workers", "2"}, {"-j", "2"}, {"--workers", "8"}} {
			code, out, errs := invokeExplore(append([]string{"--scenario", "delete_held", "--sabotage", sab, "--json", "--out", filepath.Join(dir, "cx.txt")}, w...)...)
			if code != exitPass && code != exitViolation {
				t.Fatalf("%v: exit %d: %s", w, code, errs)
			}
			if got := strip(out); want == "" {
				want = got
			} else if got != want {
				t.Fatalf("%s %v:\n%s\nwith one worker:\n%s", sab, w, got, want)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, w := range []string{"1", "2"} {
		var out, errs bytes.Buffer
		code := exploreCommand(ctx, []string{"--scenario", "delete_held", "--workers", w}, &out, &errs, false)
		if code != exitInterrupted || !strings.Contains(out.String(), "INCOMPLETE (interrupted)") {
			t.Fatalf("interrupted, %s workers: exit %d\n%s%s", w, code, out.String(), errs.String())
		}
	}
}

func TestExploreHonestScopePasses(t *testing.T) {
	code, out, errs := invokeExplore("--scenario", "crash_hold")
	if code != exitPass || !strings.Contains(out, "PASS") || !strings.Contains(out, "distinct terminal states") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestExploreSabotageWritesAReproducingFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cx.txt")
	code, out, errs := invokeExplore("--scenario", "chain", "--sabotage", "IGNORE_CAUSES", "--out", file, "--json")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"states", "terminal_states", "verdict", "violations"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if r["verdict"] != "violation" {
		t.Fatalf("verdict %v", r["verdict"])
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no counterexample file: %v", err)
	}
	var runOut, runErr bytes.Buffer
	runFileMain([]string{file, "--sabotage", "IGNORE_CAUSES"}, &runOut, &runErr)
	if !strings.Contains(runOut.String(), "violation") {
		t.Fatalf("simrun run does not reproduce the violation:\n%s\n%s", runOut.String(), runErr.String())
	}
}

func TestExploreCatalogueJSON(t *testing.T) {
	code, out, errs := invokeExplore("--family", "shaped", "--sabotage", "RESET_PAST_LOG_START", "--json")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1 (truncate_unread catches the host fault)\n%s", code, errs)
	}
	var r struct {
		Verdict string           `json:"verdict"`
		States  int              `json:"states"`
		Scopes  []map[string]any `json:"scopes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "violation" || r.States == 0 || len(r.Scopes) < 5 {
		t.Fatalf("catalogue JSON: %+v", r)
	}
	for _, s := range r.Scopes {
		for _, k := range []string{"states", "terminal_states", "verdict", "violations"} {
			if _, ok := s[k]; !ok {
				t.Fatalf("scope entry lacks %q: %v", k, s)
			}
		}
	}
}

func TestExploreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--scenario", "chain", "--catalogue"},
		{"--scenario", "nope"},
		{"--scenario", "chain", "--budget", "crash=x"},
		{"--scenario", "chain", "--sabotage", "NOPE"},
		{"--catalogue", "--budget", "crash=1"},
		{"--family", "nope"},
		{"--list", "--family", "nope"},
		{"--scenario", "chain", "--family", "general"},
		{"--family", "general", "-j", "-1"},
		{"--scenario", "general.crash.am.a-m"},
		{"--scenario", "chain", "--max-states", "-1"},
	} {
		if code, _, errs := invokeExplore(args...); code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestExploreMaxStatesReportsIncomplete: a state cap stops the scope after exactly that many
// states whatever the number of workers (several workers reaching new states at once must not
// overshoot it), and both the JSON and the human report say the exploration is incomplete, so a
// capped pass is never mistaken for a checked scope.
func TestExploreMaxStatesReportsIncomplete(t *testing.T) {
	const capStates = 20
	for _, workers := range []string{"1", "2", "8"} {
		code, out, errs := invokeExplore("--scenario", "stamped_fanin", "--max-states", fmt.Sprint(capStates), "--workers", workers, "--json")
		if code != exitPass {
			t.Fatalf("%s workers: exit %d\n%s\n%s", workers, code, out, errs)
		}
		var r struct {
			States   int  `json:"states"`
			Complete bool `json:"complete"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s workers: not one JSON object: %v\n%s", workers, err, out)
		}
		if r.Complete || r.States != capStates {
			t.Fatalf("%s workers: states %d, complete %v: want %d states, incomplete", workers, r.States, r.Complete, capStates)
		}
	}
	if _, human, _ := invokeExplore("--scenario", "stamped_fanin", "--max-states", fmt.Sprint(capStates)); !strings.Contains(human, "INCOMPLETE") {
		t.Fatalf("the report does not say INCOMPLETE:\n%s", human)
	}
	if _, full, _ := invokeExplore("--scenario", "stamped_fanin", "--json"); !strings.Contains(full, `"complete": true`) {
		t.Fatalf("the uncapped exploration is not complete:\n%s", full)
	}
}

// TestExploreGeneralFamily: --list --family general lists the generated scopes and nothing else,
// a general scope explores by name, and --family general --first stops at the first scope that
// catches a mode, in catalogue order whatever the number of workers.
func TestExploreGeneralFamily(t *testing.T) {
	_, list, _ := invokeExplore("--list", "--family", "general")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) < 100 || !strings.HasPrefix(lines[0], "general.none.a ") {
		t.Fatalf("--list --family general: %d lines, first %q", len(lines), lines[0])
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "general.") {
			t.Fatalf("--list --family general lists %q", l)
		}
	}
	if code, out, errs := invokeExplore("--scenario", "general.crash.a-m.am"); code != exitPass || !strings.Contains(out, "PASS") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var first string
	for _, jobs := range []string{"1", "2"} {
		code, out, errs := invokeExplore("--family", "general", "--sabotage", "DELIVER_PAST_DEAD_HOLDS", "--first", "-j", jobs, "--json")
		if code != exitViolation {
			t.Fatalf("-j %s: exit %d, want 1\n%s", jobs, code, errs)
		}
		var r struct {
			Scopes []struct {
				Scope   string `json:"scope"`
				Verdict string `json:"verdict"`
			} `json:"scopes"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		last := r.Scopes[len(r.Scopes)-1]
		for _, s := range r.Scopes[:len(r.Scopes)-1] {
			if s.Verdict != "pass" {
				t.Fatalf("-j %s: scope %s before the last has verdict %s", jobs, s.Scope, s.Verdict)
			}
		}
		if last.Verdict != "violation" || (first != "" && last.Scope != first) {
			t.Fatalf("-j %s: stopped at %s (%s), want the first catch %q", jobs, last.Scope, last.Verdict, first)
		}
		first = last.Scope
	}
	_, human, _ := invokeExplore("--family", "general", "--sabotage", "DELIVER_PAST_DEAD_HOLDS", "--first")
	if !strings.Contains(human, "summary:") || !strings.Contains(human, "general delete") {
		t.Fatalf("no summary per fault kind:\n%s", human)
	}
}

// TestExploreUsageNamesEveryBudgetKey: the help's list of --budget keys is the list the budget
// parser accepts (its error for an unknown key names them all), in the same order.
func TestExploreUsageNamesEveryBudgetKey(t *testing.T) {
	_, err := budget.Parse("no-such-key=1")
	if err == nil {
		t.Fatal("an unknown budget key parsed")
	}
	_, keys, ok := strings.Cut(err.Error(), "KEY one of ")
	if !ok {
		t.Fatalf("the budget parser's error lists no keys: %v", err)
	}
	_, help, _ := strings.Cut(strings.Join(strings.Fields(exploreUsage), " "), "(keys: ")
	help, _, _ = strings.Cut(help, ";")
	if help != keys {
		t.Errorf("simrun explore -h lists the budget keys\n  %s\nbut --budget accepts\n  %s", help, keys)
	}
}

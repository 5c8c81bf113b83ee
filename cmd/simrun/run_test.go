package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// invoke runs the default command in-process with replay files going to dir.
func invoke(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli{stdout: &out, stderr: &errb, dir: dir}.run(args)
	return code, out.String(), errb.String()
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestRunJSONShape(t *testing.T) {
	code, out, errs := invoke(t, t.TempDir(), "--seed", "1", "--steps", "60", "--json")
	if code != exitPass && code != exitViolation {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, out)
	}
	if seed, ok := got["seed"].(float64); !ok || seed != 1 {
		t.Errorf(`"seed" = %v, want the number 1`, got["seed"])
	}
	verdict, _ := got["verdict"].(string)
	if verdict != "pass" && verdict != "violation" {
		t.Errorf(`"verdict" = %v`, got["verdict"])
	}
	if (verdict == "pass") != (code == exitPass) {
		t.Errorf("verdict %s but exit %d", verdict, code)
	}
	if _, ok := got["violations"].([]any); !ok {
		t.Errorf(`"violations" = %v, want an array`, got["violations"])
	}
	if _, ok := got["stats"].(map[string]any); !ok {
		t.Errorf(`"stats" = %v, want an object`, got["stats"])
	}
	if h, _ := got["hash"].(string); !hexHash.MatchString(h) {
		t.Errorf(`"hash" = %v, want 16 hex digits`, got["hash"])
	}
}

func TestRunUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--sabotage", "NOPE"}, append([]string{`"NOPE"`}, scenarios.CatchRateModes()...)},
		{[]string{"-v", "--json"}, []string{"-v", "--json"}},
		{[]string{"--seed", "abc"}, []string{"-seed", `"abc"`}},
		{[]string{"--seed", "-1"}, []string{"-seed", `"-1"`}},
		{[]string{"--steps", "0"}, []string{"--steps", "0"}},
		{[]string{"--processes", "1"}, []string{"--processes", "1"}},
		{[]string{"--scenario", "nope"}, []string{`"nope"`, "random"}},
		{[]string{"--bogus"}, []string{"bogus"}},
		{[]string{"stray"}, []string{`"stray"`}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := invoke(t, t.TempDir(), tc.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stdout %s", code, exitUsage, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
	for _, name := range []string{"RESET_PAST_LOG_START", "TOKEN_SALVAGE"} {
		if _, _, err := spec.ParseSabotage(name); err != nil {
			t.Errorf("%s is not a valid --sabotage name: %v", name, err)
		}
	}
}

func TestRunHumanReportAndTrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	code, out, errs := invoke(t, dir, "--seed", "2", "--steps", "50", "--trace", trace)
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"seed 2", "settings:", "safety_steps             50", "exercised:", "verdict: ", "hash: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "settings:"), strings.Index(out, "verdict:"); i < 0 || j < i {
		t.Errorf("settings are not printed before the verdict")
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("trace line %d is not JSON: %s", lines+1, sc.Text())
		}
	}
	m := regexp.MustCompile(`events: (\d+)`).FindStringSubmatch(out)
	if m == nil || m[1] != itoa(lines) {
		t.Fatalf("trace has %d lines, report says %v", lines, m)
	}
}

func TestRunWithoutSeedPrintsOne(t *testing.T) {
	code, out, errs := invoke(t, t.TempDir(), "--steps", "10", "--json")
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct{ Seed *uint64 }
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Seed == nil {
		t.Fatalf("no seed printed: %v\n%s", err, out)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestViolationShrinksAutomatically: a violating default run saves its replay, then shrinks it
// to a minimal reproduction beside it (replay and scenario file); --json output does not shrink.
func TestViolationShrinksAutomatically(t *testing.T) {
	seed := uint64(1) // the first seed IGNORE_CAUSES is caught on, so the test follows the generator
	for ; !mustRunSeed(t, scenarios.Spec{Sabotage: "IGNORE_CAUSES"}, seed).Failed(); seed++ {
		if seed == 50 {
			t.Fatal("IGNORE_CAUSES caught on none of seeds 1-50")
		}
	}
	dir := t.TempDir()
	code, out, errs := invoke(t, dir, "--seed", fmt.Sprint(seed), "--sabotage", "IGNORE_CAUSES")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, errs)
	}
	shrunk := filepath.Join(dir, fmt.Sprintf("simrun-random-%d-IGNORE_CAUSES-shrunk", seed))
	for _, want := range []string{"shrinking (at most", "first violation REFERENCE", shrunk + ".replay"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, ext := range []string{".replay", ".txt"} {
		if _, err := os.Stat(shrunk + ext); err != nil {
			t.Errorf("no shrunk file: %v", err)
		}
	}
	jsonDir := t.TempDir()
	if code, out, _ := invoke(t, jsonDir, "--seed", fmt.Sprint(seed), "--sabotage", "IGNORE_CAUSES", "--json"); code != exitViolation || strings.Contains(out, "shrinking") {
		t.Fatalf("--json: exit %d, output mentions shrinking:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(jsonDir, filepath.Base(shrunk)+".replay")); err == nil {
		t.Error("--json run shrank")
	}
}

// mustRunSeed is scenarios.RunSeed, failing the test on an error.
func mustRunSeed(t *testing.T, spec scenarios.Spec, seed uint64) scenarios.SeedOutcome {
	t.Helper()
	o, err := scenarios.RunSeed(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestRunSaysWhatItChecked: a run's report names the criteria that judged it, by what the seed
// had: the oracle's step criteria always, the session criteria only with session clients, the
// restart check only when it reran the script.
func TestRunSaysWhatItChecked(t *testing.T) {
	for _, n := range []uint64{1, 2} {
		seed := fmt.Sprint(n)
		code, out, errs := invoke(t, t.TempDir(), "--seed", seed)
		if code != exitPass {
			t.Fatalf("seed %s: exit %d: %s", seed, code, errs)
		}
		prep, err := scenarios.Spec{Seed: n}.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "\nscript: ") {
			t.Errorf("seed %s of random says it ran a script:\n%s", seed, out)
		}
		_, checked, ok := strings.Cut(out, "\nchecked (docs/PROTOCOL.md §6 says what each criterion means):\n")
		checked, _, _ = strings.Cut(checked, "\nverdict: ")
		if !ok {
			t.Fatalf("seed %s: no checked section:\n%s", seed, out)
		}
		for _, want := range []string{"S1 S2 S3 S7 S8 S9 RECREATION STRUCT12 STRUCT14 STRUCT15 OVEREXPRESSION OVER_REFUSAL HOST REFERENCE at every step", "LIVENESS after the final healed phase"} {
			if !strings.Contains(checked, want) {
				t.Errorf("seed %s: checked section lacks %q:\n%s", seed, want, checked)
			}
		}
		if got, want := strings.Contains(checked, "SESSION_RYW SESSION_MR SESSION_WFR SESSION_COVERAGE SESSION_TOKEN SESSION_DAMAGED at every session operation"), prep.Scenario.Session != nil; got != want {
			t.Errorf("seed %s: session criteria listed %v, session clients %v:\n%s", seed, got, want, checked)
		}
		var rep struct {
			Stats spec.Stats `json:"stats"`
		}
		_, js, _ := invoke(t, t.TempDir(), "--seed", seed, "--json")
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Contains(checked, "RESTART_INVISIBILITY by 1 rerun(s)"), rep.Stats.RestartChecks == 1; got != want {
			t.Errorf("seed %s: restart rerun listed %v, restart checks %d:\n%s", seed, got, rep.Stats.RestartChecks, checked)
		}
	}
}

// TestStatsFieldsRoundFractions: the human report gives a fraction to one decimal (a rate of
// 277.79572323793525 deliveries per virtual second reads 277.8), counts as they are.
func TestStatsFieldsRoundFractions(t *testing.T) {
	got := statsFields("", struct {
		Rate  float64 `json:"rate"`
		Count int     `json:"count"`
	}{277.79572323793525, 43})
	if want := []string{"rate=277.8", "count=43"}; !slices.Equal(got, want) {
		t.Errorf("statsFields = %v, want %v", got, want)
	}
}

// TestReproduceLinesNameTheCommandRun: a built binary's reproduction lines start with the binary
// as it was run, a `go run` build's (deleted when it exits) with repoCommand; the JSON report,
// a document, always says repoCommand.
func TestReproduceLinesNameTheCommandRun(t *testing.T) {
	for arg0, want := range map[string]string{
		"./simrun":                          "./simrun",
		"/usr/local/bin/simrun":             "/usr/local/bin/simrun",
		"/home/a b/simrun":                  `'/home/a b/simrun'`,
		"/tmp/go-build1234/b001/exe/simrun": repoCommand,
		"/tmp/go-build99/b001/simrun.test":  repoCommand,
		"":                                  repoCommand,
	} {
		if got := commandFor(arg0); got != want {
			t.Errorf("commandFor(%q) = %q, want %q", arg0, got, want)
		}
	}
	defer func(was string) { userCommand = was }(userCommand)
	userCommand = "./bin/simrun"
	dir := t.TempDir()
	code, out, errs := invoke(t, dir, "--seed", "1", "--steps", "120", "--sabotage", "IGNORE_CAUSES")
	if code != exitViolation {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, errs)
	}
	for _, want := range []string{"\nreproduce: ./bin/simrun replay ", "\n   re-run: ./bin/simrun --seed 1 --scenario random --sabotage IGNORE_CAUSES --steps 120\n", "\nshrink: ./bin/simrun --seed 1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "go run") {
		t.Errorf("a built binary's output names go run:\n%s", out)
	}
	_, out, _ = invoke(t, t.TempDir(), "--seed", "1", "--steps", "120", "--sabotage", "IGNORE_CAUSES", "--json")
	if !strings.Contains(out, `"replay_command": "go run ./cmd/simrun replay `) {
		t.Errorf("the JSON report's command is not the repository's:\n%s", out)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/parsleysim/parsleysim/scenarios"
	"github.com/parsleysim/parsleysim/substrate"
)

// wrongOffset is a live substrate that answers every transactional write one offset too far: a
// planted disagreement for the comparison to find.
type wrongOffset struct{ substrate.Substrate }

func (w wrongOffset) ProduceTx(p substrate.TxnProducer, tp substrate.TopicPartition, rec substrate.Record) (substrate.Offset, error) {
	off, err := w.Substrate.ProduceTx(p, tp, rec)
	return off + 1, err
}

// plant makes every live substrate of the test's commands answer wrongly.
func plant(t *testing.T) {
	wrapLive = func(s substrate.Substrate) substrate.Substrate { return wrongOffset{s} }
	t.Cleanup(func() { wrapLive = nil })
}

// TestLiveKfakeSeedAgrees: a seed run on kfake with --compare passes and says so in its JSON;
// the same seed with a planted wrong offset exits 1 with the divergence (step, call, both
// results) and a replay file whose reproduction command carries the live flags.
func TestLiveKfakeSeedAgrees(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := invoke(t, dir, "--seed", "3", "--steps", "80", "--substrate", "kfake", "--compare", "--json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d, not JSON: %v\n%s%s", code, err, out, errs)
	}
	if code != exitPass || rep.Verdict != "pass" || rep.Substrate != "kfake" || !rep.Compared {
		t.Fatalf("honest compared run: exit %d, verdict %s, substrate %q, compared %v: %v %s", code, rep.Verdict, rep.Substrate, rep.Compared, rep.Violations, errs)
	}

	plant(t)
	code, out, _ = invoke(t, dir, "--seed", "3", "--steps", "80", "--substrate", "kfake", "--compare")
	if code != exitViolation {
		t.Fatalf("planted divergence: exit %d, want %d\n%s", code, exitViolation, out)
	}
	for _, want := range []string{"MODEL_DIVERGENCE", "disagree at step", "ProduceTx(", "model ", "; live ", "--substrate kfake --compare"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	replayFile := filepath.Join(dir, "simrun-random-3.replay")
	if data, err := os.ReadFile(replayFile); err != nil || !strings.Contains(string(data), "--substrate kfake --compare") {
		t.Errorf("replay file %s: %v\n%s", replayFile, err, data)
	}
}

// TestLiveKafkaBrokers runs a seed with --substrate kafka against an embedded cluster's listen
// address: the prefix is printed, the run agrees with the model, and Cleanup leaves no topic of
// the run behind.
func TestLiveKafkaBrokers(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	brokers := strings.Join(cluster.ListenAddrs(), ",")
	code, out, errs := invoke(t, t.TempDir(), "--seed", "8", "--steps", "80", "--substrate", "kafka", "--brokers", brokers, "--compare")
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "topic prefix parsley-8-") {
		t.Errorf("the default prefix (seed and suffix) is not printed:\n%s", out)
	}
	if names := topicsLeft(t, cluster); len(names) > 0 {
		t.Errorf("topics left on the cluster after the run: %v", names)
	}
}

// TestLiveSweepCountsDivergence: a kfake sweep with --compare counts the seeds that agreed, and a
// planted divergence fails every seed with MODEL_DIVERGENCE; the replay file --save-failures
// writes of a failing seed reproduces it on kfake, compared.
func TestLiveSweepCountsDivergence(t *testing.T) {
	saved := t.TempDir()
	sweep := func() (int, map[string]any) {
		var out, errb bytes.Buffer
		code := sweepCommand(context.Background(), []string{"--seeds", "1-2", "--steps", "60", "-j", "1", "--substrate", "kfake", "--compare", "--json", "--save-failures", saved}, &out, &errb, false)
		var rep map[string]any
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("exit %d, not JSON: %v\n%s%s", code, err, out.String(), errb.String())
		}
		return code, rep
	}
	code, rep := sweep()
	if rep["compared_seeds"] != 2.0 || rep["agreed_seeds"] != 2.0 || rep["substrate"] != "kfake" {
		t.Fatalf("honest sweep: exit %d, compared %v, agreed %v, substrate %v", code, rep["compared_seeds"], rep["agreed_seeds"], rep["substrate"])
	}
	plant(t)
	code, rep = sweep()
	byCrit, _ := rep["seeds_by_criterion"].(map[string]any)
	if code != exitViolation || rep["agreed_seeds"] != 0.0 || byCrit["MODEL_DIVERGENCE"] != 2.0 {
		t.Fatalf("planted sweep: exit %d, agreed %v, by criterion %v", code, rep["agreed_seeds"], byCrit)
	}
	data, err := os.ReadFile(filepath.Join(saved, "simrun-random-1.replay"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "reproduce: go run ./cmd/simrun --seed 1 --scenario random --steps 60 --substrate kfake --compare\n") {
		t.Errorf("the saved replay file does not reproduce the seed on kfake, compared:\n%s", data)
	}
}

// TestLiveRefusals: explore and shrink refuse a live substrate, and the live flags are checked.
func TestLiveRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--scenario", "diamond", "--substrate", "kfake"}, "explore runs on the model only"},
		{[]string{"shrink", "--seed", "1", "--substrate", "kfake"}, "shrink runs on the model only"},
		{[]string{"--seed", "1", "--substrate", "kafka"}, "--substrate kafka needs --brokers"},
		{[]string{"--seed", "1", "--compare"}, "--compare needs a live substrate"},
		{[]string{"--seed", "1", "--substrate", "kfake", "--topic-prefix", "x-"}, "are for --substrate kafka"},
		{[]string{"sweep", "--seeds", "1-2", "--substrate", "redpanda"}, `unknown substrate "redpanda"`},
		{[]string{"sweep", "--seeds", "1-2", "--substrate", "kfake", "--trace-digest"}, "--trace-digest is for the model"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, nil, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errb.String(), c.want)
		}
	}
}

// starved is a live substrate whose fetches find nothing: an answer the world accepts, so the
// processes just never receive.
type starved struct{ substrate.Substrate }

func (s starved) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, _ int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	return dst, from, nil
}

// TestLiveProcessesCompared: a live substrate that answers right while compared call for call
// but wrongly when the same choices run on it alone is caught by the per-process comparison,
// naming the process and its event.
func TestLiveProcessesCompared(t *testing.T) {
	made := 0
	wrapLive = func(s substrate.Substrate) substrate.Substrate {
		if made++; made == 1 {
			return s
		}
		return wrongOffset{s}
	}
	t.Cleanup(func() { wrapLive = nil })
	code, out, _ := invoke(t, t.TempDir(), "--seed", "3", "--steps", "80", "--substrate", "kfake", "--compare")
	if code != exitViolation || !strings.Contains(out, "MODEL_DIVERGENCE") || !strings.Contains(out, "on kfake alone, with the model's topic IDs") {
		t.Fatalf("exit %d, want %d with the process that differs:\n%s", code, exitViolation, out)
	}
	if made != 2 {
		t.Errorf("%d live substrates made, want 2 (the compared run and the live run alone)", made)
	}

	made = 0
	wrapLive = func(s substrate.Substrate) substrate.Substrate {
		if made++; made == 1 {
			return s
		}
		return starved{s}
	}
	code, out, _ = invoke(t, t.TempDir(), "--seed", "3", "--steps", "80", "--substrate", "kfake", "--compare")
	if code != exitViolation || !strings.Contains(out, "differs between the model's answers and kfake's alone") {
		t.Fatalf("starved live run: exit %d, want %d naming the process whose events differ:\n%s", code, exitViolation, out)
	}
}

// TestLiveFlagsRepeat: the flags a reproduce line repeats carry the brokers, the SASL mechanism
// and the comparison, never the credentials.
func TestLiveFlagsRepeat(t *testing.T) {
	t.Setenv("PARSLEY_KAFKA_SASL_USERNAME", "sim")
	t.Setenv("PARSLEY_KAFKA_SASL_PASSWORD", "s3cret-pw")
	l := liveFlags{substrate: "kafka", brokers: "b1:9093,b2:9093", sasl: "PLAIN", compare: true}
	live, err := l.live()
	if err != nil {
		t.Fatal(err)
	}
	got := live.Flags()
	if want := " --substrate kafka --brokers b1:9093,b2:9093 --sasl-mechanism PLAIN --compare"; got != want {
		t.Errorf("Flags() = %q, want %q", got, want)
	}
	if strings.Contains(got, "s3cret") || strings.Contains(got, "sim ") {
		t.Errorf("Flags() carries a credential: %q", got)
	}
}

// TestLiveSweepPrefixPerSeed: a sweep on brokers with --topic-prefix runs seeds at once under
// the prefix followed by each seed, so they never create the same topic, and leaves nothing on
// the cluster.
func TestLiveSweepPrefixPerSeed(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	brokers := strings.Join(cluster.ListenAddrs(), ",")
	var out, errb bytes.Buffer
	code := sweepCommand(context.Background(), []string{"--seeds", "1-4", "--steps", "60", "-j", "2", "--substrate", "kafka", "--brokers", brokers, "--topic-prefix", "shared-", "--compare"}, &out, &errb, false)
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if names := topicsLeft(t, cluster); len(names) > 0 {
		t.Errorf("topics left on the cluster after the sweep: %v", names)
	}
}

// topicsLeft lists the topics on cluster.
func topicsLeft(t *testing.T, cluster *kfake.Cluster) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	left, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return left.Names()
}

// shellWords splits a command line as a POSIX shell does (sh -c), so a test sees the arguments a
// printed reproduce line hands the command.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `words() { for a; do printf '%s\0' "$a"; done; }; words `+line).Output()
	if err != nil {
		t.Fatalf("sh cannot split %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestReproduceLinesQuoted: a reproduce line that names a path, a broker or a TLS file with a
// space or a quote in it hands the shell that very text as one argument.
func TestReproduceLinesQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	save := filepath.Join(dir, "it's $HOME.replay")
	var out string
	for seed := 1; seed <= 8; seed++ {
		code, o, _ := invoke(t, dir, "--seed", fmt.Sprint(seed), "--sabotage", "IGNORE_CAUSES", "--save", save)
		if code == exitViolation {
			out = o
			break
		}
	}
	m := regexp.MustCompile(`(?m)^reproduce: go run \./cmd/simrun (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no reproduce line (no seed of 1-8 failed?):\n%s", out)
	}
	if got := shellWords(t, m[1]); len(got) != 2 || got[0] != "replay" || got[1] != save {
		t.Errorf("reproduce line %q gives the shell %q, want [replay %q]", m[1], got, save)
	}

	l := liveFlags{substrate: "kafka", brokers: "b1:9093,b'2 :9093", tlsCA: "/certs/my ca.pem", tlsCert: "/certs/it's.pem", tlsKey: "k.pem", compare: true}
	live := scenarios.Live{Substrate: "kafka", Brokers: strings.Split(l.brokers, ","), Access: l.access(), Compare: true}
	want := []string{"--substrate", "kafka", "--brokers", l.brokers, "--tls-ca", l.tlsCA, "--tls-cert", l.tlsCert, "--tls-key", l.tlsKey, "--compare"}
	if got := shellWords(t, live.Flags()); !slices.Equal(got, want) {
		t.Errorf("Flags() = %q gives the shell %q, want %q", live.Flags(), got, want)
	}
}

// TestLiveFailureIsNoFinding: brokers that cannot be reached are a failure of the live substrate,
// exit 3 from every command that runs on it, not a violation or a usage error; an interrupt is
// exit 130.
func TestLiveFailureIsNoFinding(t *testing.T) {
	file := "../../scenarios/testdata/diamond_hold.txt"
	for _, args := range [][]string{
		{"--seed", "1"},
		{"run", file},
		{"sweep", "--seeds", "1-2", "-j", "1"},
	} {
		var out, errb bytes.Buffer
		code := run(append(args, "--substrate", "kafka", "--brokers", "127.0.0.1:1", "--compare"), nil, &out, &errb)
		if code != exitLive || !strings.Contains(errb.String(), "the live substrate failed") || !strings.Contains(errb.String(), "127.0.0.1:1") {
			t.Errorf("%v on unreachable brokers: exit %d, stderr %q; want %d naming the brokers", args, code, errb.String(), exitLive)
		}
	}
	var errb bytes.Buffer
	if code := liveExit(&errb, "simrun", fmt.Errorf("seed 4: %w", scenarios.ErrInterrupted)); code != exitInterrupted {
		t.Errorf("an interrupted live run: exit %d, want %d", code, exitInterrupted)
	}
}

// TestLiveRestartInvisibilityFile: a file that expects restart-invisible runs on kfake, compared:
// the check's runs go to the model with the topic IDs the live run adopted.
func TestLiveRestartInvisibilityFile(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"run", "../../scenarios/testdata/restart_invisibility.txt", "--substrate", "kfake", "--compare"}, nil, &out, &errb); code != exitPass {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

// TestLiveReport: sweep --live-report runs every scenario file and both scenarios' seeds on kfake,
// compared, and writes live.md as live.json renders it, with the command that made it (its --out
// quoted for the shell).
func TestLiveReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "it's here")
	t.Chdir("../..")
	code, stdout, stderr := runSweep(context.Background(), "--live-report", "--seeds", "1", "-j", "1", "--out", out)
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	js, err := os.ReadFile(filepath.Join(out, "live.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep scenarios.LiveReport
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(liveReportFiles)
	if len(rep.Files) != len(files) || len(rep.Sweeps) != 2 || rep.Sweeps[0].Agreed != 1 || rep.Sweeps[1].Agreed != 1 {
		t.Fatalf("%d of %d files, sweeps %+v", len(rep.Files), len(files), rep.Sweeps)
	}
	if md, err := os.ReadFile(filepath.Join(out, "live.md")); err != nil || string(md) != string(rep.Markdown()) {
		t.Errorf("live.md is not what live.json renders (%v)", err)
	}
	if words := shellWords(t, rep.Command); words[len(words)-1] != out {
		t.Errorf("the report's command %q gives the shell --out %q, want %q", rep.Command, words[len(words)-1], out)
	}
}

// TestLiveUncomparedSaysRestartCheckOff: a seed run on kfake without --compare names the restart
// check it switched off in the settings it prints, and makes none.
func TestLiveUncomparedSaysRestartCheckOff(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--seed", "1", "--steps", "40", "--substrate", "kfake"}, nil, &out, &errb); code != exitPass {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "\nrestart check: off, needs --compare on a live substrate\n") || !strings.Contains(out.String(), " restart_checks=0 ") {
		t.Errorf("no restart check switched off in the settings:\n%s", out.String())
	}
}

// TestLiveRunFileRerunLine: a scenario file whose compared run diverges on kfake prints the
// command that runs it again there, compared, its path quoted for the shell.
func TestLiveRunFileRerunLine(t *testing.T) {
	src, err := os.ReadFile("../../scenarios/testdata/diamond_hold.txt")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "it's a file.txt")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	plant(t)
	var out, errb bytes.Buffer
	code := run([]string{"run", file, "--substrate", "kfake", "--compare"}, nil, &out, &errb)
	m := regexp.MustCompile(`(?m)^   re-run: go run \./cmd/simrun (.*)$`).FindStringSubmatch(out.String())
	if code != exitViolation || !strings.Contains(out.String(), "MODEL_DIVERGENCE") || m == nil {
		t.Fatalf("exit %d, no divergence with a re-run line:\n%s%s", code, out.String(), errb.String())
	}
	if got, want := shellWords(t, m[1]), []string{"run", file, "--substrate", "kfake", "--compare"}; !slices.Equal(got, want) {
		t.Errorf("re-run line %q gives the shell %q, want %q", m[1], got, want)
	}
}

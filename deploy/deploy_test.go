package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// These tests keep the deployment files honest: the shell loop's merged report is the unsharded
// one, and the command lines of the Kubernetes manifest and the GitHub Actions workflow are taken
// from the files and run (with a small seed range and local directories), so the files cannot
// drift from the command line. Kubernetes and Docker are not available where the tests run: the
// manifest's structure is checked by parsing it.

// simrun is the binary the tests build (TestMain).
var simrun string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "deploy-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	simrun = filepath.Join(dir, "simrun")
	build := exec.Command("go", "build", "-o", simrun, "../cmd/simrun")
	build.Stderr = os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building simrun:", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs a command in dir with extra environment variables and returns its exit code, stdout
// and stderr. The batch runners' shard variables of the test's own environment are removed.
func run(t *testing.T, dir string, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(shardVariables, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errs.String()
	case err != nil:
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return 0, out.String(), errs.String()
}

// shardVariables are the variables simrun reads a shard from.
var shardVariables = []string{"JOB_COMPLETION_INDEX", "SIMRUN_SHARD_TOTAL", "CI_NODE_INDEX", "CI_NODE_TOTAL",
	"BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL",
	"TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_STATUS_FILE"}

// unsharded returns the exit code and --json report of `simrun ARGS --json` run in one piece.
func unsharded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, out, errs := run(t, t.TempDir(), nil, simrun, append(args, "--json")...)
	if code != 0 && code != 1 {
		t.Fatalf("simrun %v: exit %d: %s", args, code, errs)
	}
	return code, out
}

// mergedJSON returns `simrun merge --json FILES`'s exit code and report.
func mergedJSON(t *testing.T, files ...string) (int, string) {
	t.Helper()
	code, out, errs := run(t, t.TempDir(), nil, simrun, append([]string{"merge", "--json"}, files...)...)
	if code != 0 && code != 1 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	return code, out
}

// TestShellLoopSweep: deploy/shell/shards.sh runs a sweep as 4 shard processes and merges them;
// the merged report (seeds, failures, every count) is the unsharded sweep's, with and without a
// sabotage mode, and every failing seed left its replay file.
func TestShellLoopSweep(t *testing.T) {
	for _, args := range [][]string{{"sweep", "--seeds", "1-24", "-j", "1"}, {"sweep", "--seeds", "1-24", "-j", "1", "--sabotage", "IGNORE_CAUSES"}} {
		wantCode, want := unsharded(t, args...)
		out := filepath.Join(t.TempDir(), "out")
		code, report, errs := run(t, t.TempDir(), []string{"SIMRUN=" + simrun}, "sh", append([]string{shardsScript(t), "4", out}, args...)...)
		if code != wantCode || !strings.Contains(report, "merged from 4 result files") {
			t.Fatalf("%v: the loop exited %d (the unsharded sweep %d):\n%s\n%s", args, code, wantCode, report, errs)
		}
		files, _ := filepath.Glob(filepath.Join(out, "shard-*.json"))
		if code, got := mergedJSON(t, files...); got != want || code != wantCode {
			t.Fatalf("%v: merged (exit %d):\n%s\nunsharded (exit %d):\n%s", args, code, got, wantCode, want)
		}
		replays, _ := filepath.Glob(filepath.Join(out, "failures", "*.replay"))
		if failed := strings.Count(want, `"criteria"`); len(replays) != failed {
			t.Fatalf("%v: %d replay files for %d failing seeds", args, len(replays), failed)
		}
	}
}

// TestShellLoopExplore: deploy/shell/shards.sh runs an exploration as 3 shard processes and
// merges them into the unsharded verdict and violations (with their shortest counterexamples),
// the scope reported complete.
func TestShellLoopExplore(t *testing.T) {
	for _, args := range [][]string{{"explore", "--scenario", "delete_held", "--sabotage", "DELIVER_PAST_DEAD_HOLDS"}, {"explore", "--scenario", "chain"}} {
		wantCode, want := unsharded(t, args...)
		out := filepath.Join(t.TempDir(), "out")
		code, report, errs := run(t, t.TempDir(), []string{"SIMRUN=" + simrun}, "sh", append([]string{shardsScript(t), "3", out}, args...)...)
		if code != wantCode || !strings.Contains(report, "shard 1-3/3") {
			t.Fatalf("%v: the loop exited %d (the unsharded exploration %d):\n%s\n%s", args, code, wantCode, report, errs)
		}
		files, _ := filepath.Glob(filepath.Join(out, "shard-*.json"))
		_, got := mergedJSON(t, files...)
		if verdict(t, got) != verdict(t, want) {
			t.Fatalf("%v: merged %s\nunsharded %s", args, verdict(t, got), verdict(t, want))
		}
	}
}

// verdict renders an exploration report's verdict, completeness and violations (criterion,
// process, shortest path).
func verdict(t *testing.T, report string) string {
	t.Helper()
	var r struct {
		Verdict    string `json:"verdict"`
		Complete   bool   `json:"complete"`
		Violations []struct {
			Criterion string  `json:"criterion"`
			Process   int     `json:"process"`
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

// shardsScript is the shell loop's absolute path.
func shardsScript(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("shell/shards.sh")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// k8sObject is the part of a Kubernetes object the test reads.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		AccessModes          []string `yaml:"accessModes"`
		CompletionMode       string   `yaml:"completionMode"`
		Completions          int      `yaml:"completions"`
		Parallelism          int      `yaml:"parallelism"`
		BackoffLimitPerIndex *int     `yaml:"backoffLimitPerIndex"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string         `yaml:"restartPolicy"`
				Containers    []k8sContainer `yaml:"containers"`
				Volumes       []struct {
					Name string `yaml:"name"`
					PVC  struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// env returns the container's variable name's value.
func (c k8sContainer) env(name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// readManifest parses every object of the manifest, strictly (an unknown field is an error).
func readManifest(t *testing.T, path string) map[string]k8sObject {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string]k8sObject{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		var o k8sObject
		if err := node.Decode(&o); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		objects[o.Kind+"/"+o.Metadata.Name] = o
	}
	return objects
}

// k8sExpand expands $(VAR) references as Kubernetes does in a container's command and args.
func k8sExpand(s string, env map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := env[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// TestKubernetesManifest checks the Indexed Job's structure (Indexed completions, parallelism,
// SIMRUN_SHARD_TOTAL equal to the completions, a shared results volume, the failure policy, an
// image built by deploy/Dockerfile with simrun as its entry point), then runs every index's
// command line as the Job would (JOB_COMPLETION_INDEX set, $(VAR) expanded, a small seed range,
// the volume a local directory) and the merge Job's script, and checks that the merged report is
// the unsharded sweep's.
func TestKubernetesManifest(t *testing.T) {
	objects := readManifest(t, "kubernetes/simrun-sweep.yaml")
	pvc, sweep, merge := objects["PersistentVolumeClaim/simrun-results"], objects["Job/simrun-sweep"], objects["Job/simrun-merge"]
	if pvc.Kind == "" || sweep.Kind == "" || merge.Kind == "" {
		t.Fatalf("the manifest lacks the claim, the sweep Job or the merge Job: %v", slices.Collect(maps.Keys(objects)))
	}
	if !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("the results claim is not ReadWriteMany: %v", pvc.Spec.AccessModes)
	}
	s := sweep.Spec
	if sweep.APIVersion != "batch/v1" || s.CompletionMode != "Indexed" || s.Completions < 2 || s.Parallelism < 1 || s.BackoffLimitPerIndex == nil {
		t.Fatalf("the sweep Job is not an Indexed Job with completions, parallelism and a per-index backoff: %+v", s)
	}
	if len(s.Template.Spec.Containers) != 1 || s.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("the sweep Job's pod: want one container and restartPolicy Never")
	}
	c := s.Template.Spec.Containers[0]
	if total := c.env("SIMRUN_SHARD_TOTAL"); total != fmt.Sprint(s.Completions) {
		t.Fatalf("SIMRUN_SHARD_TOTAL %q differs from completions %d", total, s.Completions)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 1 || rules[0].Action != "FailIndex" || rules[0].OnExitCodes.ContainerName != c.Name || !slices.Equal(rules[0].OnExitCodes.Values, []int{1, 2}) {
		t.Fatalf("the pod failure policy must fail an index on exit 1 and 2 without retrying it: %+v", rules)
	}
	mc := merge.Spec.Template.Spec.Containers
	if len(mc) != 1 || mc[0].Image != c.Image || mc[0].env("SIMRUN_SHARD_TOTAL") != fmt.Sprint(s.Completions) {
		t.Fatalf("the merge Job must run the sweep's image with the same SIMRUN_SHARD_TOTAL: %+v", mc)
	}
	mount := checkVolume(t, c, sweep)
	if checkVolume(t, mc[0], merge) != mount {
		t.Fatal("the merge Job mounts the results elsewhere")
	}
	dockerfile, _ := os.ReadFile("Dockerfile")
	if !strings.Contains(string(dockerfile), `ENTRYPOINT ["simrun"]`) {
		t.Fatal(`deploy/Dockerfile's image must have ENTRYPOINT ["simrun"]: the sweep's args are simrun's`)
	}

	results := t.TempDir()
	args := smallRange(t, c.Args)
	wantCode, want := unsharded(t, withoutOutputs(args)...)
	for i := range s.Completions {
		env := map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i), "SIMRUN_SHARD_TOTAL": c.env("SIMRUN_SHARD_TOTAL")}
		var argv []string
		for _, a := range args {
			argv = append(argv, strings.ReplaceAll(k8sExpand(a, env), mount, results))
		}
		code, _, errs := run(t, results, []string{"JOB_COMPLETION_INDEX=" + env["JOB_COMPLETION_INDEX"], "SIMRUN_SHARD_TOTAL=" + env["SIMRUN_SHARD_TOTAL"]}, simrun, argv...)
		if code != 0 && code != 1 || !strings.Contains(errs, fmt.Sprintf("shard %d/%d (from JOB_COMPLETION_INDEX", i+1, s.Completions)) {
			t.Fatalf("index %d: %v: exit %d: %s", i, argv, code, errs)
		}
	}
	if len(mc[0].Command) != 2 || mc[0].Command[0] != "sh" || len(mc[0].Args) != 1 {
		t.Fatalf("the merge Job runs one sh -c script: %v %v", mc[0].Command, mc[0].Args)
	}
	script := strings.ReplaceAll(mc[0].Args[0], mount, results)
	code, _, errs := run(t, results, []string{"PATH=" + filepath.Dir(simrun) + ":" + os.Getenv("PATH"), "SIMRUN_SHARD_TOTAL=" + c.env("SIMRUN_SHARD_TOTAL")}, "sh", "-c", script)
	if code != wantCode {
		t.Fatalf("the merge script exited %d, the unsharded sweep %d: %s", code, wantCode, errs)
	}
	if code, got := mergedJSON(t, filepath.Join(results, "merged.json")); got != want || code != wantCode {
		t.Fatalf("merged (exit %d):\n%s\nunsharded (exit %d):\n%s", code, got, wantCode, want)
	}
}

// checkVolume checks that container c mounts the results claim and returns the mount path.
func checkVolume(t *testing.T, c k8sContainer, job k8sObject) string {
	t.Helper()
	vols := job.Spec.Template.Spec.Volumes
	if len(c.VolumeMounts) != 1 || len(vols) != 1 || vols[0].Name != c.VolumeMounts[0].Name || vols[0].PVC.ClaimName != "simrun-results" {
		t.Fatalf("%s: the container must mount the simrun-results claim: %+v %+v", job.Metadata.Name, c.VolumeMounts, vols)
	}
	return c.VolumeMounts[0].MountPath
}

// smallRange returns a command line with its --seeds value replaced by a small range.
func smallRange(t *testing.T, args []string) []string {
	t.Helper()
	out := slices.Clone(args)
	i := slices.Index(out, "--seeds")
	if i < 0 || i+1 == len(out) {
		t.Fatalf("no --seeds in %v", args)
	}
	out[i+1] = "1-20"
	return out
}

// withoutOutputs returns a command line without its --result and --save-failures flags: the
// same run, writing nothing.
func withoutOutputs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--result" || args[i] == "--save-failures" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	On   map[string]any    `yaml:"on"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		If       string
		Strategy struct {
			FailFast *bool `yaml:"fail-fast"`
			Matrix   struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// TestGitHubWorkflow checks the workflow's structure (a schedule and a manual dispatch, no push
// trigger; a shard matrix of SHARDS jobs, each uploading an artifact named after its shard; a
// merge job after them all that downloads every shard's artifact into one directory, merges and
// uploads the replay files), then runs its jobs' shell steps as the runner would, the shards in
// their own directories and the merge job on their artifacts, with a small seed range given as
// the manual dispatch's input, and checks that the merged report is the unsharded sweep's.
func TestGitHubWorkflow(t *testing.T) {
	data, err := os.ReadFile("github-actions/simrun-sweep.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	_, schedule := wf.On["schedule"]
	_, dispatch := wf.On["workflow_dispatch"]
	_, push := wf.On["push"]
	_, pr := wf.On["pull_request"]
	if !schedule || !dispatch || push || pr {
		t.Fatalf("the workflow must run on a schedule and by dispatch only: %v", wf.On)
	}
	sweep, merge := wf.Jobs["sweep"], wf.Jobs["merge"]
	shards := sweep.Strategy.Matrix.Shard
	if fmt.Sprint(len(shards)) != wf.Env["SHARDS"] || sweep.Strategy.FailFast == nil || *sweep.Strategy.FailFast {
		t.Fatalf("the matrix must list shards 1..SHARDS (%s) without fail-fast: %v", wf.Env["SHARDS"], shards)
	}
	for i, s := range shards {
		if s != i+1 {
			t.Fatalf("matrix shards %v: want 1..%d", shards, len(shards))
		}
	}
	upload := findStep(t, sweep.Steps, "actions/upload-artifact")
	if upload.With["name"] != "simrun-shard-${{ matrix.shard }}" || upload.If != "always()" {
		t.Fatalf("each shard must upload an artifact of its own name, whatever its exit: %+v", upload)
	}
	download := findStep(t, merge.Steps, "actions/download-artifact")
	if fmt.Sprint(merge.Needs) != "sweep" || merge.If != "always()" || download.With["merge-multiple"] != "true" ||
		download.With["pattern"] != "simrun-shard-*" {
		t.Fatalf("the merge job must follow every shard and download all their artifacts into one directory: needs %v, if %q, %+v",
			merge.Needs, merge.If, download)
	}
	if report := findStep(t, merge.Steps, "actions/upload-artifact"); !strings.Contains(report.With["path"], download.With["path"]+"/failures/") {
		t.Fatalf("the merge job must attach the replay files: %+v", report)
	}

	const seeds = "1-20"
	wantCode, want := unsharded(t, "sweep", "--seeds", seeds)
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	for _, shard := range shards {
		dir := t.TempDir()
		exprs := map[string]string{"matrix.shard": fmt.Sprint(shard), "inputs.seeds": seeds}
		runSteps(t, dir, wf.Env, exprs, sweep.Steps)
		copyArtifact(t, dir, strings.Fields(expand(upload.With["path"], exprs)), filepath.Join(artifacts, fmt.Sprint(shard)))
	}
	dir := t.TempDir()
	for _, shard := range shards { // download-artifact with merge-multiple: every artifact into one directory
		copyArtifact(t, filepath.Join(artifacts, fmt.Sprint(shard)), []string{"."}, filepath.Join(dir, download.With["path"]))
	}
	if code := runSteps(t, dir, wf.Env, map[string]string{}, merge.Steps); code != wantCode {
		t.Fatalf("the merge job's status %d, the unsharded sweep's %d", code, wantCode)
	}
	if code, got := mergedJSON(t, filepath.Join(dir, "merged.json")); got != want || code != wantCode {
		t.Fatalf("merged (exit %d):\n%s\nunsharded (exit %d):\n%s", code, got, wantCode, want)
	}
}

// findStep returns the step that uses an action.
func findStep(t *testing.T, steps []workflowStep, action string) workflowStep {
	t.Helper()
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, action+"@") {
			return s
		}
	}
	t.Fatalf("no step uses %s", action)
	return workflowStep{}
}

// expand replaces ${{ EXPR }} by its value.
func expand(s string, exprs map[string]string) string {
	return regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`).ReplaceAllStringFunc(s, func(ref string) string {
		m := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`).FindStringSubmatch(ref)
		return exprs[m[1]]
	})
}

// runSteps runs a job's run steps in dir as the runner does (bash -eo pipefail, the workflow's
// env, GITHUB_ENV carried from step to step, GITHUB_RUN_NUMBER 1), with simrun in place of the
// step that builds it, and returns the last step's status; a step failing before it fails the test.
func runSteps(t *testing.T, dir string, env map[string]string, exprs map[string]string, steps []workflowStep) int {
	t.Helper()
	if err := os.Symlink(simrun, filepath.Join(dir, "simrun")); err != nil {
		t.Fatal(err)
	}
	githubEnv := filepath.Join(dir, ".github_env")
	os.WriteFile(githubEnv, nil, 0o644)
	var last int
	for i, s := range steps {
		if s.Run == "" || strings.HasPrefix(strings.TrimSpace(s.Run), "go build") {
			continue
		}
		vars := []string{"GITHUB_ENV=" + githubEnv, "GITHUB_RUN_NUMBER=1"}
		for k, v := range env {
			vars = append(vars, k+"="+v)
		}
		carried, _ := os.ReadFile(githubEnv)
		vars = append(vars, strings.Fields(string(carried))...)
		code, _, errs := run(t, dir, vars, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(s.Run, exprs))
		if code != 0 && !isLastRun(steps, i) {
			t.Fatalf("step %q exited %d: %s", s.Name, code, errs)
		}
		last = code
	}
	return last
}

// isLastRun reports whether step i is the last run step of steps.
func isLastRun(steps []workflowStep, i int) bool {
	for _, s := range steps[i+1:] {
		if s.Run != "" {
			return false
		}
	}
	return true
}

// copyArtifact copies paths (files or directories, relative to from) into to, as an artifact's
// upload and download do.
func copyArtifact(t *testing.T, from string, paths []string, to string) {
	t.Helper()
	for _, p := range paths {
		src := filepath.Join(from, p)
		err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return nil // if-no-files-found: ignore
				}
				return err
			}
			rel, _ := filepath.Rel(from, path)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(to, rel), 0o755)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(to, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

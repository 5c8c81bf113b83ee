package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/parsleysim/parsleysim/scenarios"
)

// Which shard a sweep or an exploration runs: --shard i/n, or else the variables the common
// batch runners set for a parallel job, so one command line serves every shard of a Kubernetes
// Indexed Job, a GitLab or Buildkite parallel job, a CircleCI parallel step and a Bazel sharded
// test. The flag wins over the environment; the resolved shard is printed on stderr.

// shardEnv is one runner's pair of variables: the shard index (0- or 1-based) and the count.
type shardEnv struct {
	runner, index, total string
	oneBased             bool
}

// shardEnvs are the runners' variables, in the order they are tried. A Kubernetes Indexed Job
// gives only the index; its manifest sets SIMRUN_SHARD_TOTAL to the completion count.
var shardEnvs = []shardEnv{
	{"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", "SIMRUN_SHARD_TOTAL", false},
	{"GitLab CI", "CI_NODE_INDEX", "CI_NODE_TOTAL", true},
	{"Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", false},
	{"CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", false},
	{"Bazel", "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", false},
}

// bazelShardStatusFile is the file a Bazel test touches to say it shards.
const bazelShardStatusFile = "TEST_SHARD_STATUS_FILE"

// shardFlag is the value of --shard: "i/n" counting from 1.
type shardFlag struct {
	shard scenarios.Shard
	set   bool
}

func (f *shardFlag) String() string { return f.shard.String() }

func (f *shardFlag) Set(v string) error {
	s, err := parseShard(v)
	if err != nil {
		return err
	}
	f.shard, f.set = s, true
	return nil
}

// parseShard parses "i/n" with 1 <= i <= n <= scenarios.MaxShards.
func parseShard(v string) (scenarios.Shard, error) {
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return scenarios.Shard{}, fmt.Errorf("want i/n (shard i of n, counting from 1), got %q", v)
	}
	s := scenarios.Shard{Index: i, Total: n}
	if err := s.Check(); err != nil || s == (scenarios.Shard{}) {
		return scenarios.Shard{}, fmt.Errorf("shard %d/%d: want i/n with 1 <= i <= n <= %d", i, n, scenarios.MaxShards)
	}
	return s, nil
}

// resolveShard returns the shard a command runs: the flag's when given, else the first runner's
// whose index variable is set, else none. getenv reads the environment. from says where the
// shard came from ("--shard", "CI_NODE_INDEX=1, CI_NODE_TOTAL=4 (GitLab CI)"). A variable that
// is set but is not a shard is an error naming it.
func resolveShard(flag shardFlag, getenv func(string) string) (s scenarios.Shard, from string, err error) {
	if flag.set {
		return flag.shard, "--shard", nil
	}
	for _, e := range shardEnvs {
		index := getenv(e.index)
		if index == "" {
			continue
		}
		total := getenv(e.total)
		if total == "" {
			return s, "", fmt.Errorf("%s=%s is set but %s is not: the shard count is unknown (%s)", e.index, index, e.total, e.runner)
		}
		i, err1 := strconv.Atoi(index)
		n, err2 := strconv.Atoi(total)
		if err1 != nil || err2 != nil {
			return s, "", fmt.Errorf("%s=%q, %s=%q: want integers (%s)", e.index, index, e.total, total, e.runner)
		}
		if !e.oneBased {
			i++
		}
		s = scenarios.Shard{Index: i, Total: n}
		if err := s.Check(); err != nil || n < 1 {
			err = fmt.Errorf("shard %d/%d: want 1 <= i <= n <= %d", i, n, scenarios.MaxShards)
			return scenarios.Shard{}, "", fmt.Errorf("%s=%s, %s=%s (%s): %v", e.index, index, e.total, total, e.runner, err)
		}
		return s, fmt.Sprintf("%s=%s, %s=%s (%s)", e.index, index, e.total, total, e.runner), nil
	}
	return s, "", nil
}

// shardFromEnvironment resolves the shard for a command (see resolveShard), prints it on stderr
// and, under Bazel, touches the shard status file. name is the command's name for messages.
func shardFromEnvironment(flag shardFlag, name string, stderr io.Writer) (scenarios.Shard, error) {
	s, from, err := resolveShard(flag, os.Getenv)
	if err != nil || !s.Sharded() {
		return s, err
	}
	fmt.Fprintf(stderr, "%s: shard %s (from %s)\n", name, s, from)
	if path := os.Getenv(bazelShardStatusFile); path != "" && strings.HasPrefix(from, "TEST_SHARD_INDEX=") {
		if err := touch(path); err != nil {
			return s, fmt.Errorf("%s %s: %v", bazelShardStatusFile, path, err)
		}
	}
	return s, nil
}

// touch creates path if it does not exist and sets its modification time to now.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	now := time.Now()
	return os.Chtimes(path, now, now)
}

// shardEnvSet returns the first runner variable that is set, for a command that cannot shard and
// says it ignores it ("" when none is).
func shardEnvSet(getenv func(string) string) string {
	for _, e := range shardEnvs {
		if v := getenv(e.index); v != "" {
			return e.index + "=" + v
		}
	}
	return ""
}

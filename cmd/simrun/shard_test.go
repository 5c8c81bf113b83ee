package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
)

// TestResolveShard: every runner's variables resolve to the shard they mean (0- or 1-based), the
// flag wins over them, and a variable that is not a shard is an error naming it.
func TestResolveShard(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		flag string
		want scenarios.Shard
		from string
		err  string
	}{
		{env: nil, want: scenarios.Shard{}},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "0", "SIMRUN_SHARD_TOTAL": "4"}, want: scenarios.Shard{Index: 1, Total: 4}, from: "Kubernetes"},
		{env: map[string]string{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"}, want: scenarios.Shard{Index: 1, Total: 4}, from: "GitLab"},
		{env: map[string]string{"BUILDKITE_PARALLEL_JOB": "3", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, want: scenarios.Shard{Index: 4, Total: 4}, from: "Buildkite"},
		{env: map[string]string{"CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"}, want: scenarios.Shard{Index: 3, Total: 3}, from: "CircleCI"},
		{env: map[string]string{"TEST_SHARD_INDEX": "0", "TEST_TOTAL_SHARDS": "2"}, want: scenarios.Shard{Index: 1, Total: 2}, from: "Bazel"},
		{env: map[string]string{"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"}, flag: "3/5", want: scenarios.Shard{Index: 3, Total: 5}, from: "--shard"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, err: "SIMRUN_SHARD_TOTAL is not"},
		{env: map[string]string{"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "4"}, err: "CI_NODE_INDEX=0, CI_NODE_TOTAL=4 (GitLab CI): shard 0/4"},
		{env: map[string]string{"CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "3"}, err: "shard 4/3"},
		{env: map[string]string{"BUILDKITE_PARALLEL_JOB": "x", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, err: `BUILDKITE_PARALLEL_JOB="x"`},
	} {
		var f shardFlag
		if tc.flag != "" {
			if err := f.Set(tc.flag); err != nil {
				t.Fatal(err)
			}
		}
		got, from, err := resolveShard(f, func(k string) string { return tc.env[k] })
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want one naming %q", tc.env, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want || !strings.Contains(from, tc.from)):
			t.Errorf("%v %q: shard %v from %q (%v), want %v from %s", tc.env, tc.flag, got, from, err, tc.want, tc.from)
		}
	}
	for _, bad := range []string{"0/4", "5/4", "1/0", "1/65537", "x/4", "1/", "1"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("--shard %s accepted", bad)
		}
	}
}

// TestSweepShardFromEnvironment: a sweep run with a runner's variables runs that shard, says so
// on stderr, and under Bazel touches the shard status file; --shard wins over the variables.
func TestSweepShardFromEnvironment(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	t.Setenv("TEST_SHARD_INDEX", "1")
	t.Setenv("TEST_TOTAL_SHARDS", "3")
	t.Setenv(bazelShardStatusFile, status)
	code, stdout, stderr := runSweep(context.Background(), "--seeds", "1-6", "--json")
	if got := decodeSweep(t, stdout); code != exitPass || got.Runs != 2 || !strings.Contains(stderr, "shard 2/3 (from TEST_SHARD_INDEX=1, TEST_TOTAL_SHARDS=3 (Bazel))") {
		t.Fatalf("exit %d, %d runs, stderr %q; want shard 2/3 of 1-6: 2 runs", code, got.Runs, stderr)
	}
	if _, err := os.Stat(status); err != nil {
		t.Fatalf("the Bazel shard status file was not touched: %v", err)
	}
	code, stdout, stderr = runSweep(context.Background(), "--seeds", "1-6", "--json", "--shard", "1/1")
	if got := decodeSweep(t, stdout); code != exitPass || got.Runs != 6 || !strings.Contains(stderr, "shard 1/1 (from --shard)") {
		t.Fatalf("--shard 1/1 over the variables: exit %d, %d runs, stderr %q", code, got.Runs, stderr)
	}
	t.Setenv("TEST_SHARD_INDEX", "3")
	if code, _, stderr := runSweep(context.Background(), "--seeds", "1-6"); code != exitUsage || !strings.Contains(stderr, "TEST_SHARD_INDEX=3") {
		t.Fatalf("an out-of-range shard variable: exit %d, stderr %q; want 2 naming it", code, stderr)
	}
}

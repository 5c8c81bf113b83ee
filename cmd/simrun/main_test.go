package main

import (
	"os"
	"testing"
)

// TestMain clears the batch runners' shard variables, so a test run inside a parallel CI job
// (GitLab's CI_NODE_INDEX, CircleCI's CIRCLE_NODE_INDEX, ...) sweeps and explores what the tests
// ask for, not one shard of it. Tests of the variables set them with t.Setenv.
func TestMain(m *testing.M) {
	for _, e := range shardEnvs {
		os.Unsetenv(e.index)
		os.Unsetenv(e.total)
	}
	os.Unsetenv(bazelShardStatusFile)
	os.Exit(m.Run())
}

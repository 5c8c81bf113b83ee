package main

import (
	"bytes"
	"strings"
	"testing"
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

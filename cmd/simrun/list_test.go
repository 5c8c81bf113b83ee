package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios"
)

func TestList(t *testing.T) {
	var out, errs bytes.Buffer
	if code := listMain(nil, &out, &errs); code != exitPass {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := append(scenarios.Names(), scenarios.CatchRateModes()...)
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want one per scenario and mode (%d):\n%s", len(lines), len(want), out.String())
	}
	for i, name := range want {
		if f := strings.Fields(lines[i]); len(f) < 3 || f[1] != name {
			t.Errorf("line %d %q, want %s with a summary", i+1, lines[i], name)
		}
	}
	out.Reset()
	if code := listMain([]string{"--json"}, &out, &errs); code != exitPass {
		t.Fatalf("--json exit %d", code)
	}
	var entries []listEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil || len(entries) != len(want) {
		t.Fatalf("--json: %v, %d entries", err, len(entries))
	}
	if code := listMain([]string{"extra"}, &out, &errs); code != exitUsage {
		t.Fatalf("stray argument: exit %d", code)
	}
}

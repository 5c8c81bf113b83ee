package world

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestStateHashSameInEveryProcess checks that a state's hash depends on the state alone, not on
// the process computing it, so that an exploration deduplicates alike in every run: a child
// process (this test binary again) hashes the terminal states of a small exploration, and its
// hashes must be this process's.
func TestStateHashSameInEveryProcess(t *testing.T) {
	const child = "SIM_STATE_HASH_CHILD"
	_, states := exploreRecorded(chainScope(), exploreOptions{Budget: mustBudget(t, "msgs=2,crash=1"), Reduce: true}, nil)
	keys := make([]string, 0, len(states.terminals))
	for k := range states.terminals {
		keys = append(keys, fmt.Sprintf("%016x%016x", k[0], k[1]))
	}
	slices.Sort(keys)
	mine := strings.Join(keys, " ")
	if os.Getenv(child) == "1" {
		fmt.Printf("terminals[%s]\n", mine)
		return
	}
	if len(keys) < 2 {
		t.Fatalf("the exploration reached %d terminal states: too few to compare", len(keys))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStateHashSameInEveryProcess$")
	cmd.Env = append(os.Environ(), child+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	_, rest, _ := strings.Cut(string(out), "terminals[")
	theirs, _, ok := strings.Cut(rest, "]")
	if !ok {
		t.Fatalf("child process printed no terminal hashes:\n%s", out)
	}
	if theirs != mine {
		t.Fatalf("the same exploration hashes its terminal states differently in another process:\n here  %.80s...\n there %.80s...", mine, theirs)
	}
}

package scenarios

import (
	"encoding/json"
	"os"
	"testing"
)

// TestLiveReportCurrent: results/live.md is what results/live.json renders, so the report cannot
// be edited by hand or left behind its data (regenerate both with the command they name).
func TestLiveReportCurrent(t *testing.T) {
	data, err := os.ReadFile("../results/live.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep LiveReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("results/live.json: %v", err)
	}
	md, err := os.ReadFile("../results/live.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != string(rep.Markdown()) {
		t.Errorf("results/live.md is not what results/live.json renders: regenerate both with %s", rep.Command)
	}
	if len(rep.Files) == 0 || len(rep.Sweeps) != 2 {
		t.Errorf("results/live.json has %d files and %d sweeps: want every targeted file, random and session", len(rep.Files), len(rep.Sweeps))
	}
}

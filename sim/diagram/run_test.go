package diagram

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// diagramDiamond is ext → relay → mid; sink receives ext and mid, so a relayed record can reach
// sink before the external record that caused it (the diamond hold).
func diagramDiamond() *spec.Scenario {
	return &spec.Scenario{
		Name: "diagram-diamond",
		Topics: []spec.TopicSpec{
			{Name: "ext", Partitions: 1, External: true},
			{Name: "mid", Partitions: 1},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "relay", Receives: []string{"ext"}, Sends: []string{"mid"}},
			{Name: "sink", Receives: []string{"ext", "mid"}, Sends: []string{"out"}},
		},
	}
}

// renderRun runs scn under seed and sabotage with a Sink and returns the result and SVG.
// With SIM_DIAGRAM_DIR set it also writes name.svg and name.html there, to look at.
func renderRun(t *testing.T, scn *spec.Scenario, seed uint64, sab node.Sabotage, name string) (*spec.Result, []byte) {
	t.Helper()
	sink := NewSink(scn)
	// The reference node is off: it would report IGNORE_CAUSES's first wrong delivery at once,
	// before the S1 violation whose causal chain these pictures draw.
	res := sim.Run(scn, swarm.ExpandSettings(seed), choose.NewRandom(seed), sim.RunOptions{Sabotage: sab,
		Sinks: []trace.Sink{sink}, Disabled: []spec.Criterion{spec.CritReference}})
	var svg bytes.Buffer
	if err := sink.WriteSVG(&svg, res.Violations); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("SIM_DIAGRAM_DIR"); dir != "" {
		var page bytes.Buffer
		if err := sink.WriteHTML(&page, res.Violations); err != nil {
			t.Fatal(err)
		}
		for ext, b := range map[string][]byte{".svg": svg.Bytes(), ".html": page.Bytes()} {
			if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return res, svg.Bytes()
}

// checkWellFormed parses b as XML to the end and fails on the first error.
func checkWellFormed(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("diagram is not well-formed XML: %v", err)
		}
	}
}

// committedDeliveries reads back, per lane, the uids of the deliveries the diagram draws as
// having happened (not rolled back), in drawing order.
func committedDeliveries(svg string, names []string) [][]uint64 {
	re := regexp.MustCompile(`<title>m(\d+) \S+ delivered by (\S+) at step \d+ \(t=\d+us\)</title>`)
	out := make([][]uint64, len(names))
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		uid, _ := strconv.ParseUint(m[1], 10, 64)
		i := slices.Index(names, m[2])
		out[i] = append(out[i], uid)
	}
	return out
}

// TestDiagramAgreesWithTheOracle renders honest runs and checks that the deliveries the picture
// shows as having happened are exactly the oracle's committed deliveries, in order: the
// diagram's rollback bookkeeping matches the host's.
func TestDiagramAgreesWithTheOracle(t *testing.T) {
	names := []string{"relay", "sink"}
	checked := 0
	for seed := uint64(1); seed <= 12; seed++ {
		res, svg := renderRun(t, diagramDiamond(), seed, node.SabotageNone, fmt.Sprintf("honest-%d", seed))
		checkWellFormed(t, svg)
		got := committedDeliveries(string(svg), names)
		for i := range names {
			if !slices.Equal(got[i], res.Deliveries[i]) {
				t.Errorf("seed %d, %s: diagram shows deliveries %v, oracle committed %v", seed, names[i], got[i], res.Deliveries[i])
			}
			checked += len(got[i])
		}
	}
	if checked == 0 {
		t.Fatal("no run delivered anything: the comparison is vacuous")
	}
}

// TestDiagramRealViolation renders the first IGNORE_CAUSES run of the diamond that breaks S1
// and checks the picture marks it and highlights what it names, byte-identically on a rerun.
func TestDiagramRealViolation(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		res, svg := renderRun(t, diagramDiamond(), seed, node.SabotageIgnoreCauses, "real-violation")
		if len(res.Violations) == 0 || res.Violations[0].Criterion != spec.CritS1 {
			continue
		}
		checkWellFormed(t, svg)
		text := string(svg)
		if !strings.Contains(text, ">V1 S1</text>") && !strings.Contains(text, ">V1-V") {
			t.Errorf("seed %d: the first violation is not marked on the lanes", seed)
		}
		if !strings.Contains(text, `stroke="`+colViolation+`" stroke-width="2.4"`) {
			t.Errorf("seed %d: no arrow is highlighted", seed)
		}
		for _, uid := range violationMsgs(res.Violations[0]) {
			if !strings.Contains(text, fmt.Sprintf(">m%d</text>", uid)) {
				t.Errorf("seed %d: message m%d named by %v is not labelled", seed, uid, res.Violations[0])
			}
		}
		if _, again := renderRun(t, diagramDiamond(), seed, node.SabotageIgnoreCauses, "real-violation"); !bytes.Equal(svg, again) {
			t.Errorf("seed %d: two renderings of the same run differ", seed)
		}
		return
	}
	t.Fatal("no seed in 1..40 broke S1 under IGNORE_CAUSES: nothing to draw")
}

// TestDiagramScratch renders a few real runs to SIM_DIAGRAM_DIR (skipped without it).
func TestDiagramScratch(t *testing.T) {
	if os.Getenv("SIM_DIAGRAM_DIR") == "" {
		t.Skip("set SIM_DIAGRAM_DIR to render pictures")
	}
	for seed := uint64(1); seed <= 40; seed++ {
		res, svg := renderRun(t, diagramDiamond(), seed, node.SabotageIgnoreCauses, fmt.Sprintf("ignore-causes-%d", seed))
		checkWellFormed(t, svg)
		var crits []string
		for _, v := range res.Violations {
			crits = append(crits, string(v.Criterion))
		}
		t.Logf("seed %d: steps %d verdict %s %s (%d bytes)", seed, res.Steps, res.Verdict, strings.Join(crits, ","), len(svg))
	}
}

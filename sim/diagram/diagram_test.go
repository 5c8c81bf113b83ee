package diagram

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// evs builds a trace by hand: each call appends one event.
type evs struct{ list []trace.Event }

func (e *evs) add(step int, kind string, proc int, topic string, pos int64, msg uint64, detail string) *evs {
	e.list = append(e.list, trace.Event{Step: step, TimeMicros: int64(step) * 100, Kind: kind, Process: proc,
		Topic: topic, Position: pos, Msg: msg, Detail: detail})
	return e
}

// sink feeds the events to a fresh Sink of scn.
func (e *evs) sink(scn *spec.Scenario) *Sink {
	d := NewSink(scn)
	for i := range e.list {
		d.Record(&e.list[i])
	}
	return d
}

// svgOf renders d with vios and checks the result is well-formed XML.
func svgOf(t *testing.T, d *Sink, vios []spec.Violation) string {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteSVG(&b, vios); err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, b.Bytes())
	return b.String()
}

// diamondTrace is a hand-made diamond: e1 goes to relay and sink; relay delivers it and sends
// m2 to sink; sink receives e1 (held), then m2, and under IGNORE_CAUSES delivers m2 first. The
// sink later refuses.
func diamondTrace() *evs {
	e := &evs{}
	e.add(1, "started", 0, "", 0, 0, "execution 1 receives [ext#0/0@0]").
		add(2, "started", 1, "", 0, 0, "execution 1 receives [ext#0/0@0 mid#0/0@0]").
		add(3, "produced", -1, "ext", 0, 1, "plain").
		add(4, "held", 0, "ext", 0, 1, "").
		add(5, "delivered", 0, "ext", 0, 1, "").
		add(5, "sent", 0, "mid", 0, 2, "").
		add(6, "committed", 0, "", 0, 0, "").
		add(7, "held", 1, "ext", 0, 1, "").
		add(8, "held", 1, "mid", 0, 2, "").
		add(9, "delivered", 1, "mid", 0, 2, "").
		add(9, "delivered", 1, "ext", 0, 1, "").
		add(10, "committed", 1, "", 0, 0, "").
		add(11, "produced", -1, "ext", 1, 3, "corrupt").
		add(12, "refused", 1, "", 0, 0, `UNDECODABLE_METADATA on <ext>/0@1: "bad" & worse`)
	return e
}

var diamondViolation = spec.Violation{Criterion: spec.CritS1, Step: 9, Process: 1,
	Detail: "delivered m2(mid#0/0:0) while still holding its true cause m1(ext#0/0:0)"}

func TestDiagramConstructed(t *testing.T) {
	svg := svgOf(t, diamondTrace().sink(diagramDiamond()), []spec.Violation{diamondViolation})
	for _, want := range []string{
		">external / world</text>", ">relay</text>", ">sink</text>", // the lanes
		"m1 ext#0/0:0 (plain), produced at step 3 (t=300us) -&gt; fed to relay at step 4", // arrows
		"m1 ext#0/0:0 (plain), produced at step 3 (t=300us) -&gt; fed to sink at step 7",
		"m2 mid#0/0:0 (emission), sent by relay at step 5 (t=500us) -&gt; fed to sink at step 8",
		"m1 ext#0/0:0 held by sink: received at step 7 (t=700us), delivered at step 9", // hold bar
		"REFUSED (failed closed, stays down): UNDECODABLE_METADATA",                    // refusal
		">UNDECODABLE_METADATA</text>",
		"V1 S1 at step 9, sink",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	if n := strings.Count(svg, "-&gt; fed to"); n != 3 {
		t.Errorf("%d receipt arrows, want 3", n)
	}
	if n := strings.Count(svg, " delivered by "); n != 3 {
		t.Errorf("%d delivery dots, want 3", n)
	}
	if !strings.Contains(svg, "&lt;ext&gt;/0@1: &#34;bad&#34; &amp; worse") {
		t.Error("refusal detail not escaped as expected")
	}
}

// redElement reports whether the element whose title starts with title is drawn in the
// violation colour.
func redElement(svg, title string) bool {
	re := regexp.MustCompile(`<(line|path|rect)[^>]*stroke="` + colViolation + `"[^>]*><title>` + regexp.QuoteMeta(title))
	return re.MatchString(svg)
}

func TestDiagramHighlightsTheCausalChain(t *testing.T) {
	d := diamondTrace().sink(diagramDiamond())
	svg := svgOf(t, d, []spec.Violation{diamondViolation})
	for _, title := range []string{
		"m1 ext#0/0:0 (plain), produced at step 3 (t=300us) -&gt; fed to relay", // the chain: e1 reached relay
		"m2 mid#0/0:0 (emission), sent by relay",                                // relay's send reached sink
		"m1 ext#0/0:0 (plain), produced at step 3 (t=300us) -&gt; fed to sink",  // the held cause
		"m1 ext#0/0:0 held by sink",
	} {
		if !redElement(svg, title) {
			t.Errorf("%q is not highlighted", title)
		}
	}
	plain := svgOf(t, diamondTrace().sink(diagramDiamond()), nil)
	if redElement(plain, "m1 ext#0/0:0 (plain), produced at step 3 (t=300us) -&gt; fed to relay") || strings.Contains(plain, ">V1") {
		t.Error("a run without violations has highlights")
	}
}

func TestDiagramDeterministic(t *testing.T) {
	a := svgOf(t, diamondTrace().sink(diagramDiamond()), []spec.Violation{diamondViolation})
	d := diamondTrace().sink(diagramDiamond())
	b := svgOf(t, d, []spec.Violation{diamondViolation})
	c := svgOf(t, d, []spec.Violation{diamondViolation}) // rendering twice changes nothing
	if a != b || b != c {
		t.Fatal("the same events gave different bytes")
	}
}

func TestDiagramRollback(t *testing.T) {
	e := &evs{}
	e.add(1, "started", 0, "", 0, 0, "").
		add(2, "produced", -1, "ext", 0, 1, "plain").
		add(3, "held", 0, "ext", 0, 1, "").
		add(4, "committed", 0, "", 0, 0, "").
		add(5, "delivered", 0, "ext", 0, 1, "").
		add(5, "sent", 0, "mid", 0, 2, "").
		add(6, "crashed", 0, "", 0, 0, "").
		add(7, "started", 0, "", 0, 0, "").
		add(8, "delivered", 0, "ext", 0, 1, "").
		add(9, "committed", 0, "", 0, 0, "")
	svg := svgOf(t, e.sink(nil), nil)
	for _, want := range []string{
		"m1 ext#0/0:0 delivered by p0 at step 5 (t=500us) (rolled back: this delivery did not happen)",
		"m1 ext#0/0:0 held by p0: received at step 3 (t=300us), delivered at step 5", // ended by the rolled-back delivery
		"m1 ext#0/0:0 held by p0: held again (its delivery rolled back) at step 6 (t=600us), delivered at step 8",
		"m2 mid#0/0:0 (emission) sent by p0 at step 5 (t=500us) (aborted: the sending step was rolled back)",
		"crashed: the uncommitted step is rolled back",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
	if strings.Contains(svg, "delivered at step 8 (t=800us) (rolled back") {
		t.Error("the committed delivery is drawn as rolled back")
	}
}

func TestDiagramOpenHoldAndRefeed(t *testing.T) {
	e := &evs{}
	e.add(1, "started", 0, "", 0, 0, "").
		add(2, "txn-opened", -1, "ext", 4, 0, "2 records").
		add(3, "held", 0, "ext", 5, 7, ""). // inside the transaction: placed at it
		add(4, "crashed", 0, "", 0, 0, "").
		add(5, "started", 0, "", 0, 0, "").
		add(6, "held", 0, "ext", 5, 7, "") // fed again, never delivered
	svg := svgOf(t, e.sink(nil), nil)
	for _, want := range []string{
		"m7 ext#0/0:5 (transactional), produced at step 2",
		"the receipt was rolled back at step 4",
		"(fed again: it was fed here before)",
		"m7 ext#0/0:5 held by p0: received at step 6 (t=600us), never delivered by the end of the run",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("diagram lacks %q", want)
		}
	}
}

func TestDiagramCapsLongRuns(t *testing.T) {
	e := &evs{}
	e.add(1, "started", 0, "", 0, 0, "")
	for i := 1; i <= 300; i++ {
		e.add(2*i, "produced", -1, "ext", int64(i), uint64(i), "plain").
			add(2*i+1, "held", 0, "ext", int64(i), uint64(i), "").
			add(2*i+1, "delivered", 0, "ext", int64(i), uint64(i), "")
	}
	d := e.sink(nil)
	d.MaxColumns = 100
	v := spec.Violation{Criterion: spec.CritS3, Step: 401, Process: 0, Detail: "delivered m200(ext#0/0:200) past the earlier undelivered m199(ext#0/0:199)"}
	svg := svgOf(t, d, []spec.Violation{v})
	m := regexp.MustCompile(`showing steps (\d+)-(\d+) of 601 \(capped at 100 columns`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatal("a capped diagram does not say so")
	}
	var from, to int
	fmt.Sscan(m[1], &from)
	fmt.Sscan(m[2], &to)
	if from > 401 || to < 401 {
		t.Errorf("window %d-%d does not show the violation's step 401", from, to)
	}
	if n := strings.Count(svg, "-&gt; fed to"); n > 100 {
		t.Errorf("%d arrows drawn in a 100-column window", n)
	}
	full := svgOf(t, e.sink(nil), nil)
	if strings.Contains(full, "showing steps") || strings.Count(full, "-&gt; fed to") != 300 {
		t.Error("an uncapped diagram left something out")
	}
}

func TestViolationMsgs(t *testing.T) {
	v := spec.Violation{Detail: "delivered m12(a#0/0:3) (delivery 4) after its effect m7(b#1/2:0) (delivery 2); m(x) am3(y)"}
	if got := violationMsgs(v); !slices.Equal(got, []uint64{12, 7}) {
		t.Errorf("parsed %v, want [12 7]", got)
	}
	v.Msgs = []uint64{5}
	if got := violationMsgs(v); !slices.Equal(got, []uint64{5}) {
		t.Errorf("with Msgs set got %v, want [5]", got)
	}
}

func TestDiagramHTML(t *testing.T) {
	var b bytes.Buffer
	d := diamondTrace().sink(&spec.Scenario{Name: `a<b>&"c"`, Processes: []spec.ProcessSpec{{Name: "relay"}, {Name: "s<1>"}}})
	if err := d.WriteHTML(&b, []spec.Violation{diamondViolation}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkWellFormed(t, b.Bytes())
	for _, want := range []string{"<svg ", "Legend", "scenario a&lt;b&gt;&amp;&#34;c&#34;", ">s&lt;1&gt;</text>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page contains %q (it must be self-contained and script-free)", bad)
		}
	}
}

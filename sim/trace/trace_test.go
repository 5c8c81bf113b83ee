package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

func sampleEvents() []Event {
	return []Event{
		{Step: 0, TimeMicros: 120, Action: spec.ActProducePlain, Kind: "produced", Process: -1, Topic: "orders", Incarn: 1, Partition: 0, Position: 0, Msg: 1},
		{Step: 1, TimeMicros: 310, Action: spec.ActFeed, Kind: "fed", Process: 2, Topic: "orders", Incarn: 1, Partition: 0, Position: 0, Msg: 1},
		{Step: 1, TimeMicros: 310, Action: spec.ActFeed, Kind: "held", Process: 2, Topic: "orders", Incarn: 1, Msg: 1, Detail: "blocked by orders#1/1@3"},
		{Step: 2, TimeMicros: 900, Action: spec.ActCrash, Kind: "crashed", Process: 2, Detail: "rolled back 1 step"},
	}
}

func hashOf(evs []Event) string {
	var h HashSink
	for i := range evs {
		h.Record(&evs[i])
	}
	return h.Sum()
}

// TestHashStable pins the canonical encoding: if this golden value changes, every recorded hash
// in replay files and results/ changes with it, so the change must be deliberate (bump the replay
// format version).
func TestHashStable(t *testing.T) {
	const golden = "3c386348294351a1"
	if got := hashOf(sampleEvents()); got != golden {
		t.Fatalf("hash of the sample trace = %s, want %s", got, golden)
	}
	// The inline fold is FNV-1a: hash/fnv over the same canonical bytes agrees.
	ref := fnv.New64a()
	evs := sampleEvents()
	for i := range evs {
		ref.Write(AppendCanonical(nil, &evs[i]))
	}
	if got, want := hashOf(evs), FormatHash(ref.Sum64()); got != want {
		t.Fatalf("HashSink %s, hash/fnv %s", got, want)
	}
	if got := NewHashSink().Sum(); got != FormatHash(fnvOffset64) {
		t.Fatalf("empty hash %s, want the FNV basis", got)
	}
}

func TestHashSeesEveryField(t *testing.T) {
	base := hashOf(sampleEvents())
	mutations := map[string]func(*Event){
		"step":      func(e *Event) { e.Step++ },
		"time":      func(e *Event) { e.TimeMicros++ },
		"action":    func(e *Event) { e.Action = spec.ActDrain },
		"name":      func(e *Event) { e.ActionName = "other" },
		"kind":      func(e *Event) { e.Kind = "delivered" },
		"process":   func(e *Event) { e.Process = 3 },
		"topic":     func(e *Event) { e.Topic = "order" },
		"incarn":    func(e *Event) { e.Incarn = 2 },
		"partition": func(e *Event) { e.Partition = 1 },
		"position":  func(e *Event) { e.Position = 9 },
		"msg":       func(e *Event) { e.Msg = 2 },
		"detail":    func(e *Event) { e.Detail = "x" },
	}
	for _, name := range []string{"step", "time", "action", "name", "kind", "process", "topic", "incarn", "partition", "position", "msg", "detail"} {
		evs := sampleEvents()
		mutations[name](&evs[1])
		if hashOf(evs) == base {
			t.Errorf("changing %s did not change the hash", name)
		}
	}
	evs := sampleEvents()
	evs[1], evs[2] = evs[2], evs[1]
	if hashOf(evs) == base {
		t.Error("reordering events did not change the hash")
	}
	// String boundaries are encoded: moving a byte from Topic to Kind changes the hash.
	a := []Event{{Kind: "ab", Topic: "c"}}
	b := []Event{{Kind: "a", Topic: "bc"}}
	if hashOf(a) == hashOf(b) {
		t.Error("string boundaries are not part of the encoding")
	}
	// A filled-in ActionName equal to the kind's name is the same event.
	evs = sampleEvents()
	evs[0].ActionName = evs[0].Action.String()
	if hashOf(evs) != base {
		t.Error("filling ActionName with Action.String() changed the hash")
	}
}

func TestJSONLinesSink(t *testing.T) {
	var buf bytes.Buffer
	s := NewJSONLinesSink(&buf)
	evs := sampleEvents()
	for i := range evs {
		s.Record(&evs[i])
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	n := 0
	for sc.Scan() {
		var got map[string]any
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", n+1, err, sc.Text())
		}
		if got["action"] != evs[n].Action.String() || got["kind"] != evs[n].Kind || got["step"] != float64(evs[n].Step) {
			t.Fatalf("line %d = %v, want action %s kind %s step %d", n+1, got, evs[n].Action, evs[n].Kind, evs[n].Step)
		}
		n++
	}
	if n != len(evs) {
		t.Fatalf("%d lines, want %d", n, len(evs))
	}
}

func TestTimelineSink(t *testing.T) {
	var buf bytes.Buffer
	scn := &spec.Scenario{Topics: []spec.TopicSpec{{Name: "pay"}, {Name: "orders"}},
		Processes: []spec.ProcessSpec{{Name: "a"}, {Name: "b"}, {Name: "shipper"}}}
	s := NewTimelineSink(&buf, scn)
	evs := append(sampleEvents(),
		Event{Step: 3, Kind: "recreated", Process: -1, Detail: "orders#2 replaces #1"},
		Event{Step: 4, Kind: "fed", Process: 2, Topic: "orders", Incarn: 2, Msg: 2, Detail: "blocked by orders#1/0@0 and orders#2/0@1"})
	for i := range evs {
		s.Record(&evs[i])
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(evs) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(evs), buf.String())
	}
	for _, want := range []string{"step     1", "feed", "held", "shipper", "orders/0@0", "msg 1", "blocked by orders/1@3"} {
		if !strings.Contains(lines[2], want) && !strings.Contains(lines[1], want) {
			t.Errorf("timeline lines 2-3 lack %q:\n%s\n%s", want, lines[1], lines[2])
		}
	}
	// A scenario file's notation: the first incarnation is the topic's name, the N-th recreation
	// T#N, whatever the world's numbering across topics.
	if want := "orders#1 replaces orders"; !strings.HasSuffix(lines[4], want) {
		t.Errorf("recreation line %q, want it to end %q", lines[4], want)
	}
	if want := "shipper orders#1/0@0 msg 2  blocked by orders/0@0 and orders#1/0@1"; !strings.HasSuffix(lines[5], want) {
		t.Errorf("line %q, want it to end %q", lines[5], want)
	}
	if strings.Contains(lines[0], " p-1") {
		t.Errorf("process -1 printed: %s", lines[0])
	}
	if got := FormatEvent(&evs[2]); !strings.Contains(got, " p2 orders#1/0@0 msg 1  blocked by orders#1/1@3") {
		t.Errorf("FormatEvent, the world's numbering, gives %q", got)
	}
}

func TestCompareTraces(t *testing.T) {
	a := sampleEvents()
	if rep := CompareTraces(a, sampleEvents()); !rep.Identical || rep.FirstDiff != -1 {
		t.Fatalf("identical traces reported as %+v", rep)
	}
	b := sampleEvents()
	b[2].Detail = "blocked by nothing"
	rep := CompareTraces(a, b)
	if rep.Identical || rep.FirstDiff != 2 || rep.Step != 1 {
		t.Fatalf("diff at event 2 (step 1) reported as %+v", rep)
	}
	if s := rep.String(); !strings.Contains(s, "step 1") || !strings.Contains(s, "blocked by nothing") {
		t.Fatalf("report does not name the step and both events:\n%s", s)
	}
	rep = CompareTraces(a, a[:3])
	if rep.Identical || rep.FirstDiff != 3 || rep.Second != nil || rep.Step != 2 {
		t.Fatalf("shorter second trace reported as %+v", rep)
	}
}

func TestCheckDeterminism(t *testing.T) {
	calls := 0
	rep := CheckDeterminism(func(sink Sink) {
		calls++
		for _, ev := range sampleEvents() {
			if calls == 2 && ev.Step == 2 {
				ev.TimeMicros++ // the second run drifts at step 2
			}
			sink.Record(&ev)
		}
	})
	if calls != 2 {
		t.Fatalf("run called %d times, want 2", calls)
	}
	if rep.Identical || rep.HashesSame || rep.Step != 2 {
		t.Fatalf("drift at step 2 reported as %+v", rep)
	}
	rep = CheckDeterminism(func(sink Sink) {
		for _, ev := range sampleEvents() {
			sink.Record(&ev)
		}
	})
	if !rep.Identical || !rep.HashesSame || rep.Hashes[0] != hashOf(sampleEvents()) {
		t.Fatalf("identical runs reported as %+v", rep)
	}
}

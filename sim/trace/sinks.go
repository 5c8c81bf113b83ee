package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// CollectSink keeps a copy of every event, in order: for tests and for the determinism check.
type CollectSink struct {
	Events []Event
}

// Record appends a copy of ev.
func (c *CollectSink) Record(ev *Event) {
	e := *ev
	if e.ActionName == "" {
		e.ActionName = e.Action.String()
	}
	c.Events = append(c.Events, e)
}

// JSONLinesSink writes each event as one JSON object per line (the --trace FILE format). Writes
// are buffered; call Flush at the end of the run. The first write error is kept (Err) and later
// events are dropped, so a full disk never disturbs the run itself.
type JSONLinesSink struct {
	w   *bufio.Writer
	err error
}

// NewJSONLinesSink returns a sink writing JSON lines to w.
func NewJSONLinesSink(w io.Writer) *JSONLinesSink {
	return &JSONLinesSink{w: bufio.NewWriterSize(w, 64<<10)}
}

// Record writes ev as one line.
func (s *JSONLinesSink) Record(ev *Event) {
	if s.err != nil {
		return
	}
	e := *ev
	if e.ActionName == "" {
		e.ActionName = e.Action.String()
	}
	b, err := json.Marshal(&e)
	if err == nil {
		b = append(b, '\n')
		_, err = s.w.Write(b)
	}
	s.err = err
}

// Flush writes out buffered lines and returns the first error met, if any.
func (s *JSONLinesSink) Flush() error {
	if s.err != nil {
		return s.err
	}
	s.err = s.w.Flush()
	return s.err
}

// TimelineSink writes a readable timeline of a run, one line per event (simrun -v), naming
// processes and channels as the scenario file and its story do:
//
//	step    12  t=    1830us  feed          fed        p2  orders#1/0@4  msg 17  detail
//
// (orders#1 is the topic's first recreation; its first incarnation is plain orders). Columns
// that do not apply are left out. Call Flush at the end of the run.
type TimelineSink struct {
	w     *bufio.Writer
	names *names
	err   error
}

// NewTimelineSink returns a sink writing the readable timeline of a run of scn to w.
func NewTimelineSink(w io.Writer, scn *spec.Scenario) *TimelineSink {
	return &TimelineSink{w: bufio.NewWriter(w), names: newNames(scn)}
}

// Record writes ev as one timeline line.
func (s *TimelineSink) Record(ev *Event) {
	if s.err != nil {
		return
	}
	s.names.learn(ev)
	_, s.err = io.WriteString(s.w, formatEvent(ev, s.names)+"\n")
}

// Flush writes out buffered lines and returns the first error met, if any.
func (s *TimelineSink) Flush() error {
	if s.err != nil {
		return s.err
	}
	s.err = s.w.Flush()
	return s.err
}

// FormatEvent renders ev as one readable timeline line (without a newline), in the world's own
// numbering (process indices, incarnations numbered across the world: T#G/P).
func FormatEvent(ev *Event) string { return formatEvent(ev, nil) }

// formatEvent renders ev as one timeline line, naming processes and channels with n (nil: the
// world's numbering).
func formatEvent(ev *Event, n *names) string {
	var b strings.Builder
	name := ev.ActionName
	if name == "" {
		name = ev.Action.String()
	}
	fmt.Fprintf(&b, "step %5d  t=%10dus  %-15s %-10s", ev.Step, ev.TimeMicros, name, ev.Kind)
	detail := ev.Detail
	if n != nil {
		detail = n.detail(ev)
	}
	if ev.Process >= 0 {
		if n != nil {
			fmt.Fprintf(&b, " %s", n.process(ev.Process))
		} else {
			fmt.Fprintf(&b, " p%d", ev.Process)
		}
	}
	if ev.Topic != "" {
		if n != nil {
			fmt.Fprintf(&b, " %s/%d@%d", n.incarnation(ev.Topic, ev.Incarn), ev.Partition, ev.Position)
		} else {
			fmt.Fprintf(&b, " %s#%d/%d@%d", ev.Topic, ev.Incarn, ev.Partition, ev.Position)
		}
	}
	if ev.Msg != 0 {
		fmt.Fprintf(&b, " msg %d", ev.Msg)
	}
	if detail != "" {
		b.WriteString("  ")
		b.WriteString(detail)
	}
	return strings.TrimRight(b.String(), " ")
}

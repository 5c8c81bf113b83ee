package scenariofile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/trace"
)

// eventLine renders one trace event as a story line, or "" for an event the story leaves out.
func (s *story) eventLine(e *trace.Event) string {
	who := ""
	if e.Process >= 0 && e.Process < len(s.f.Scenario.Processes) {
		who = s.f.Scenario.Processes[e.Process].Name
	}
	switch e.Kind {
	case "produced":
		return s.producedLine(e)
	case "held":
		return who + " fed " + s.eventRecord(e)
	case "duplicate":
		return who + " fed " + s.eventRecord(e) + " (at or below what it covers: dropped as a replay)"
	case "delivered":
		return who + " delivered " + s.eventRecord(e)
	case "sent":
		return fmt.Sprintf("%s sent %s causes %s", who, s.eventRecord(e), causesText(&s.ob.Messages[e.Msg-1]))
	case "committed":
		return who + " committed"
	case "crashed":
		return who + " crashed (its step rolled back)"
	case "stopped":
		return who + " stopped"
	case "started":
		return who + " started: " + s.rename(e.Detail)
	case "refused":
		return who + " refused " + s.rename(e.Detail)
	case "rewound":
		return fmt.Sprintf("%s rewound: committed read position on %s set to %d", who, s.eventChan(e), e.Position)
	case "redeclared":
		return who + " redeclared: " + e.Detail
	case "skipped":
		if who != "" {
			return fmt.Sprintf("%s read past markers or aborted records on %s: read position now %d", who, s.eventChan(e), e.Position)
		}
		return "skipped: the action does not apply here"
	}
	return s.worldLine(e, who)
}

// worldLine renders the events of world actions and the rarer process events.
func (s *story) worldLine(e *trace.Event, who string) string {
	switch e.Kind {
	case "truncated":
		if e.Topic == "" {
			return "truncated nothing: " + e.Detail
		}
		return fmt.Sprintf("truncated %s: log start is now %d", s.eventChan(e), e.Position)
	case "retention":
		return fmt.Sprintf("retention sweep at t=%dus", e.TimeMicros)
	case "txn-aborted":
		return fmt.Sprintf("aborted a transaction of %s on %s (never-yielding offsets up to %d)", e.Detail, s.eventChan(e), e.Position-1)
	case "txn-opened":
		return fmt.Sprintf("opened a transaction of %s on %s", e.Detail, s.eventChan(e))
	case "txn-closed":
		return "closed the open transaction: " + e.Detail
	case "deleted":
		return "deleted topic " + s.incarnationText(e.Detail)
	case "recreated":
		now, old, _ := strings.Cut(e.Detail, " replaces ")
		topic, _, _ := strings.Cut(now, "#")
		return fmt.Sprintf("recreated topic %s: %s replaces %s", topic, s.incarnationText(now), s.incarnationText(topic+old))
	case "migrated":
		return who + " migrated to another instance"
	case "zombie-fenced":
		return who + " zombie fenced: " + e.Detail
	case "commit-crash":
		return who + " crashes inside its commit, " + e.Detail
	}
	line := e.Kind
	if who != "" {
		line += " " + who
	}
	if e.Topic != "" {
		line += " " + s.eventRecord(e)
	}
	if e.Detail != "" {
		line += " " + s.rename(e.Detail)
	}
	return line
}

// incarnationText renders "NAME#G" (G the world's incarnation index) as the story's short
// topic name, or "nothing" for G = -1 (the topic was deleted before).
func (s *story) incarnationText(detail string) string {
	name, g, ok := strings.Cut(detail, "#")
	n, err := strconv.Atoi(g)
	if !ok || err != nil {
		return detail
	}
	if n < 0 || n >= len(s.ob.Incarnations) {
		return "nothing (deleted)"
	}
	return shortTopic(name, s.ob.Incarnations[n].Number)
}

// producedLine renders an external produce: the record, its kind and its header.
func (s *story) producedLine(e *trace.Event) string {
	m := &s.ob.Messages[e.Msg-1]
	line := "produced " + s.eventRecord(e)
	switch m.Kind {
	case "plain":
		return line + " (no header)"
	case "corrupt":
		return line + " (corrupt header)"
	case "forged":
		if len(m.Causes) == 0 {
			return line + " (hand-made header) causes none"
		}
		return line + " (hand-made header) causes " + causesText(m)
	}
	return fmt.Sprintf("%s (%s) causes %s", line, m.Kind, causesText(m))
}

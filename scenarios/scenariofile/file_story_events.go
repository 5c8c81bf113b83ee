package scenariofile

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
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
		s.started(e)
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
		return "skipped: " + s.skipReason()
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

// receivedChannel matches a channel of a "started" event's received list, topic#G/P@O.
var receivedChannel = regexp.MustCompile(`([A-Za-z0-9_.-]+)#\d+/\d+@`)

// started notes the topics a process's start received.
func (s *story) started(e *trace.Event) {
	if e.Process < 0 || e.Process >= len(s.receives) {
		return
	}
	topics := map[string]bool{}
	for _, m := range receivedChannel.FindAllStringSubmatch(e.Detail, -1) {
		topics[m[1]] = true
	}
	s.receives[e.Process] = topics
}

// skipReason says why the script action being rendered did not apply, from its process's state
// before it (the snapshot that precedes it) and the topics the process's last start received.
func (s *story) skipReason() string {
	const generic = "the action does not apply here"
	if s.action < 0 {
		return generic
	}
	a := s.f.Scenario.Script[s.action]
	i := slices.IndexFunc(s.f.Scenario.Processes, func(p spec.ProcessSpec) bool { return p.Name == a.Process })
	if i < 0 {
		return generic
	}
	v := s.ob.View(s.action, i)
	needsDown := a.Kind == spec.ActStart || a.Kind == spec.ActRewind || a.Kind == spec.ActRedeclare
	switch {
	case v.State == "refused":
		return fmt.Sprintf("%s has refused (%s) and takes no further action", a.Process, v.Refusal)
	case needsDown && v.State == "running":
		if a.Kind == spec.ActStart {
			return a.Process + " is already running"
		}
		return a.Process + " is running (an operator " + a.Kind.String() + "s a stopped process)"
	case !needsDown && v.State != "running":
		return a.Process + " is down"
	case a.Kind == spec.ActFeed && a.Topic != "" && !s.receives[i][a.Topic]:
		return fmt.Sprintf("%s does not receive %s (its last start received %s)", a.Process, a.Topic, s.receivedList(i))
	case a.Kind == spec.ActFeed && a.Topic != "":
		return fmt.Sprintf("%s has nothing to fetch on %s (its read position is at the last stable offset, or the channel is deleted)", a.Process, a.Topic)
	case a.Kind == spec.ActFeed:
		return a.Process + " has nothing to fetch on any channel it receives"
	}
	return generic
}

// receivedList names the topics process i's last start received, for a reason.
func (s *story) receivedList(i int) string {
	if len(s.receives[i]) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(s.receives[i])), ", ")
}

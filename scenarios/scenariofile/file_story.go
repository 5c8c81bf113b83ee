package scenariofile

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// The story of a file run: each action echoed as "> ACTION", then what it did, one line per
// event that matters to a reader (produced, fed, delivered, sent with its causes, committed,
// crashed, started, refused, ...), then the holds of every process whose holds changed, with
// their blockers. The liveness phase follows under "> liveness", and "> end" closes with each
// process's deliveries, holds or refusal, and the verdict. Records are named
// topic[#incarnation]/partition@offset, with ":label" when their value carries one.

// story renders one observed run.
type story struct {
	f      *File
	ob     *sim.Observed
	events []trace.Event
	ids    map[string]string // topic ID (as refusals print it) -> short topic name
	// action is the index of the script action whose events are being rendered (-1: none).
	action int
	// receives[i] is the topics process i's last start received (its "started" event).
	receives []map[string]bool
}

func newStory(f *File, ob *sim.Observed, events []trace.Event) *story {
	s := &story{f: f, ob: ob, events: events, ids: map[string]string{}, action: -1,
		receives: make([]map[string]bool, len(f.Scenario.Processes))}
	for _, inc := range ob.Incarnations {
		s.ids[inc.ID] = shortTopic(inc.Topic, inc.Number)
	}
	return s
}

func shortTopic(topic string, number int) string {
	if number == 0 {
		return topic
	}
	return fmt.Sprintf("%s#%d", topic, number)
}

// render returns the story lines.
func (s *story) render() []string {
	var out []string
	snaps := s.ob.Snapshots
	ev := 0
	take := func(upTo int) {
		for ; ev < len(s.events) && s.events[ev].Step <= upTo; ev++ {
			if l := s.eventLine(&s.events[ev]); l != "" {
				out = append(out, "  "+l)
			}
		}
	}
	take(snaps[0].Step)
	last := make([]string, len(s.f.Scenario.Processes))
	// changed gathers the processes whose view changed since the holds were last printed (they
	// are not printed after a feed).
	changed := map[int]bool{}
	note := func(k int) {
		for _, i := range snaps[k].Changed {
			changed[i] = true
		}
	}
	note(0)
	out = append(out, s.holdChanges(0, changed, last)...)
	script := s.f.Scenario.Script
	for i, a := range script {
		out = append(out, "> "+FormatAction(a))
		s.action = i
		take(snaps[i+1].Step)
		s.action = -1
		note(i + 1)
		if a.Kind != spec.ActFeed {
			out = append(out, s.holdChanges(i+1, changed, last)...)
		}
	}
	end := len(snaps) - 1
	if ev < len(s.events) {
		out = append(out, "> liveness")
		take(snaps[end].Step)
	}
	return append(out, s.ending(end)...)
}

// holdChanges returns, for snapshot k, a hold line for every running process whose holds differ
// from the last ones printed (last is updated). Only the processes in changed (emptied) can
// differ; a process that is not running has no engine to ask.
func (s *story) holdChanges(k int, changed map[int]bool, last []string) []string {
	var out []string
	for _, i := range slices.Sorted(maps.Keys(changed)) {
		delete(changed, i)
		p := s.ob.View(k, i)
		if p.State != "running" {
			last[i] = "?"
			continue
		}
		lines := s.holdLines(p)
		joined := strings.Join(lines, "\n")
		if joined == last[i] || (last[i] == "" || last[i] == "?") && len(p.Holds) == 0 {
			last[i] = joined
			continue
		}
		last[i] = joined
		for _, l := range lines {
			out = append(out, "  "+l)
		}
	}
	return out
}

// holdLines renders a running process's holds: one line per held channel, or "holds nothing".
func (s *story) holdLines(p sim.ProcessView) []string {
	if len(p.Holds) == 0 {
		return []string{p.Name + " holds nothing"}
	}
	var out []string
	for _, h := range p.Holds {
		out = append(out, p.Name+" holds "+s.holdText(h))
	}
	return out
}

// holdText renders a held channel as an expectation body: "HEAD (N held) blocked by ...".
func (s *story) holdText(h sim.HoldView) string {
	head := fmt.Sprintf("%s@%d", h.Channel, h.Head)
	if h.HeadMsg != 0 {
		head = s.name(h.HeadMsg)
	}
	text := fmt.Sprintf("%s (%d held)", head, h.Held)
	if len(h.Blockers) == 0 {
		return text + " deliverable"
	}
	bs := make([]string, len(h.Blockers))
	for i, b := range h.Blockers {
		bs[i] = b.String()
	}
	return text + " blocked by " + strings.Join(bs, "; ")
}

// ending renders the end of the run: per process its state, deliveries and holds; the verdict.
func (s *story) ending(end int) []string {
	out := []string{"> end"}
	for i := range s.f.Scenario.Processes {
		p := s.ob.View(end, i)
		state := p.State
		if p.State == "refused" {
			state += " " + p.Refusal
		}
		out = append(out, fmt.Sprintf("  %s %s, delivered: %s", p.Name, state, s.names(p.Delivered())))
		if p.State == "running" && len(p.Holds) > 0 {
			for _, l := range s.holdLines(p) {
				out = append(out, "  "+l)
			}
		}
	}
	res := s.ob.Result
	out = append(out, "  verdict: "+res.Verdict)
	for _, v := range res.Violations {
		out = append(out, "  violation: "+s.rename(v.String()))
	}
	return out
}

// names renders a list of records, or "none".
func (s *story) names(uids []uint64) string {
	if len(uids) == 0 {
		return "none"
	}
	parts := make([]string, len(uids))
	for i, u := range uids {
		parts[i] = s.name(u)
	}
	return strings.Join(parts, " ")
}

// name renders record uid as chan@pos[:label].
func (s *story) name(uid uint64) string {
	if uid == 0 || int(uid) > len(s.ob.Messages) {
		return fmt.Sprintf("m%d", uid)
	}
	m := &s.ob.Messages[uid-1]
	n := fmt.Sprintf("%s@%d", m.Channel, m.Position)
	if l := label(m); l != "" {
		n += ":" + l
	}
	return n
}

// label returns a record's label: its value after the hop-count byte, when that is a label.
func label(m *sim.MessageView) string {
	if !m.PayloadKnown || len(m.Value) < 2 || !validLabel(string(m.Value[1:])) {
		return ""
	}
	return string(m.Value[1:])
}

// causesText renders a record's header pairs as "c/0@3 d/0@1", or "none".
func causesText(m *sim.MessageView) string {
	if len(m.Causes) == 0 {
		return "none"
	}
	parts := make([]string, len(m.Causes))
	for i, c := range m.Causes {
		parts[i] = fmt.Sprintf("%s@%d", c.Channel, c.Position)
	}
	return strings.Join(parts, " ")
}

// eventChan names the channel of an event.
func (s *story) eventChan(e *trace.Event) string {
	number := 0
	if e.Incarn >= 0 && e.Incarn < len(s.ob.Incarnations) {
		number = s.ob.Incarnations[e.Incarn].Number
	}
	return fmt.Sprintf("%s/%d", shortTopic(e.Topic, number), e.Partition)
}

// eventRecord names the record of an event, or its position when it names none.
func (s *story) eventRecord(e *trace.Event) string {
	if e.Msg != 0 {
		return s.name(e.Msg)
	}
	return fmt.Sprintf("%s@%d", s.eventChan(e), e.Position)
}

var incarnationRef = regexp.MustCompile(`([A-Za-z0-9_.-]+)#(\d+)(/?)`)

// rename rewrites the world's names of incarnations and channels (topic#globalIncarnation, with
// /partition for a channel) and topic IDs in a detail into the story's short names.
func (s *story) rename(detail string) string {
	detail = incarnationRef.ReplaceAllStringFunc(detail, func(m string) string {
		sub := incarnationRef.FindStringSubmatch(m)
		g, _ := strconv.Atoi(sub[2])
		if g < len(s.ob.Incarnations) && s.ob.Incarnations[g].Topic == sub[1] {
			return shortTopic(sub[1], s.ob.Incarnations[g].Number) + sub[3]
		}
		return m
	})
	for _, id := range slices.Sorted(maps.Keys(s.ids)) {
		detail = strings.ReplaceAll(detail, id, s.ids[id])
	}
	return detail
}

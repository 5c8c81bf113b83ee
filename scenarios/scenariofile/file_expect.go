package scenariofile

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Checking a file's expectations against an observed run. Each failure names the file, the line
// and what the run showed instead.

// checkExpects returns one failure per expectation that does not hold.
func checkExpects(f *File, ob *sim.Observed, st *story, set swarm.Settings, opts sim.RunOptions) []string {
	var out []string
	for i := range f.Expects {
		e := &f.Expects[i]
		snap := len(ob.Snapshots) - 1
		if !e.End {
			snap = e.After + 1
		}
		if got := checkExpect(e, snap, ob, st, f, set, opts); got != "" {
			out = append(out, fmt.Sprintf("%s:%d: %s\n    but %s", f.Path, e.Line, strings.TrimSpace(e.Text), got))
		}
	}
	return out
}

// checkExpect checks one expectation at snapshot snap; it returns "" when it holds, else what
// was found instead.
func checkExpect(e *Expect, snap int, ob *sim.Observed, st *story, f *File, set swarm.Settings, opts sim.RunOptions) string {
	switch e.Kind {
	case ExpectDelivered:
		return checkDelivered(e, processView(ob, snap, f, e.Process), ob, st)
	case ExpectHeld:
		return checkHeld(e, processView(ob, snap, f, e.Process), ob, st)
	case ExpectState:
		p := processView(ob, snap, f, e.Process)
		if p.State != e.State || e.Reason != "" && p.Refusal != e.Reason {
			return fmt.Sprintf("%s is %s", p.Name, strings.TrimSpace(p.State+" "+p.Refusal))
		}
	case ExpectCauses:
		m, why := findRecord(e.Record, ob, st)
		if m == nil {
			return why
		}
		want := strings.Join(e.Causes, " ")
		if want == "" {
			want = "none"
		}
		// On a live substrate the causes follow its topic IDs' order, not the seeded IDs'.
		if got := causesText(m); got != want && (opts.Substrate == nil || sortedWords(got) != sortedWords(want)) {
			return fmt.Sprintf("%s expresses %s", st.name(m.UID), got)
		}
	case ExpectRecord:
		return checkRecord(e, ob, st)
	case ExpectVerdict:
		return checkVerdict(e, ob.Result)
	case ExpectRestartInvisible:
		vs := sim.CheckRestartInvisibility(f.Scenario, set, opts, e.Process, e.After)
		if len(vs) > 0 {
			return st.rename(vs[0].String())
		}
	}
	return ""
}

// processView returns the named process's view at snapshot snap (the parser checked the name).
func processView(ob *sim.Observed, snap int, f *File, name string) sim.ProcessView {
	i := slices.IndexFunc(f.Scenario.Processes, func(p spec.ProcessSpec) bool { return p.Name == name })
	if i < 0 {
		panic("scenariofile: no process " + name)
	}
	return ob.View(snap, i)
}

// checkDelivered compares a process's deliveries with the expected sequence.
func checkDelivered(e *Expect, p sim.ProcessView, ob *sim.Observed, st *story) string {
	delivered := p.Delivered()
	ok := len(delivered) == len(e.Refs)
	for i := 0; ok && i < len(e.Refs); i++ {
		ok = matches(e.Refs[i], &ob.Messages[delivered[i]-1], st)
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("%s delivered %s", p.Name, st.names(delivered))
}

// checkHeld checks a running process's holds.
func checkHeld(e *Expect, p sim.ProcessView, ob *sim.Observed, st *story) string {
	if p.State != "running" {
		return fmt.Sprintf("%s is %s: no engine to report holds", p.Name, strings.TrimSpace(p.State+" "+p.Refusal))
	}
	got := strings.Join(st.holdLines(p), "; ")
	if e.None {
		if len(p.Holds) > 0 {
			return got
		}
		return ""
	}
	for _, h := range p.Holds {
		if h.HeadMsg == 0 || !matches(e.Record, &ob.Messages[h.HeadMsg-1], st) {
			continue
		}
		if e.Count != 0 && h.Held != e.Count {
			return got
		}
		if e.BlockersGiven {
			var bs []string
			for _, b := range h.Blockers {
				bs = append(bs, b.String())
			}
			if !slices.Equal(bs, e.Blockers) {
				return got
			}
		}
		return ""
	}
	return got
}

// checkRecord checks a record's key, value label and timestamp.
func checkRecord(e *Expect, ob *sim.Observed, st *story) string {
	m, why := findRecord(e.Record, ob, st)
	if m == nil {
		return why
	}
	if !m.PayloadKnown {
		return fmt.Sprintf("%s was never readable (never committed)", st.name(m.UID))
	}
	value := label(m)
	if value == "" {
		value = "0x" + hex.EncodeToString(m.Value)
	}
	got := fmt.Sprintf("%s has key=%s value=%s ts=%d", st.name(m.UID), formatPayload(m.Key, false), value, m.TimestampMicros)
	switch {
	case e.Key != nil && formatPayload(m.Key, false) != *e.Key,
		e.Value != nil && value != *e.Value,
		e.TSMicros != nil && m.TimestampMicros != *e.TSMicros:
		return got
	}
	return ""
}

// checkVerdict checks the run's verdict and, for a violation, the criteria named.
func checkVerdict(e *Expect, res *spec.Result) string {
	var crits []string
	for _, v := range res.Violations {
		if !slices.Contains(crits, string(v.Criterion)) {
			crits = append(crits, string(v.Criterion))
		}
	}
	got := fmt.Sprintf("the verdict is %s %s", res.Verdict, strings.Join(crits, " "))
	if res.Verdict != e.Verdict {
		return strings.TrimSpace(got)
	}
	for _, c := range e.Criteria {
		if !slices.Contains(crits, c) {
			return strings.TrimSpace(got)
		}
	}
	return ""
}

// findRecord returns the one record a reference names.
func findRecord(r Ref, ob *sim.Observed, st *story) (*sim.MessageView, string) {
	var found *sim.MessageView
	n := 0
	for i := range ob.Messages {
		if matches(r, &ob.Messages[i], st) {
			found, n = &ob.Messages[i], n+1
		}
	}
	switch n {
	case 0:
		return nil, "no record matches " + r.Text
	case 1:
		return found, ""
	}
	return nil, fmt.Sprintf("%d records match %s: name it by coordinate", n, r.Text)
}

// matches reports whether a reference names record m.
func matches(r Ref, m *sim.MessageView, st *story) bool {
	if r.Coord && (r.Topic != m.Topic || r.Incarn != m.Incarnation || r.Part != m.Partition || r.Position != m.Position) {
		return false
	}
	if r.Topic != "" && r.Topic != m.Topic {
		return false
	}
	return r.Label == "" || r.Label == label(m)
}

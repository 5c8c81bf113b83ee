package scenariofile

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The writer: a *spec.Scenario with a script back to the file format, so the shrinker and the
// explorer can emit a minimal reproduction a person reads and edits. ParseFile(Format(...))
// gives back the same topics, processes and script.

// Format writes scn (which must have a script) as a scenario file: the comment lines, the
// settings line (only what differs from the defaults), the declarations and one line per action.
// Consecutive identical feeds are written once with n=N.
func Format(scn *spec.Scenario, fs FileSettings, comments ...string) []byte {
	var b strings.Builder
	for _, c := range comments {
		for _, l := range strings.Split(c, "\n") {
			b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
		}
	}
	if len(comments) > 0 {
		b.WriteString("\n")
	}
	if s := formatSettings(fs, scn.MetadataBudgetBytes); s != "" {
		b.WriteString(s + "\n\n")
	}
	for _, t := range scn.Topics {
		fmt.Fprintf(&b, "topic %s partitions=%d", t.Name, t.Partitions)
		if t.External {
			b.WriteString(" external")
		}
		if t.DeletionOnly {
			b.WriteString(" deletion-only")
		}
		b.WriteString("\n")
	}
	for _, p := range scn.Processes {
		b.WriteString(formatProcess(p) + "\n")
	}
	b.WriteString(formatSession(scn.Session)) // session_file.go
	b.WriteString("\n")
	for i := 0; i < len(scn.Script); {
		n := 1
		for scn.Script[i].Kind == spec.ActFeed && i+n < len(scn.Script) && sameAction(scn.Script[i], scn.Script[i+n]) {
			n++
		}
		line := FormatAction(scn.Script[i])
		if n > 1 {
			line += fmt.Sprintf(" n=%d", n)
		}
		b.WriteString(line + "\n")
		i += n
	}
	return []byte(b.String())
}

// formatSettings renders the settings line, or "" when everything is default.
func formatSettings(fs FileSettings, budget int) string {
	d := DefaultFileSettings()
	var parts []string
	add := func(key string, differs bool, v any) {
		if differs || fs.Given[key] {
			parts = append(parts, fmt.Sprintf("%s=%v", key, v))
		}
	}
	add("seed", fs.Seed != d.Seed, fs.Seed)
	add("swarm", fs.Swarm != 0, fs.Swarm)
	add("liveness", fs.LivenessStepsMax != d.LivenessStepsMax, fs.LivenessStepsMax)
	add("step-us", fs.StepMicros != d.StepMicros, fs.StepMicros)
	add("retention-us", fs.RetentionMicros != 0, fs.RetentionMicros)
	add("retention-records", fs.RetentionRecords != 0, fs.RetentionRecords)
	add("hops", fs.HopsMax != d.HopsMax, fs.HopsMax)
	add("budget", budget != 0, budget)
	if len(parts) == 0 {
		return ""
	}
	return "settings " + strings.Join(parts, " ")
}

// formatProcess renders a process declaration.
func formatProcess(p spec.ProcessSpec) string {
	s := "process " + p.Name
	if len(p.Receives) > 0 {
		s += " receives=" + strings.Join(p.Receives, ",")
	}
	if len(p.Sends) > 0 {
		s += " sends=" + strings.Join(p.Sends, ",")
	}
	if p.Task != 0 {
		s += fmt.Sprintf(" task=%d", p.Task)
	}
	if p.HopsMax != 0 {
		s += fmt.Sprintf(" hops=%d", p.HopsMax)
	}
	if p.FanoutOne {
		s += " fanout=one"
	}
	return s
}

// sameAction reports whether two actions are identical (for folding repeated feeds).
func sameAction(a, b spec.ScriptedAction) bool {
	return FormatAction(a) == FormatAction(b)
}

// FormatAction renders one scripted action as its file line.
func FormatAction(a spec.ScriptedAction) string {
	if line, ok := formatSessionAction(a); ok { // session_file.go
		return line
	}
	verb := a.Kind.String()
	switch a.Kind {
	case spec.ActFeed:
		if a.Topic == "" {
			return "feed " + a.Process
		}
		return fmt.Sprintf("feed %s topic=%s", a.Process, a.Topic)
	case spec.ActRewind:
		return fmt.Sprintf("rewind %s topic=%s offset=%d", a.Process, a.Topic, a.Offset)
	case spec.ActRedeclare:
		if a.Add {
			return fmt.Sprintf("redeclare %s add=%s", a.Process, a.Topic)
		}
		return fmt.Sprintf("redeclare %s remove=%s", a.Process, a.Topic)
	case spec.ActDrain, spec.ActCommit, spec.ActCrash, spec.ActStop, spec.ActStart, spec.ActMigrate, spec.ActZombie:
		return verb + " " + a.Process
	case spec.ActCommitCrash:
		return fmt.Sprintf("%s %s calls=%d", verb, a.Process, max(a.Calls, 1))
	case spec.ActRetention:
		return verb
	case spec.ActTxnClose:
		if a.Commit {
			return "txn-close commit"
		}
		return "txn-close abort"
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		return verb + " " + a.Topic
	case spec.ActDeleteRecords:
		if a.Topic == "" {
			return verb // a step that found nothing to truncate
		}
	}
	s := fmt.Sprintf("%s topic=%s", verb, a.Topic)
	if a.Partition != 0 {
		s += fmt.Sprintf(" partition=%d", a.Partition)
	}
	switch a.Kind {
	case spec.ActProducePlain, spec.ActProduceCorrupt:
		s += formatProduce(a)
	case spec.ActProduceStamped:
		s += " observe=" + formatObserve(a)
	case spec.ActTxnAbort, spec.ActTxnOpen:
		if a.Records > 0 {
			s += fmt.Sprintf(" records=%d", a.Records)
		}
	case spec.ActDeleteRecords:
		s += fmt.Sprintf(" before=%d", a.Offset)
	}
	if a.Kind == spec.ActProducePlain {
		s = "produce" + strings.TrimPrefix(s, "produce-plain")
	}
	return s
}

// formatProduce renders a produce's payload and forged header arguments.
func formatProduce(a spec.ScriptedAction) string {
	s := ""
	if a.Key != nil {
		s += " key=" + formatPayload(a.Key, false)
	}
	if a.Value != nil {
		s += " value=" + formatPayload(a.Value, true)
	}
	switch {
	case a.Causes != nil && len(a.Causes) == 0:
		s += " causes=none"
	case a.Causes != nil:
		parts := make([]string, len(a.Causes))
		for i, c := range a.Causes {
			parts[i] = formatCause(c)
		}
		s += " causes=" + strings.Join(parts, ",")
	case a.Header != nil:
		s += " header=" + hex.EncodeToString(a.Header)
	case a.Headers != nil:
		parts := make([]string, len(a.Headers))
		for i, v := range a.Headers {
			switch {
			case v == nil:
				parts[i] = "null"
			case len(v) == 0:
				parts[i] = "empty"
			default:
				parts[i] = hex.EncodeToString(v)
			}
		}
		s += " headers=" + strings.Join(parts, ",")
	}
	return s
}

// formatPayload renders a key or value: a label when the bytes are one (after the zero hop byte
// for a value), otherwise 0xHEX.
func formatPayload(b []byte, isValue bool) string {
	if isValue && len(b) > 1 && b[0] == 0 && validLabel(string(b[1:])) {
		return string(b[1:])
	}
	if !isValue && validLabel(string(b)) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// formatCause renders a cause reference as TOPIC/PARTITION@OFFSET.
func formatCause(c spec.CauseRef) string {
	return fmt.Sprintf("%s/%d@%d", c.Topic, c.Partition, c.Position)
}

// formatObserve renders a stamped produce's observed record: TOPIC/PARTITION@OFFSET on the
// topic's current incarnation, TOPIC#INCARNATION/PARTITION@OFFSET on a given one.
func formatObserve(a spec.ScriptedAction) string {
	if a.ObserveIncarnation <= 0 {
		return formatCause(a.Observe)
	}
	o := a.Observe
	return fmt.Sprintf("%s#%d/%d@%d", o.Topic, a.ObserveIncarnation-1, o.Partition, o.Position)
}

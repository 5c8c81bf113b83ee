package scenariofile

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Expectations: "expect KIND [SUBJECT]: BODY", checked after the action they follow (or at the
// end of the run when they follow the last action). The body of a held, delivered or causes
// expectation is written exactly as the story prints it, so a person can copy a story line.

// expectUsage is the syntax of each expectation kind, for errors.
var expectUsage = map[ExpectKind]string{
	ExpectDelivered:        "expect delivered PROCESS: REF REF ... (or none)",
	ExpectHeld:             "expect held PROCESS: none | HEAD [(N held)] [deliverable | blocked by CHAN required=N settled=N|none; ...]",
	ExpectState:            "expect state PROCESS: running | down | refused [REASON]",
	ExpectCauses:           "expect causes REF: CHAN@POS ... (or none)",
	ExpectRecord:           "expect record REF: [key=K] [value=V] [ts=MICROS]",
	ExpectVerdict:          "expect verdict: pass | violation [CRITERION ...]",
	ExpectRestartInvisible: "expect restart-invisible PROCESS",
}

var (
	heldBody    = regexp.MustCompile(`^(\S+)(?:\s+\((\d+) held\))?(?:\s+(deliverable|blocked by\s+(.+)))?$`)
	blockerForm = regexp.MustCompile(`^(\S+/\d+) required=(\d+) settled=(\d+|none)$`)
)

// parseExpect parses one expect line.
func (p *parser) parseExpect(line string) error {
	head, body, hasBody := cutBody(strings.TrimSpace(strings.TrimPrefix(line, "expect")))
	words := strings.Fields(head)
	if len(words) == 0 {
		return p.errorf("expect: expected a kind (delivered, held, state, causes, record, verdict, restart-invisible)")
	}
	e := Expect{Line: p.line, Text: line, Kind: ExpectKind(words[0]), After: len(p.f.Scenario.Script) - 1,
		End: p.afterLiveness || ExpectKind(words[0]) == ExpectVerdict}
	usage, known := expectUsage[e.Kind]
	if !known {
		return p.errorf("expect %s: unknown kind; expected delivered, held, state, causes, record, verdict or restart-invisible", words[0])
	}
	if e.Kind == ExpectRestartInvisible && p.afterLiveness {
		return p.errorf("expect restart-invisible after the liveness line: expected it right after an action")
	}
	if e.Kind == ExpectRestartInvisible {
		if p.restartChecks++; p.restartChecks > MaxRestartChecks {
			return p.errorf("more than %d expect restart-invisible lines (the limit: each runs the script twice more)", MaxRestartChecks)
		}
	}
	wantSubject := e.Kind != ExpectVerdict
	if len(words) != map[bool]int{true: 2, false: 1}[wantSubject] || hasBody == (e.Kind == ExpectRestartInvisible) {
		return p.errorf("expected: %s", usage)
	}
	var err error
	switch e.Kind {
	case ExpectDelivered, ExpectHeld, ExpectState, ExpectRestartInvisible:
		e.Process = words[1]
		if err := p.knownProcess("expect "+string(e.Kind), e.Process); err != nil {
			return err
		}
	case ExpectCauses, ExpectRecord:
		if e.Record, err = p.ref(words[1]); err != nil {
			return err
		}
	}
	if err := p.expectBody(&e, strings.TrimSpace(body), usage); err != nil {
		return err
	}
	p.f.Expects = append(p.f.Expects, e)
	return nil
}

// cutBody splits "HEAD: BODY" at the first colon followed by a space or the end (a colon inside a
// record reference, as in c1/0@2:A, is followed by the label).
func cutBody(s string) (head, body string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == len(s)-1 || s[i+1] == ' ' || s[i+1] == '\t') {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// expectBody parses the part after the colon.
func (p *parser) expectBody(e *Expect, body, usage string) error {
	fields := strings.Fields(body)
	switch e.Kind {
	case ExpectDelivered:
		if body == "none" {
			return nil
		}
		for _, f := range fields {
			r, err := p.ref(f)
			if err != nil {
				return err
			}
			e.Refs = append(e.Refs, r)
		}
		if len(e.Refs) == 0 {
			return p.errorf("expected: %s", usage)
		}
	case ExpectHeld:
		return p.heldBody(e, body, usage)
	case ExpectState:
		if len(fields) == 0 || !slices.Contains([]string{"running", "down", "refused"}, fields[0]) ||
			len(fields) > 2 || len(fields) == 2 && fields[0] != "refused" {
			return p.errorf("expected: %s", usage)
		}
		e.State = fields[0]
		if len(fields) == 2 {
			e.Reason = fields[1]
		}
	case ExpectCauses:
		return p.causesBody(e, fields, usage)
	case ExpectRecord:
		return p.recordBody(e, fields, usage)
	case ExpectVerdict:
		if len(fields) == 0 || fields[0] != "pass" && fields[0] != "violation" || fields[0] == "pass" && len(fields) > 1 {
			return p.errorf("expected: %s", usage)
		}
		for _, c := range fields[1:] {
			if !slices.Contains(criteria, spec.Criterion(c)) {
				return p.errorf("expect verdict: violation %s: unknown criterion %s; expected some of %s", c, c, criteriaList())
			}
		}
		e.Verdict, e.Criteria = fields[0], fields[1:]
	}
	return nil
}

// criteria are the criteria a run's verdict can name: the oracle's, the live substrate's
// MODEL_DIVERGENCE and a simulator panic's PANIC.
var criteria = []spec.Criterion{spec.CritS1, spec.CritS2, spec.CritS3, spec.CritS7, spec.CritS8, spec.CritS9,
	spec.CritRecreation, spec.CritStruct12, spec.CritStruct14, spec.CritStruct15, spec.CritOverexpression,
	spec.CritOverRefusal, spec.CritHost, spec.CritLiveness, spec.CritRestartInvisibility, spec.CritReference,
	spec.CritSessionRYW, spec.CritSessionMR, spec.CritSessionWFR, spec.CritSessionCoverage, spec.CritSessionToken,
	spec.CritSessionDamaged, "MODEL_DIVERGENCE", "PANIC"}

// Criteria returns the criteria a run's verdict can name, in the order the documentation lists
// them: the oracle's, then MODEL_DIVERGENCE and PANIC.
func Criteria() []spec.Criterion { return slices.Clone(criteria) }

// criteriaList names the criteria, comma-separated.
func criteriaList() string {
	names := make([]string, len(criteria))
	for i, c := range criteria {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// heldBody parses "none" or "HEAD [(N held)] [deliverable | blocked by B; B...]".
func (p *parser) heldBody(e *Expect, body, usage string) error {
	if body == "none" {
		e.None = true
		return nil
	}
	m := heldBody.FindStringSubmatch(body)
	if m == nil {
		return p.errorf("expected: %s", usage)
	}
	var err error
	if e.Record, err = p.ref(m[1]); err != nil {
		return err
	}
	if m[2] != "" {
		e.Count, _ = strconv.Atoi(m[2])
	}
	if m[3] == "" {
		return nil
	}
	e.BlockersGiven = true
	if m[3] == "deliverable" {
		return nil
	}
	for _, b := range strings.Split(m[4], ";") {
		b = strings.Join(strings.Fields(b), " ")
		if !blockerForm.MatchString(b) {
			return p.errorf("blocker %q: expected CHAN required=N settled=N|none (CHAN as topic/partition)", b)
		}
		e.Blockers = append(e.Blockers, b)
	}
	return nil
}

// causesBody parses "none" or the header's pairs "CHAN@POS ...".
func (p *parser) causesBody(e *Expect, fields []string, usage string) error {
	if len(fields) == 1 && fields[0] == "none" {
		e.Causes = []string{}
		return nil
	}
	if len(fields) == 0 {
		return p.errorf("expected: %s", usage)
	}
	for _, f := range fields {
		if _, ok := parseCoord(f); !ok {
			return p.errorf("cause %q: expected TOPIC[#N]/PARTITION@OFFSET", f)
		}
		e.Causes = append(e.Causes, f)
	}
	return nil
}

// recordBody parses "[key=K] [value=V] [ts=MICROS]".
func (p *parser) recordBody(e *Expect, fields []string, usage string) error {
	args, err := p.keyValues(fields, "expect record", "key", "value", "ts")
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return p.errorf("expected: %s", usage)
	}
	if v, ok := args["key"]; ok {
		e.Key = &v
	}
	if v, ok := args["value"]; ok {
		e.Value = &v
	}
	if v, ok := args["ts"]; ok {
		n, err := p.atoi64("ts", v, 0)
		if err != nil {
			return err
		}
		e.TSMicros = &n
	}
	return nil
}

// ref parses a record reference: TOPIC[#N]/PART@OFF[:LABEL], TOPIC:LABEL or LABEL.
func (p *parser) ref(s string) (Ref, error) {
	bad := p.errorf("record %q: expected TOPIC/PARTITION@OFFSET, TOPIC/PARTITION@OFFSET:LABEL, TOPIC:LABEL or LABEL", s)
	if strings.Contains(s, "/") {
		coord, label, _ := strings.Cut(s, ":")
		r, ok := parseCoord(coord)
		if !ok || label != "" && !validLabel(label) {
			return Ref{}, bad
		}
		r.Label, r.Text = label, s
		return r, p.knownTopic("record", r.Topic)
	}
	if topic, label, ok := strings.Cut(s, ":"); ok {
		if !validLabel(label) {
			return Ref{}, bad
		}
		return Ref{Text: s, Topic: topic, Label: label}, p.knownTopic("record", topic)
	}
	if !validLabel(s) {
		return Ref{}, bad
	}
	return Ref{Text: s, Label: s}, nil
}

package scenariofile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Sessions in scenario files: a session declaration, read models, and the session actions.
//
//	session clients=3 writes=orders,payments [txn=40] [abort=30] [patience=5] [token-entries=64] [token-bytes=4096] [held-reads=16] [browse-reads=8]
//	model orders partitions=view0+view0b/view1 [own-only]
//	session-write client=1 topic=orders [partition=1] [txn=commit|abort]
//	session-read client=1 model=orders [replica=1]
//	token-damage client=1 how=truncated|trailing-byte|bad-version
//
// A model's partitions are separated by "/", each partition's replicas by "+".

// maxSessionClients bounds a session line's clients (each is a simulated actor with a token).
const maxSessionClients = 10_000

// sessionVerbs are the session actions.
var sessionVerbs = map[string]spec.ActionKind{
	"session-write": spec.ActSessionWrite, "session-read": spec.ActSessionRead, "token-damage": spec.ActTokenDamage,
}

// parseSession parses the session declaration line.
func (p *parser) parseSession(words []string) error {
	if p.f.Scenario.Session != nil {
		return p.errorf("session: declared twice")
	}
	args, err := p.keyValues(words, "session", "clients", "writes", "txn", "abort", "patience", "token-entries", "token-bytes", "held-reads", "browse-reads")
	if err != nil {
		return err
	}
	if err := p.require(args, "session", "clients", "writes"); err != nil {
		return err
	}
	s := &spec.SessionSpec{}
	if s.Writes, err = p.topicList("writes", args["writes"]); err != nil {
		return err
	}
	if len(s.Writes) == 0 {
		return p.errorf("session: writes=: expected the external topics the write tier writes to")
	}
	for _, t := range s.Writes {
		if !p.topic(t).External {
			return p.errorf("writes=%s: topic %s is not external: the write tier writes to external topics", args["writes"], t)
		}
	}
	p.sessionLine = p.line
	ints := []struct {
		key      string
		dst      *int
		min, max int
	}{{"clients", &s.Clients, 1, maxSessionClients}, {"txn", &s.TxnPct, 0, 100}, {"abort", &s.AbortPct, 0, 100},
		{"patience", &s.Patience, 1, 1 << 20}, {"token-entries", &s.TokenEntriesMax, 1, 1 << 20},
		{"token-bytes", &s.TokenBytesMax, 2, 1 << 30}, {"held-reads", &s.HeldReadWeight, 0, 1 << 20},
		{"browse-reads", &s.BrowseReadWeight, 0, 1 << 20}}
	for _, f := range ints {
		v, ok := args[f.key]
		if !ok {
			continue
		}
		n, err := p.atoi(f.key, v, f.min)
		if err != nil {
			return err
		}
		if n > f.max {
			return p.errorf("session: %s=%d is above %d", f.key, n, f.max)
		}
		*f.dst = n
	}
	p.f.Scenario.Session = s
	return nil
}

// parseModel parses a read model line; it must follow the session line.
func (p *parser) parseModel(words []string) error {
	s := p.f.Scenario.Session
	if s == nil {
		return p.errorf("model: expected the session line first")
	}
	if len(words) == 0 || strings.Contains(words[0], "=") {
		return p.errorf("expected: model NAME partitions=A+B/C [own-only]")
	}
	if err := p.checkName("read model", words[0]); err != nil {
		return err
	}
	if slices.ContainsFunc(s.Models, func(m spec.ReadModelSpec) bool { return m.Name == words[0] }) {
		return p.errorf("model %q declared twice", words[0])
	}
	m := spec.ReadModelSpec{Name: words[0]}
	rest := words[1:]
	if n := len(rest); n > 0 && rest[n-1] == "own-only" {
		m.OwnCoordinatesOnly, rest = true, rest[:n-1]
	}
	args, err := p.keyValues(rest, "model", "partitions")
	if err != nil {
		return err
	}
	if err := p.require(args, "model", "partitions"); err != nil {
		return err
	}
	for _, part := range strings.Split(args["partitions"], "/") {
		replicas := strings.Split(part, "+")
		if slices.Contains(replicas, "") {
			return p.errorf("model %s: partitions=%s: expected the processes of each partition joined by +, the partitions separated by /", m.Name, args["partitions"])
		}
		for _, r := range replicas {
			if err := p.knownProcess("model", r); err != nil {
				return err
			}
		}
		m.Partitions = append(m.Partitions, replicas)
	}
	s.Models = append(s.Models, m)
	return nil
}

// parseSessionAction parses one session action line.
func (p *parser) parseSessionAction(k spec.ActionKind, verb string, words []string) (spec.ScriptedAction, error) {
	a := spec.ScriptedAction{Kind: k, Session: &spec.SessionAction{}}
	if p.f.Scenario.Session == nil {
		return a, p.errorf("%s: expected the session line first", verb)
	}
	allowed := map[spec.ActionKind][]string{
		spec.ActSessionWrite: {"client", "topic", "partition", "txn"},
		spec.ActSessionRead:  {"client", "model", "replica"},
		spec.ActTokenDamage:  {"client", "how"},
	}[k]
	args, err := p.keyValues(words, verb, allowed...)
	if err != nil {
		return a, err
	}
	if err := p.require(args, verb, allowed[:2]...); err != nil {
		return a, err
	}
	clients := p.f.Scenario.Session.Clients
	if a.Session.Client, err = p.atoiMax("client", args["client"], 0, maxSessionClients-1); err != nil {
		return a, err
	}
	if a.Session.Client >= clients {
		return a, p.errorf("client=%d: the session line declares %d client(s), numbered 0..%d", a.Session.Client, clients, clients-1)
	}
	switch k {
	case spec.ActSessionWrite:
		return a, p.sessionWriteArgs(&a, args)
	case spec.ActSessionRead:
		a.Session.Model = args["model"]
		if !slices.ContainsFunc(p.f.Scenario.Session.Models, func(m spec.ReadModelSpec) bool { return m.Name == a.Session.Model }) {
			var names []string
			for _, m := range p.f.Scenario.Session.Models {
				names = append(names, m.Name)
			}
			return a, p.errorf("session-read: model=%s: expected a declared model (declared: %s)", a.Session.Model, strings.Join(names, ", "))
		}
		if v, ok := args["replica"]; ok {
			a.Session.Replica, err = p.atoiMax("replica", v, 0, spec.MaxProcesses-1)
		}
		return a, err
	}
	for d := spec.TokenTruncated; d <= spec.TokenBadVersion; d++ {
		if d.String() == args["how"] {
			a.Session.Damage = d
			return a, nil
		}
	}
	return a, p.errorf("token-damage: how=%q: expected truncated, trailing-byte or bad-version", args["how"])
}

// sessionWriteArgs fills a session write's target and transaction outcome.
func (p *parser) sessionWriteArgs(a *spec.ScriptedAction, args map[string]string) error {
	a.Topic = args["topic"]
	if err := p.knownTopic("topic", a.Topic); err != nil {
		return err
	}
	if writes := p.f.Scenario.Session.Writes; !slices.Contains(writes, a.Topic) {
		return p.errorf("session-write: topic=%s: expected a topic of the session line's writes=%s", a.Topic, strings.Join(writes, ","))
	}
	if v, ok := args["partition"]; ok {
		n, err := p.atoiMax("partition", v, 0, spec.MaxTopicPartitions-1)
		if err != nil {
			return err
		}
		a.Partition = int32(n)
		if err := p.checkPartition("partition="+v, a.Topic, a.Partition); err != nil {
			return err
		}
	}
	switch args["txn"] {
	case "":
	case "commit", "abort":
		a.Session.Txn, a.Session.Commit = true, args["txn"] == "commit"
	default:
		return p.errorf("session-write: txn=%q: expected commit or abort", args["txn"])
	}
	return nil
}

// formatSession renders the session declaration and model lines ("" without sessions).
func formatSession(s *spec.SessionSpec) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session clients=%d writes=%s", s.Clients, strings.Join(s.Writes, ","))
	for _, f := range []struct {
		key string
		v   int
	}{{"txn", s.TxnPct}, {"abort", s.AbortPct}, {"patience", s.Patience},
		{"token-entries", s.TokenEntriesMax}, {"token-bytes", s.TokenBytesMax}, {"held-reads", s.HeldReadWeight},
		{"browse-reads", s.BrowseReadWeight}} {
		if f.v != 0 {
			b.WriteString(" " + f.key + "=" + strconv.Itoa(f.v))
		}
	}
	b.WriteString("\n")
	for _, m := range s.Models {
		parts := make([]string, len(m.Partitions))
		for i, r := range m.Partitions {
			parts[i] = strings.Join(r, "+")
		}
		fmt.Fprintf(&b, "model %s partitions=%s", m.Name, strings.Join(parts, "/"))
		if m.OwnCoordinatesOnly {
			b.WriteString(" own-only")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// formatSessionAction renders a session action's line; ok is false for any other action.
func formatSessionAction(a spec.ScriptedAction) (line string, ok bool) {
	s := a.Session
	if s == nil {
		s = &spec.SessionAction{}
	}
	switch a.Kind {
	case spec.ActSessionWrite:
		line = fmt.Sprintf("session-write client=%d topic=%s", s.Client, a.Topic)
		if a.Partition != 0 {
			line += fmt.Sprintf(" partition=%d", a.Partition)
		}
		if s.Txn {
			line += map[bool]string{true: " txn=commit", false: " txn=abort"}[s.Commit]
		}
	case spec.ActSessionRead:
		line = fmt.Sprintf("session-read client=%d model=%s", s.Client, s.Model)
		if s.Replica != 0 {
			line += fmt.Sprintf(" replica=%d", s.Replica)
		}
	case spec.ActTokenDamage:
		line = fmt.Sprintf("token-damage client=%d how=%s", s.Client, s.Damage)
	default:
		return "", false
	}
	return line, true
}

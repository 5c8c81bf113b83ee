package scenariofile

import (
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Script actions, one per line: a verb (sim.ActionKind's trace name; "produce" is short for
// "produce-plain"), then a process name for the process actions, then key=value arguments.
// FORMAT.md "Actions" lists them with an example each.

// processVerbs are the actions on one process: "VERB PROCESS [args]".
var processVerbs = map[string]spec.ActionKind{
	"feed": spec.ActFeed, "drain": spec.ActDrain, "commit": spec.ActCommit, "crash": spec.ActCrash,
	"stop": spec.ActStop, "start": spec.ActStart, "rewind": spec.ActRewind, "redeclare": spec.ActRedeclare,
	"migrate": spec.ActMigrate, "zombie": spec.ActZombie, "commit-crash": spec.ActCommitCrash,
}

// worldVerbs are the actions on the world: producers, transactions, truncation, topics.
var worldVerbs = map[string]spec.ActionKind{
	"produce": spec.ActProducePlain, "produce-plain": spec.ActProducePlain,
	"produce-stamped": spec.ActProduceStamped, "produce-corrupt": spec.ActProduceCorrupt,
	"txn-abort": spec.ActTxnAbort, "txn-open": spec.ActTxnOpen, "txn-close": spec.ActTxnClose,
	"delete-records": spec.ActDeleteRecords, "retention": spec.ActRetention,
	"delete-topic": spec.ActDeleteTopic, "recreate-topic": spec.ActRecreateTopic,
}

// parseAction parses one action line into its action and how many times it repeats (feed n=N).
func (p *parser) parseAction(words []string) (int, []spec.ScriptedAction, error) {
	verb := words[0]
	if k, ok := processVerbs[verb]; ok {
		if len(words) < 2 || strings.Contains(words[1], "=") {
			return 0, nil, p.errorf("%s: expected a process name after the verb", verb)
		}
		if err := p.knownProcess(verb, words[1]); err != nil {
			return 0, nil, err
		}
		a := spec.ScriptedAction{Kind: k, Process: words[1]}
		n, err := p.processArgs(&a, words[2:])
		return n, []spec.ScriptedAction{a}, err
	}
	if k, ok := worldVerbs[verb]; ok {
		a := spec.ScriptedAction{Kind: k}
		err := p.worldArgs(&a, verb, words[1:])
		return 1, []spec.ScriptedAction{a}, err
	}
	if k, ok := sessionVerbs[verb]; ok { // session_file.go
		a, err := p.parseSessionAction(k, verb, words[1:])
		return 1, []spec.ScriptedAction{a}, err
	}
	return 0, nil, p.errorf("unknown line %q: expected topic, process, settings, expect or an action (%s)", verb, verbList())
}

// verbList lists every action verb, sorted.
func verbList() string {
	var vs []string
	for v := range processVerbs {
		vs = append(vs, v)
	}
	for v := range worldVerbs {
		vs = append(vs, v)
	}
	for v := range sessionVerbs {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return strings.Join(vs, ", ")
}

// processArgs parses the arguments of a process action.
func (p *parser) processArgs(a *spec.ScriptedAction, words []string) (int, error) {
	verb := a.Kind.String()
	allowed := map[spec.ActionKind][]string{
		spec.ActFeed: {"topic", "n"}, spec.ActRewind: {"topic", "offset"}, spec.ActRedeclare: {"add", "remove"},
		spec.ActCommitCrash: {"calls"},
	}[a.Kind]
	args, err := p.keyValues(words, verb, allowed...)
	if err != nil {
		return 0, err
	}
	n := 1
	switch a.Kind {
	case spec.ActFeed:
		if v, ok := args["topic"]; ok {
			if err := p.knownTopic("topic", v); err != nil {
				return 0, err
			}
			a.Topic = v
		}
		if v, ok := args["n"]; ok {
			if n, err = p.atoi("n", v, 1); err != nil {
				return 0, err
			}
		}
	case spec.ActRewind:
		if err := p.require(args, verb, "topic", "offset"); err != nil {
			return 0, err
		}
		if err := p.knownTopic("topic", args["topic"]); err != nil {
			return 0, err
		}
		a.Topic = args["topic"]
		if a.Offset, err = p.atoi64("offset", args["offset"], 0); err != nil {
			return 0, err
		}
	case spec.ActCommitCrash:
		a.Calls = 1
		if v, ok := args["calls"]; ok {
			if a.Calls, err = p.atoiMax("calls", v, 1, 16); err != nil {
				return 0, err
			}
		}
	case spec.ActRedeclare:
		add, hasAdd := args["add"]
		remove, hasRemove := args["remove"]
		if hasAdd == hasRemove {
			return 0, p.errorf("redeclare: expected exactly one of add=TOPIC or remove=TOPIC")
		}
		a.Topic, a.Add = remove, hasAdd
		if hasAdd {
			a.Topic = add
		}
		if err := p.knownTopic("topic", a.Topic); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// worldArgs parses the arguments of a world action.
func (p *parser) worldArgs(a *spec.ScriptedAction, verb string, words []string) error {
	switch a.Kind {
	case spec.ActRetention:
		if len(words) > 0 {
			return p.errorf("retention: expected no arguments")
		}
		return nil
	case spec.ActTxnClose:
		if len(words) != 1 || words[0] != "commit" && words[0] != "abort" {
			return p.errorf("txn-close: expected txn-close commit or txn-close abort")
		}
		a.Commit = words[0] == "commit"
		return nil
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		if len(words) != 1 || strings.Contains(words[0], "=") {
			return p.errorf("%s: expected %s TOPIC", verb, verb)
		}
		a.Topic = words[0]
		if err := p.knownTopic("topic", a.Topic); err != nil {
			return err
		}
		if !p.topic(a.Topic).External {
			return p.errorf("%s %s: topic %s is not external: only external topics are deleted or recreated", verb, a.Topic, a.Topic)
		}
		return nil
	case spec.ActDeleteRecords:
		if len(words) == 0 {
			return nil // a step that finds nothing to truncate (recorded scripts)
		}
	}
	allowed := map[spec.ActionKind][]string{
		spec.ActProducePlain:   {"topic", "partition", "key", "value", "causes", "header"},
		spec.ActProduceStamped: {"topic", "partition", "observe"},
		spec.ActProduceCorrupt: {"topic", "partition", "key", "value", "causes", "header", "headers"},
		spec.ActTxnAbort:       {"topic", "partition", "records"},
		spec.ActTxnOpen:        {"topic", "partition", "records"},
		spec.ActDeleteRecords:  {"topic", "partition", "before"},
	}[a.Kind]
	args, err := p.keyValues(words, verb, allowed...)
	if err != nil {
		return err
	}
	if err := p.require(args, verb, "topic"); err != nil {
		return err
	}
	return p.topicArgs(a, args)
}

// topicArgs fills a world action's topic, partition and kind-specific arguments.
func (p *parser) topicArgs(a *spec.ScriptedAction, args map[string]string) error {
	if err := p.knownTopic("topic", args["topic"]); err != nil {
		return err
	}
	a.Topic = args["topic"]
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
	var err error
	switch a.Kind {
	case spec.ActProducePlain, spec.ActProduceCorrupt:
		if err := p.produceArgs(a, args); err != nil {
			return err
		}
		return p.corruptHeaders(a, args)
	case spec.ActProduceStamped:
		if err := p.require(args, "produce-stamped", "observe"); err != nil {
			return err
		}
		return p.observeArg(a, args["observe"])
	case spec.ActTxnAbort, spec.ActTxnOpen:
		if v, ok := args["records"]; ok {
			a.Records, err = p.atoi("records", v, 1)
		}
	case spec.ActDeleteRecords:
		if err := p.require(args, "delete-records", "before"); err != nil {
			return err
		}
		a.Offset, err = p.atoi64("before", args["before"], 0)
	}
	return err
}

// observeArg fills a stamped produce's observed record from "TOPIC[#INCARNATION]/PARTITION@OFFSET":
// without #INCARNATION the topic's current incarnation, with it that incarnation (0 as first
// created, 1 after one recreation, ...), which may be deleted or replaced by then.
func (p *parser) observeArg(a *spec.ScriptedAction, v string) error {
	ref, ok := parseCoord(v)
	if !ok {
		return p.errorf("observe=%s: expected one TOPIC[#INCARNATION]/PARTITION@OFFSET", v)
	}
	if err := p.knownTopic("observe", ref.Topic); err != nil {
		return err
	}
	if err := p.checkPartition("observe="+v, ref.Topic, ref.Part); err != nil {
		return err
	}
	a.Observe = spec.CauseRef{Topic: ref.Topic, Partition: ref.Part, Position: ref.Position}
	if strings.Contains(v, "#") {
		a.ObserveIncarnation = ref.Incarn + 1
	}
	return nil
}

// produceArgs fills a plain or forged produce: key, value (a label, or 0xHEX raw bytes), causes
// (a forged header naming exactly these pairs; "none" for the empty frontier) or header (raw
// header bytes in hex).
func (p *parser) produceArgs(a *spec.ScriptedAction, args map[string]string) error {
	var err error
	if v, ok := args["key"]; ok {
		if a.Key, err = p.payload("key", v, false); err != nil {
			return err
		}
	}
	if v, ok := args["value"]; ok {
		if a.Value, err = p.payload("value", v, true); err != nil {
			return err
		}
	}
	if v, ok := args["causes"]; ok {
		a.Causes = []spec.CauseRef{}
		if v != "none" {
			if a.Causes, err = p.causeRefs("causes", v); err != nil {
				return err
			}
		}
	}
	if v, ok := args["header"]; ok {
		if a.Causes != nil {
			return p.errorf("produce: expected causes= or header=, not both")
		}
		if a.Header, err = hex.DecodeString(v); err != nil || len(a.Header) == 0 {
			return p.errorf("header=%s: expected the header value as hex bytes, such as 01 00 written 0100", v)
		}
	}
	return nil
}

// corruptHeaders fills a produce-corrupt's headers=V,...: each V is a parsley.causes value as hex,
// empty for a value of no bytes, or null for a null one. A chosen run records the corruption it
// drew this way.
func (p *parser) corruptHeaders(a *spec.ScriptedAction, args map[string]string) error {
	v, ok := args["headers"]
	if !ok {
		return nil
	}
	if a.Causes != nil || a.Header != nil {
		return p.errorf("produce-corrupt: expected headers= or causes= or header=, not two of them")
	}
	a.Headers = [][]byte{}
	for _, part := range strings.Split(v, ",") {
		switch part {
		case "null":
			a.Headers = append(a.Headers, nil)
		case "empty":
			a.Headers = append(a.Headers, []byte{})
		default:
			b, err := hex.DecodeString(part)
			if err != nil || len(b) == 0 {
				return p.errorf("headers=%s: expected comma-separated header values, each hex bytes, empty or null", v)
			}
			a.Headers = append(a.Headers, b)
		}
	}
	return nil
}

// payload parses a key or value: 0xHEX is raw bytes; anything else is a label. A value label is
// stored after a zero hop-count byte, as every external record's value starts (spec.Forward).
func (p *parser) payload(key, v string, isValue bool) ([]byte, error) {
	if rest, ok := strings.CutPrefix(v, "0x"); ok {
		b, err := hex.DecodeString(rest)
		if err != nil {
			return nil, p.errorf("%s=%s: expected 0x and hex bytes", key, v)
		}
		return b, nil
	}
	if !validLabel(v) {
		return nil, p.errorf("%s=%s: expected a label of letters, digits, '_', '-', '.' or '\\'', or 0xHEX", key, v)
	}
	if isValue {
		return append([]byte{0}, v...), nil
	}
	return []byte(v), nil
}

// validLabel reports whether s can be a record label.
func validLabel(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !isNameRune(r) && r != '\'' })
}

// causeRefs parses "TOPIC/PARTITION@OFFSET,..." against the declared topics.
func (p *parser) causeRefs(key, v string) ([]spec.CauseRef, error) {
	var out []spec.CauseRef
	for _, item := range strings.Split(v, ",") {
		ref, ok := parseCoord(item)
		if !ok || ref.Incarn != 0 {
			return nil, p.errorf("%s=%s: expected TOPIC/PARTITION@OFFSET pairs separated by commas, offsets 0..%d (the topic's current incarnation)", key, v, int64(math.MaxInt64-1))
		}
		if err := p.knownTopic(key, ref.Topic); err != nil {
			return nil, err
		}
		if err := p.checkPartition(key+"="+item, ref.Topic, ref.Part); err != nil {
			return nil, err
		}
		out = append(out, spec.CauseRef{Topic: ref.Topic, Partition: ref.Part, Position: ref.Position})
	}
	return out, nil
}

// require checks that every key was given.
func (p *parser) require(args map[string]string, verb string, keys ...string) error {
	for _, k := range keys {
		if _, ok := args[k]; !ok {
			return p.errorf("%s: expected %s=...", verb, k)
		}
	}
	return nil
}

// parseCoord parses "TOPIC[#INCARNATION]/PARTITION@OFFSET".
func parseCoord(s string) (Ref, bool) {
	chanPart, pos, ok := strings.Cut(s, "@")
	if !ok {
		return Ref{}, false
	}
	r, ok := parseChan(chanPart)
	if !ok {
		return Ref{}, false
	}
	n, err := strconv.ParseInt(pos, 10, 64)
	if err != nil || n < 0 || n == math.MaxInt64 { // 2^63-1 is reserved: no header may name it
		return Ref{}, false
	}
	r.Position, r.Coord, r.Text = n, true, s
	return r, true
}

// parseChan parses "TOPIC[#INCARNATION]/PARTITION".
func parseChan(s string) (Ref, bool) {
	topic, part, ok := strings.Cut(s, "/")
	if !ok || topic == "" {
		return Ref{}, false
	}
	var r Ref
	if name, inc, has := strings.Cut(topic, "#"); has {
		n, err := strconv.Atoi(inc)
		if err != nil || n < 0 || n > MaxActions { // a topic has at most one incarnation per action
			return Ref{}, false
		}
		topic, r.Incarn = name, n
	}
	n, err := strconv.Atoi(part)
	if err != nil || n < 0 || n >= spec.MaxTopicPartitions {
		return Ref{}, false
	}
	r.Topic, r.Part = topic, int32(n)
	return r, true
}

package scenariofile

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// storySeparator starts a file's recorded story, as datadriven's "----" starts a directive's
// expected output.
const storySeparator = "----"

// Limits of one scenario file (FORMAT.md "Limits"), beside the world's own (spec.MaxProcesses,
// spec.MaxChannels, spec.MaxSubscriptions, spec.MaxSteps): a file over one is refused at the line
// that crosses it, before the world is built.
const (
	// MaxFileBytes bounds the whole file, its recorded story included.
	MaxFileBytes = 64 << 20
	// MaxScriptLines bounds the lines before the story (the "----" line).
	MaxScriptLines = 100_000
	// MaxActions bounds the script's actions, each repeat of "feed P n=N" and each record of a
	// "records=N" transaction counted.
	MaxActions = 100_000
	// MaxRestartChecks bounds the "expect restart-invisible" lines: each runs the script twice
	// more.
	MaxRestartChecks = 16
)

// LoadFile reads and parses a scenario file.
func LoadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &spec.FileError{File: path, Msg: "is a directory: expected a scenario file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &spec.FileError{File: path, Msg: "reading: " + err.Error()}
	}
	return ParseFile(path, data)
}

// ParseFile parses a scenario file's contents; path names the file in errors and gives the
// scenario its name (the base name without ".txt"). Every error is a *spec.FileError naming the line
// and what was expected.
func ParseFile(path string, data []byte) (*File, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".txt")
	p := &parser{f: &File{Path: path, Settings: DefaultFileSettings(),
		Scenario: &spec.Scenario{Name: name}}, topics: map[string]bool{}, procs: map[string]bool{}, normalized: map[string]string{}}
	if len(data) > MaxFileBytes {
		return nil, p.errorf("the file is larger than %d bytes (the limit)", MaxFileBytes)
	}
	lines := strings.Split(string(data), "\n")
	var body strings.Builder
	opening := true
	for i, raw := range lines {
		p.line = i + 1
		if j := strings.IndexFunc(raw, func(r rune) bool { return r == utf8.RuneError || r == 0 }); j >= 0 && !isText(raw) {
			return nil, p.errorf("byte %#02x at column %d is not text: expected a scenario file, UTF-8 text", raw[j], j+1)
		}
		line := strings.TrimSpace(raw)
		if line == storySeparator {
			p.f.StoryLine = p.line
			p.f.Story = storyLines(lines[i+1:])
			break
		}
		if p.line > MaxScriptLines && (i < len(lines)-1 || raw != "") {
			return nil, p.errorf("more than %d lines before the story (the limit)", MaxScriptLines)
		}
		if i < len(lines)-1 || raw != "" {
			body.WriteString(raw + "\n")
		}
		if strings.HasPrefix(line, "#") {
			if opening {
				p.f.Comments = append(p.f.Comments, strings.TrimSpace(strings.TrimPrefix(line, "#")))
			}
			continue
		}
		if line == "" {
			continue
		}
		opening = false
		if err := p.parseLine(line); err != nil {
			return nil, err
		}
	}
	p.f.Body = body.String()
	return p.finish()
}

// isText reports whether line is UTF-8 text without NUL bytes.
func isText(line string) bool {
	return utf8.ValidString(line) && !strings.ContainsRune(line, 0)
}

// storyLines returns the recorded story lines, without trailing empty lines.
func storyLines(lines []string) []string {
	out := []string{}
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// parser holds the state of one ParseFile.
type parser struct {
	f      *File
	line   int
	topics map[string]bool
	procs  map[string]bool
	// normalized maps a topic name with '.' read as '_' to the declared name (Kafka refuses two
	// topics that differ only there).
	normalized map[string]string
	// channels, subscriptions and actions count toward the limits; restartChecks counts the
	// expect restart-invisible lines.
	channels, subscriptions, actions, restartChecks int
	// afterLiveness: the "liveness" line was read; expectations from here check the end of the run.
	afterLiveness bool
	// sessionLine is the line of the session declaration (0: none).
	sessionLine int
}

// errorf returns a spec.FileError at the current line.
func (p *parser) errorf(format string, args ...any) error {
	return &spec.FileError{File: p.f.Path, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// parseLine dispatches one non-comment line on its first word.
func (p *parser) parseLine(line string) error {
	words := strings.Fields(line)
	switch words[0] {
	case "topic", "process", "settings", "session", "model":
		if len(p.f.Scenario.Script) > 0 {
			return p.errorf("%q after the first action: declarations (topic, process, settings, session, model) come first", words[0])
		}
	}
	switch words[0] {
	case "topic":
		return p.parseTopic(words[1:])
	case "process":
		return p.parseProcess(words[1:])
	case "settings":
		return p.parseSettings(words[1:])
	case "session":
		return p.parseSession(words[1:]) // session_file.go
	case "model":
		return p.parseModel(words[1:])
	case "expect":
		return p.parseExpect(line)
	case "liveness":
		if len(words) > 1 || p.afterLiveness {
			return p.errorf("liveness: expected the word alone, once, after the last action")
		}
		p.afterLiveness = true
		return nil
	}
	if p.afterLiveness {
		return p.errorf("%q after the liveness line: expected only expect lines there (the liveness phase ends the run)", words[0])
	}
	if len(p.f.Scenario.Topics) == 0 || len(p.f.Scenario.Processes) == 0 {
		return p.errorf("%q before the declarations: expected topic and process lines first", words[0])
	}
	n, acts, err := p.parseAction(words)
	if err != nil {
		return err
	}
	weight := 1
	for _, a := range acts {
		weight = max(weight, a.Records)
	}
	if n > MaxActions || weight > MaxActions || p.actions+n*weight > MaxActions {
		return p.errorf("more than %d actions (the limit; repeats and transaction records count)", MaxActions)
	}
	p.actions += n * weight
	for range n {
		p.f.Scenario.Script = append(p.f.Scenario.Script, acts...)
		for range acts {
			p.f.ActionLines = append(p.f.ActionLines, p.line)
		}
	}
	return nil
}

// finish validates the whole file and marks the expectations that follow the last action.
func (p *parser) finish() (*File, error) {
	p.line = 0
	scn := p.f.Scenario
	if len(scn.Topics) == 0 || len(scn.Processes) == 0 {
		return nil, p.errorf("expected at least one topic line and one process line")
	}
	if len(scn.Script) == 0 {
		return nil, p.errorf("expected at least one action (a scenario file is a script)")
	}
	if scn.Session != nil && len(scn.Session.Models) == 0 {
		p.line = p.sessionLine
		return nil, p.errorf("session: expected at least one model line after it (the read models its clients read)")
	}
	for i := range p.f.Expects {
		e := &p.f.Expects[i]
		if e.Kind == ExpectRestartInvisible && e.After < 0 {
			p.line = e.Line
			return nil, p.errorf("expect restart-invisible must follow an action (the restart goes right after it)")
		}
	}
	if err := scn.Validate(); err != nil {
		return nil, p.errorf("%v", err)
	}
	return p.f, nil
}

// parseTopic parses "topic NAME [partitions=N] [external [deletion-only]]".
func (p *parser) parseTopic(words []string) error {
	if len(words) == 0 || strings.Contains(words[0], "=") {
		return p.errorf("expected: topic NAME [partitions=N] [external [deletion-only]]")
	}
	name := words[0]
	if err := p.checkName("topic", name); err != nil {
		return err
	}
	if p.topics[name] {
		return p.errorf("topic %q declared twice", name)
	}
	norm := strings.ReplaceAll(name, ".", "_")
	if other, ok := p.normalized[norm]; ok {
		return p.errorf("topic %q differs from topic %q only in '.' versus '_', which Kafka refuses (their metric names collide)", name, other)
	}
	t := spec.TopicSpec{Name: name, Partitions: 1}
	for _, w := range words[1:] {
		if w == "external" {
			t.External = true
			continue
		}
		if w == "deletion-only" {
			t.DeletionOnly = true
			continue
		}
		k, v, ok := strings.Cut(w, "=")
		if !ok || k != "partitions" {
			return p.errorf("unexpected %q in topic %s: expected partitions=N, external or deletion-only", w, name)
		}
		n, err := p.atoiMax(k, v, 1, spec.MaxTopicPartitions)
		if err != nil {
			return err
		}
		t.Partitions = n
	}
	if t.DeletionOnly && !t.External {
		return p.errorf("topic %s is deletion-only but not external: only external topics are deleted", name)
	}
	if p.channels += t.Partitions; p.channels > spec.MaxChannels {
		return p.errorf("more than %d channels (partitions over every topic; the limit)", spec.MaxChannels)
	}
	p.normalized[norm] = name
	p.topics[name] = true
	p.f.Scenario.Topics = append(p.f.Scenario.Topics, t)
	return nil
}

// parseProcess parses "process NAME [receives=a,b] [sends=c] [task=N] [hops=N] [fanout=one]".
func (p *parser) parseProcess(words []string) error {
	if len(words) == 0 || strings.Contains(words[0], "=") {
		return p.errorf("expected: process NAME receives=T,... [sends=T,...] [task=N] [hops=N] [fanout=one]")
	}
	ps := spec.ProcessSpec{Name: words[0]}
	if err := p.checkName("process", ps.Name); err != nil {
		return err
	}
	if p.procs[ps.Name] {
		return p.errorf("process %q declared twice", ps.Name)
	}
	if len(p.procs) == spec.MaxProcesses {
		return p.errorf("more than %d processes (the limit)", spec.MaxProcesses)
	}
	args, err := p.keyValues(words[1:], "process", "receives", "sends", "task", "hops", "fanout")
	if err != nil {
		return err
	}
	if ps.Receives, err = p.topicList("receives", args["receives"]); err != nil {
		return err
	}
	if ps.Sends, err = p.topicList("sends", args["sends"]); err != nil {
		return err
	}
	for _, t := range ps.Sends {
		if p.topic(t).External {
			return p.errorf("sends=%s: topic %s is external (written by the script's producers): a process sends only to topics declared without external", args["sends"], t)
		}
	}
	if p.subscriptions += len(ps.Receives) + len(ps.Sends); p.subscriptions > spec.MaxSubscriptions {
		return p.errorf("more than %d received and sent topics over every process (the limit)", spec.MaxSubscriptions)
	}
	if v, ok := args["task"]; ok {
		if ps.Task, err = p.atoiMax("task", v, 0, spec.MaxTopicPartitions-1); err != nil {
			return err
		}
	}
	if v, ok := args["hops"]; ok {
		if ps.HopsMax, err = p.atoiMax("hops", v, 1, maxHops); err != nil {
			return err
		}
	}
	if v, ok := args["fanout"]; ok {
		if v != "one" && v != "all" {
			return p.errorf("fanout=%s: expected fanout=one or fanout=all", v)
		}
		ps.FanoutOne = v == "one"
	}
	p.procs[ps.Name] = true
	p.f.Scenario.Processes = append(p.f.Scenario.Processes, ps)
	return nil
}

// parseSettings parses "settings key=value ...".
func (p *parser) parseSettings(words []string) error {
	args, err := p.keyValues(words, "settings", "seed", "swarm", "liveness", "step-us", "retention-us", "retention-records", "hops", "budget")
	if err != nil {
		return err
	}
	s := &p.f.Settings
	if s.Given == nil {
		s.Given = map[string]bool{}
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := args[k]
		if s.Given[k] {
			return p.errorf("%s= given twice in settings (an earlier settings line gives it)", k)
		}
		s.Given[k] = true
		var err error
		switch k {
		case "seed":
			s.Seed, err = p.atou(k, v)
		case "swarm":
			s.Swarm, err = p.atou(k, v)
		case "liveness":
			s.LivenessStepsMax, err = p.atoiMax(k, v, 0, spec.MaxSteps)
		case "step-us":
			var n int
			n, err = p.atoiMax(k, v, 0, spec.MaxStepMicros)
			s.StepMicros = int64(n)
		case "retention-us":
			var n int
			n, err = p.atoiMax(k, v, 0, spec.MaxSteps*spec.MaxStepMicros)
			s.RetentionMicros = int64(n)
		case "retention-records":
			s.RetentionRecords, err = p.atoiMax(k, v, 0, math.MaxInt32)
		case "hops":
			s.HopsMax, err = p.atoiMax(k, v, 1, maxHops)
		case "budget":
			s.BudgetBytes, err = p.atoiMax(k, v, 0, math.MaxInt32)
			p.f.Scenario.MetadataBudgetBytes = s.BudgetBytes
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keyValues parses key=value words, rejecting unknown and repeated keys.
func (p *parser) keyValues(words []string, what string, keys ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !slices.Contains(keys, k) {
			if len(keys) == 0 {
				return nil, p.errorf("unexpected %q in %s: it takes no arguments", w, what)
			}
			return nil, p.errorf("unexpected %q in %s: expected one of %s=...", w, what, strings.Join(keys, "=, "))
		}
		if _, dup := out[k]; dup {
			return nil, p.errorf("%s= given twice in %s", k, what)
		}
		out[k] = v
	}
	return out, nil
}

// topicList parses a comma-separated list of declared topics.
func (p *parser) topicList(key, v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	names := strings.Split(v, ",")
	for i, n := range names {
		if err := p.knownTopic(key, n); err != nil {
			return nil, err
		}
		if slices.Contains(names[:i], n) {
			return nil, p.errorf("%s=%s: topic %s is listed twice", key, v, n)
		}
	}
	return names, nil
}

// topic returns the declared topic name.
func (p *parser) topic(name string) spec.TopicSpec {
	i := slices.IndexFunc(p.f.Scenario.Topics, func(t spec.TopicSpec) bool { return t.Name == name })
	return p.f.Scenario.Topics[i]
}

// checkPartition checks that the declared topic has partition part; what names the argument.
func (p *parser) checkPartition(what, topic string, part int32) error {
	if n := p.topic(topic).Partitions; int(part) >= n {
		return p.errorf("%s: topic %s has %s", what, topic, partitionRange(n))
	}
	return nil
}

// partitionRange says which partitions a topic of n has.
func partitionRange(n int) string {
	if n == 1 {
		return "1 partition (only partition 0)"
	}
	return fmt.Sprintf("%d partitions (0..%d)", n, n-1)
}

// knownTopic checks that name is a declared topic.
func (p *parser) knownTopic(key, name string) error {
	if !p.topics[name] {
		if err := p.checkName("topic", name); err != nil {
			return err
		}
		return p.errorf("%s=%s: expected a declared topic (declared: %s)", key, name, strings.Join(p.topicNames(), ", "))
	}
	return nil
}

// knownProcess checks that name is a declared process.
func (p *parser) knownProcess(verb, name string) error {
	if !p.procs[name] {
		if err := p.checkName("process", name); err != nil {
			return err
		}
		var names []string
		for _, s := range p.f.Scenario.Processes {
			names = append(names, s.Name)
		}
		return p.errorf("%s %s: expected a declared process (declared: %s)", verb, name, strings.Join(names, ", "))
	}
	return nil
}

func (p *parser) topicNames() []string {
	var names []string
	for _, t := range p.f.Scenario.Topics {
		names = append(names, t.Name)
	}
	return names
}

// checkName checks a topic, process or read model name by Kafka's rule for topic names
// (substrate.ValidateTopicName): 1 to 249 letters, digits, '_', '-' or '.', and not "." or "..".
func (p *parser) checkName(what, name string) error {
	if substrate.ValidateTopicName(name) != nil {
		shown := name
		if len(shown) > 40 {
			shown = shown[:37] + "..."
		}
		return p.errorf("%s name %q (%d bytes): expected 1-%d letters, digits, '_', '-' or '.', and not \".\" or \"..\" (Kafka's rule for topic names)",
			what, shown, len(name), substrate.MaxTopicNameLen)
	}
	return nil
}

func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
}

// maxHops bounds a forwarding hop count (a record's hop count is one byte of its value).
const maxHops = 255

// atoiMax parses key's value as an integer in minimum..maximum.
func (p *parser) atoiMax(key, v string, minimum, maximum int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < minimum || n > maximum {
		return 0, p.errorf("%s=%s: expected an integer in %d..%d", key, v, minimum, maximum)
	}
	return n, nil
}

// atoi parses key's value as an integer of at least minimum.
func (p *parser) atoi(key, v string, minimum int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < minimum {
		return 0, p.errorf("%s=%s: expected an integer >= %d", key, v, minimum)
	}
	return n, nil
}

// atoi64 parses key's value as a 64-bit integer of at least minimum.
func (p *parser) atoi64(key, v string, minimum int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < minimum {
		return 0, p.errorf("%s=%s: expected an integer >= %d", key, v, minimum)
	}
	return n, nil
}

// atou parses key's value as an unsigned 64-bit integer.
func (p *parser) atou(key, v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, p.errorf("%s=%s: expected an unsigned integer", key, v)
	}
	return n, nil
}

package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

var (
	replayNameRe = regexp.MustCompile(`^[A-Za-z0-9_.\-/]+$`)
	replayHashRe = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// replayParser reads a replay file line by line, keeping the line number for errors.
type replayParser struct {
	file string
	sc   *bufio.Scanner
	line int
	seen map[string]int // header key -> line it appeared on
}

func (p *replayParser) fail(line int, format string, args ...any) error {
	return &spec.FileError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// readFail reports a read error at the line after the last one read.
func (p *replayParser) readFail(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return p.fail(p.line+1, "a line longer than %d bytes (the limit)", maxReplayLine)
	}
	return p.fail(p.line, "reading: %v", err)
}

// next returns the next non-blank, non-comment line, trimmed; ok is false at the end of the file.
func (p *replayParser) next() (string, bool) {
	for p.sc.Scan() {
		p.line++
		text := strings.TrimSpace(p.sc.Text())
		if text != "" && !strings.HasPrefix(text, "#") {
			return text, true
		}
	}
	return "", false
}

// MaxChoices bounds a replay file's choice list: a run of spec.MaxSteps steps records a few
// choices a step, and a file announcing more is refused before anything is read into memory.
const MaxChoices = 16 * spec.MaxSteps

// maxReplayLine bounds one line of a replay file.
const maxReplayLine = 16 << 20

// Parse reads a replay file from rd; file names it in errors.
func Parse(file string, rd io.Reader) (*File, error) {
	p := &replayParser{file: file, sc: bufio.NewScanner(rd), seen: map[string]int{}}
	p.sc.Buffer(make([]byte, 64<<10), maxReplayLine)
	if err := p.header(); err != nil {
		return nil, err
	}
	r := &File{}
	for {
		text, ok := p.next()
		if !ok {
			if err := p.sc.Err(); err != nil {
				return nil, p.readFail(err)
			}
			return nil, p.fail(0, `the file ends before the "choices N" line (expected after the header)`)
		}
		key, value, _ := strings.Cut(text, " ")
		value = strings.TrimSpace(value)
		if prev, dup := p.seen[key]; dup {
			return nil, p.fail(p.line, "%q given twice (first on line %d)", key, prev)
		}
		p.seen[key] = p.line
		if key == "choices" {
			if err := p.choices(r, value); err != nil {
				return nil, err
			}
			return r, p.required()
		}
		if err := p.field(r, key, value); err != nil {
			return nil, err
		}
	}
}

// header checks the first non-comment line: the magic word and a supported version.
func (p *replayParser) header() error {
	text, ok := p.next()
	if !ok {
		if err := p.sc.Err(); err != nil {
			return p.readFail(err)
		}
		return p.fail(0, "empty file: expected %q", fmt.Sprintf("%s %d", replayMagic, FormatVersion))
	}
	magic, version, _ := strings.Cut(text, " ")
	if magic != replayMagic {
		return p.fail(p.line, "expected %q (a replay file written by simrun --save), got %q",
			fmt.Sprintf("%s %d", replayMagic, FormatVersion), text)
	}
	v, err := strconv.Atoi(strings.TrimSpace(version))
	if err != nil || v != FormatVersion {
		return p.fail(p.line, "unsupported replay format version %q (this simrun reads version %d)",
			strings.TrimSpace(version), FormatVersion)
	}
	return nil
}

// field parses one header line into r.
func (p *replayParser) field(r *File, key, value string) error {
	var err error
	switch key {
	case "scenario":
		r.Scenario, err = p.name(key, value)
	case "sabotage":
		r.Sabotage, err = p.name(key, value)
	case "host-sabotage":
		r.HostSabotage, err = p.name(key, value)
	case "seed":
		r.Seed, err = strconv.ParseUint(value, 10, 64)
		if err != nil {
			return p.fail(p.line, "expected \"seed N\" with N an unsigned 64-bit integer, got %q", value)
		}
	case "steps", "processes":
		n, convErr := strconv.Atoi(value)
		if convErr != nil || n < 0 {
			return p.fail(p.line, "expected %q with N a non-negative integer, got %q", key+" N", value)
		}
		if key == "steps" {
			r.Steps = n
		} else {
			r.Processes = n
		}
	case "verdict":
		if value != "pass" && value != "violation" {
			return p.fail(p.line, `expected "verdict pass" or "verdict violation", got %q`, value)
		}
		r.Verdict = value
	case "hash":
		if !replayHashRe.MatchString(value) {
			return p.fail(p.line, "expected \"hash H\" with H 16 lowercase hex digits, got %q", value)
		}
		r.Hash = value
	default:
		return p.fail(p.line, "unknown header line %q (expected one of scenario, seed, sabotage, host-sabotage, steps, processes, verdict, hash, choices)", key)
	}
	return err
}

func (p *replayParser) name(key, value string) (string, error) {
	if !replayNameRe.MatchString(value) {
		return "", p.fail(p.line, "expected %q followed by a name, got %q", key, value)
	}
	if (key == "sabotage" || key == "host-sabotage") && value == "NONE" {
		return "", nil
	}
	return value, nil
}

// choices parses "choices N" and the N integers that follow, to the end of the file.
func (p *replayParser) choices(r *File, value string) error {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n > MaxChoices {
		return p.fail(p.line, "expected \"choices N\" with N an integer in 0..%d, got %q", MaxChoices, value)
	}
	countLine := p.line
	// The count is only a claim until the choices are read: the list grows with what the file
	// holds, never from the header alone.
	r.Choices = make([]int, 0, min(n, 1<<12))
	for {
		text, ok := p.next()
		if !ok {
			break
		}
		for _, tok := range strings.Fields(text) {
			c, err := strconv.Atoi(tok)
			if err != nil || c < 0 {
				return p.fail(p.line, "expected a choice (an integer ≥ 0), got %q", tok)
			}
			if len(r.Choices) == n {
				return p.fail(p.line, "more choices than the %d announced on line %d", n, countLine)
			}
			r.Choices = append(r.Choices, c)
		}
	}
	if err := p.sc.Err(); err != nil {
		return p.readFail(err)
	}
	if len(r.Choices) != n {
		return p.fail(p.line, "%d choices, but line %d announced %d", len(r.Choices), countLine, n)
	}
	return nil
}

// required checks that the header lines a replay cannot do without were present.
func (p *replayParser) required() error {
	for _, key := range []string{"scenario", "seed"} {
		if _, ok := p.seen[key]; !ok {
			return p.fail(0, "missing the %q header line (expected before \"choices\")", key)
		}
	}
	return nil
}

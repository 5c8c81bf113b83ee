package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	in   *countingReader
	line int
	seen map[string]int // header key -> line it appeared on
}

// countingReader counts the bytes read through it and keeps the last: at the end of the file,
// the file's length and whether its last line ends, which an error about a file that ends too
// soon gives.
type countingReader struct {
	r    io.Reader
	n    int64
	last byte
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	if n > 0 {
		c.last = b[n-1]
	}
	return n, err
}

// truncated describes a file that ended before what it needed: empty, or cut at its length.
func (p *replayParser) truncated() string {
	if p.in.n == 0 {
		return "empty file (0 bytes)"
	}
	return fmt.Sprintf("truncated at byte %d", p.in.n)
}

// quoteMax is the most bytes of a file's text an error quotes.
const quoteMax = 40

// quote quotes s for an error, at most its first quoteMax bytes (cut at a rune boundary), and
// says how long it was when it cut it.
func quote(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	cut := quoteMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// binaryByte returns the offset in s of the first byte that no text file holds (invalid UTF-8,
// or a control character other than a tab), or -1.
func binaryByte(s string) int {
	for i, r := range s {
		if (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) || (unicode.IsControl(r) && r != '\t' && r != '\r') {
			return i
		}
	}
	return -1
}

func (p *replayParser) fail(line int, format string, args ...any) error {
	return &spec.FileError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// failCut is fail for a malformed line, saying so when the file ends inside that line: a file
// cut short ends in a malformed line, and the cut, not the line, is what went wrong.
func (p *replayParser) failCut(format string, args ...any) error {
	line := p.line
	if !p.sc.Scan() && p.sc.Err() == nil && p.in.last != '\n' {
		format += fmt.Sprintf(" (the file ends inside this line, at byte %d: truncated?)", p.in.n)
	}
	return p.fail(line, format, args...)
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
	in := &countingReader{r: rd}
	p := &replayParser{file: file, sc: bufio.NewScanner(in), in: in, seen: map[string]int{}}
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
			return nil, p.fail(0, `%s: the file ends before the "choices N" line (expected after the header)`, p.truncated())
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
		if p.in.n == 0 {
			return p.fail(0, "empty file (0 bytes): expected %q (a replay file written by simrun --save)", replayFirstLine)
		}
		return p.fail(0, "%s: the file ends before its first line %q (it holds only comments or blank lines)", p.truncated(), replayFirstLine)
	}
	magic, version, _ := strings.Cut(text, " ")
	if magic != replayMagic {
		if at := binaryByte(text); at >= 0 {
			return p.fail(p.line, "not a replay file: binary data (byte 0x%02x at column %d), expected %q (a replay file written by simrun --save)",
				text[at], at+1, replayFirstLine)
		}
		return p.fail(p.line, "not a replay file: expected %q (a replay file written by simrun --save), got %s",
			replayFirstLine, quote(text))
	}
	v, err := strconv.Atoi(strings.TrimSpace(version))
	if err != nil || v != FormatVersion {
		return p.fail(p.line, "unsupported replay format version %s (this simrun reads version %d)",
			quote(strings.TrimSpace(version)), FormatVersion)
	}
	return nil
}

// replayFirstLine is the line a replay file starts with (after comments).
var replayFirstLine = fmt.Sprintf("%s %d", replayMagic, FormatVersion)

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
			return p.failCut("expected \"seed N\" with N an unsigned 64-bit integer, got %s", quote(value))
		}
	case "steps", "processes":
		n, convErr := strconv.Atoi(value)
		if convErr != nil || n < 0 {
			return p.failCut("expected %q with N a non-negative integer, got %s", key+" N", quote(value))
		}
		if key == "steps" {
			r.Steps = n
		} else {
			r.Processes = n
		}
	case "verdict":
		if value != "pass" && value != "violation" {
			return p.failCut(`expected "verdict pass" or "verdict violation", got %s`, quote(value))
		}
		r.Verdict = value
	case "hash":
		if !replayHashRe.MatchString(value) {
			return p.failCut("expected \"hash H\" with H 16 lowercase hex digits, got %s", quote(value))
		}
		r.Hash = value
	default:
		return p.failCut("unknown header line %s (expected one of scenario, seed, sabotage, host-sabotage, steps, processes, verdict, hash, choices)", quote(key))
	}
	return err
}

func (p *replayParser) name(key, value string) (string, error) {
	if !replayNameRe.MatchString(value) {
		return "", p.failCut("expected %q followed by a name, got %s", key, quote(value))
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
		return p.failCut("expected \"choices N\" with N an integer in 0..%d, got %s", MaxChoices, quote(value))
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
				return p.failCut("expected a choice (an integer ≥ 0), got %s", quote(tok))
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
		return p.fail(p.line, "the file ends at byte %d after %d choices, but line %d announced %d", p.in.n, len(r.Choices), countLine, n)
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

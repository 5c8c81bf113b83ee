package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/parsleysim/parsleysim/node"
)

// runDecode implements `simrun decode [--json] [--base64] [HEX... | -]`: it decodes one
// parsley.causes header value strictly, as a receiver would. Exit 0 with the causes, 1 when the
// value is undecodable (the finding), 2 on bad usage.
func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "simrun decode"
	fs := newFlagSet(name, decodeUsage)
	asJSON := fs.Bool("json", false, "print the causes (or the refusal) as JSON on stdout")
	asBase64 := fs.Bool("base64", false, "the value is base64 (standard or URL alphabet, padding optional), not hex")
	positional, code, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	if len(positional) == 0 {
		return usageError(stderr, name, "want the value: HEX (or base64 with --base64), or - for stdin")
	}
	if len(positional) > 1 && slices.Contains(positional, "-") {
		return usageError(stderr, name, "- reads the value from stdin and comes alone, got %q", positional)
	}
	text := strings.Join(positional, " ")
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, maxDecodeText+1))
		if err != nil {
			return usageError(stderr, name, "reading stdin: %v", err)
		}
		if len(b) > maxDecodeText {
			return usageError(stderr, name, "stdin holds more than %d bytes: a header value is at most %d bytes (%d as hex)", maxDecodeText, maxDecodeValue, 2*maxDecodeValue)
		}
		text = string(b)
	}
	value, err := parseValue(text, *asBase64)
	if err != nil {
		return usageError(stderr, name, "%v", err)
	}
	if len(value) > maxDecodeValue {
		return usageError(stderr, name, "the value has %d bytes, above the %d-byte limit (Kafka's default largest message)", len(value), maxDecodeValue)
	}
	causes, err := node.Decode(value)
	if err != nil {
		return reportUndecodable(err, *asJSON, stdout, stderr)
	}
	if *asJSON {
		return writeDecodeJSON(stdout, stderr, causesJSON(causes), exitPass)
	}
	for _, c := range causes.Pairs() {
		fmt.Fprintf(stdout, "%s %d %d\n", c.Channel.Topic, c.Channel.Partition, c.Position)
	}
	if causes.IsEmpty() {
		fmt.Fprintln(stderr, "no causes (the empty frontier)")
	}
	return exitPass
}

// decodeUsage is the help text of `simrun decode`.
const decodeUsage = `usage: simrun decode [--json] [--base64] [HEX... | -]

Decodes a parsley.causes header value given as hex (either case, an optional 0x before it,
whitespace ignored, so the bytes may be separate arguments) or base64; '-' reads the value text
from stdin. A value is at most 1 MiB (Kafka's default largest message).

Exit status: 0 decoded, 1 undecodable (the finding: its family, offset and detail), 2 bad usage or
text that is neither hex nor base64.`

// maxDecodeValue bounds a decoded value: no record, header included, is larger than Kafka's
// default message.max.bytes of 1 MiB. maxDecodeText bounds the text read from stdin: the
// value's hex with room for whitespace.
const (
	maxDecodeValue = 1 << 20
	maxDecodeText  = 4 * maxDecodeValue
)

// parseValue turns the command-line text into the header value's bytes. Whitespace is ignored;
// an empty text is an empty (not a null) value.
func parseValue(text string, isBase64 bool) ([]byte, error) {
	compact := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, text)
	if !isBase64 {
		if rest, ok := strings.CutPrefix(strings.ToLower(compact), "0x"); ok {
			compact = rest
		}
		b, err := hex.DecodeString(compact)
		if err != nil {
			return nil, fmt.Errorf("value %q is not hex: %v", abbreviate(text), err)
		}
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(compact); err == nil {
			return b, nil
		}
	}
	_, err := base64.StdEncoding.DecodeString(compact)
	return nil, fmt.Errorf("value %q is not base64: %v", abbreviate(text), err)
}

// abbreviate shortens long input for error messages.
func abbreviate(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:37] + "..."
}

// reportUndecodable prints the refusal and returns exit code 1.
func reportUndecodable(err error, asJSON bool, stdout, stderr io.Writer) int {
	var de *node.DecodeError
	if !errors.As(err, &de) {
		fmt.Fprintf(stderr, "undecodable: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "undecodable: %s: %s\n", de.Family, de.Detail)
	if asJSON {
		return writeDecodeJSON(stdout, stderr, errorJSON{Error: errorBody{Family: string(de.Family), Offset: de.Offset, Detail: de.Detail}}, 1)
	}
	return 1
}

// causeJSON, causesDoc, errorJSON and errorBody are the --json shapes.
type causeJSON struct {
	TopicID   string `json:"topic_id"`
	Partition int32  `json:"partition"`
	Position  int64  `json:"position"`
}

type causesDoc struct {
	Causes []causeJSON `json:"causes"`
}

type errorJSON struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Family string `json:"family"`
	Offset int    `json:"offset"`
	Detail string `json:"detail"`
}

// causesJSON lists the causes in channel order; the empty frontier is an empty list, never null.
func causesJSON(c node.Causes) causesDoc {
	doc := causesDoc{Causes: make([]causeJSON, 0, c.Len())}
	for _, p := range c.Pairs() {
		doc.Causes = append(doc.Causes, causeJSON{p.Channel.Topic.String(), int32(p.Channel.Partition), int64(p.Position)})
	}
	return doc
}

// writeDecodeJSON writes v as one compact line and returns code.
func writeDecodeJSON(stdout, stderr io.Writer, v any, code int) int {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "simrun decode: writing JSON: %v\n", err)
		return 2
	}
	return code
}

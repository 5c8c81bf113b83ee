package wire

import (
	"bytes"
	"encoding/hex"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// h parses hex with spaces and '|' separators.
func h(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(s))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// Topic IDs of the golden vector (SPEC §4.6): A = 01 02 … 10, B = f1 02 … 10.
var (
	topicA = TopicID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}
	topicB = TopicID{0xf1, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}
)

const (
	idA    = "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10"
	idB    = "f1 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10"
	idZero = "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
	golden = "01 02 | " + idA + " | 02 | 02 00 00 00 00 00 00 00 29 | 05 00 00 00 00 00 00 00 07 | " +
		idB + " | 01 | 00 00 00 00 00 00 00 00 09"
)

// TestValidVectors: every valid vector of SPEC §4.6 decodes to its causes, and encoding those
// causes gives the vector back byte for byte.
func TestValidVectors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string
		want  []Cause
	}{
		{"empty frontier", "01 00", nil},
		{"golden", golden, []Cause{{Channel{topicA, 2}, 41}, {Channel{topicA, 5}, 7}, {Channel{topicB, 0}, 9}}},
		{"partition 300 is ac 02", "01 01 | " + idA + " | 01 | ac 02 | 00 00 00 00 00 00 00 01", []Cause{{Channel{topicA, 300}, 1}}},
		{"largest partition", "01 01 | " + idA + " | 01 | ff ff ff ff 07 | 00 00 00 00 00 00 00 00", []Cause{{Channel{topicA, math.MaxInt32}, 0}}},
		{"largest position", "01 01 | " + idA + " | 01 | 00 | 7f ff ff ff ff ff ff fe", []Cause{{Channel{topicA, 0}, PositionMax}}},
		{"topic ID with its sign bit set sorts last", "01 02 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 00 | " + idB + " | 01 | 00 | 00 00 00 00 00 00 00 00",
			[]Cause{{Channel{topicA, 0}, 0}, {Channel{topicB, 0}, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := h(t, tc.value)
			got, r := Decode(in)
			if r != nil {
				t.Fatalf("Decode(%x) refused: %v", in, r)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decode(%x) = %v, want %v", in, got, tc.want)
			}
			if out := Encode(tc.want); !bytes.Equal(out, in) {
				t.Fatalf("Encode(%v) = %x, want %x", tc.want, out, in)
			}
		})
	}
}

// TestGoldenIs63Bytes pins the golden vector's size (SPEC §4.5, §4.6).
func TestGoldenIs63Bytes(t *testing.T) {
	if n := len(h(t, golden)); n != 63 {
		t.Fatalf("golden vector is %d bytes, want 63", n)
	}
}

// TestEncodeSortsAndGroups: the encoder puts causes given in any order into the canonical order.
func TestEncodeSortsAndGroups(t *testing.T) {
	shuffled := []Cause{{Channel{topicB, 0}, 9}, {Channel{topicA, 5}, 7}, {Channel{topicA, 2}, 41}}
	if out, want := Encode(shuffled), h(t, golden); !bytes.Equal(out, want) {
		t.Fatalf("Encode = %x\nwant     %x", out, want)
	}
}

// TestEncodeRefusesWhatNoValueCanSay: Encode panics on a cause no value may carry.
func TestEncodeRefusesWhatNoValueCanSay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		causes []Cause
	}{
		{"zero topic", []Cause{{Channel{TopicID{}, 0}, 1}}},
		{"negative partition", []Cause{{Channel{topicA, -1}, 1}}},
		{"negative position", []Cause{{Channel{topicA, 0}, -1}}},
		{"reserved position", []Cause{{Channel{topicA, 0}, PositionMax + 1}}},
		{"one channel twice", []Cause{{Channel{topicA, 0}, 1}, {Channel{topicA, 0}, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("Encode(%v) did not panic", tc.causes)
				}
			}()
			Encode(tc.causes)
		})
	}
}

// undecodable lists the undecodable vectors of SPEC §4.7 (numbered as there), with the family and
// offset a left-to-right read meets first.
var undecodable = []struct {
	name   string
	value  string
	family Family
	offset int
}{
	{"2 empty value", "", Truncated, 0},
	{"4 version 0x00", "00 00", UnknownVersion, 0},
	{"4 version 0x02 (pre-release grouped)", "02 00", UnknownVersion, 0},
	{"4 version 0x03", "03 00", UnknownVersion, 0},
	{"4 version 0x09", "09 00", UnknownVersion, 0},
	{"4 version 0x81", "81 00", UnknownVersion, 0},
	{"4 version 0xff", "ff", UnknownVersion, 0},
	{"5 flat-grammar empty frontier", "01 00 00 00 00", TrailingBytes, 2},
	{"6 flat-grammar one entry", "01 | 00 00 00 01 | " + idA + " | 00 00 00 02 | 00 00 00 00 00 00 00 29", TrailingBytes, 2},
	{"7 truncated inside a position", "01 01 | " + idA + " | 01 | 00 | 00 00 00 00 00", Truncated, 20},
	{"7 truncated inside a topic ID", "01 01 | 01 02 03 04 05", Truncated, 2},
	{"7 truncated inside a varint", "01 ac", Truncated, 1},
	{"7 truncated below the version byte", "", Truncated, 0},
	{"8 one surplus byte", golden + " 00", TrailingBytes, 63},
	{"9 negative position", "01 01 | " + idA + " | 01 | 00 | ff ff ff ff ff ff ff fb", NegativePosition, 20},
	{"10 position 2^63-1", "01 01 | " + idA + " | 01 | 00 | 7f ff ff ff ff ff ff ff", ReservedPosition, 20},
	{"11 all-zero topic ID", "01 01 | " + idZero + " | 01 | 00 | 00 00 00 00 00 00 00 01", ZeroTopicID, 2},
	{"11 all-zero topic ID after another", "01 02 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 01 | " + idZero + " | 01 | 00 | 00 00 00 00 00 00 00 01", ZeroTopicID, 28},
	{"12 topics descending", "01 02 | " + idB + " | 01 | 00 | 00 00 00 00 00 00 00 01 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 01", TopicsNotAscending, 28},
	{"12 one topic in two groups", "01 02 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 01 | " + idA + " | 01 | 01 | 00 00 00 00 00 00 00 01", TopicsNotAscending, 28},
	{"13 partitions descending", "01 01 | " + idA + " | 02 | 05 00 00 00 00 00 00 00 07 | 02 00 00 00 00 00 00 00 29", PartitionsNotAscending, 28},
	{"13 partition duplicated", "01 01 | " + idA + " | 02 | 05 00 00 00 00 00 00 00 07 | 05 00 00 00 00 00 00 00 29", PartitionsNotAscending, 28},
	{"14 partition count 0", "01 01 | " + idA + " | 00", ZeroPartitions, 18},
	{"15 topic count overstated", "01 02 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 01", Truncated, 28},
	{"15 topic count understated", "01 00 | " + idA + " | 01 | 00 | 00 00 00 00 00 00 00 01", TrailingBytes, 2},
	{"15 partition count overstated", "01 01 | " + idA + " | 02 | 00 | 00 00 00 00 00 00 00 01", Truncated, 28},
	{"15 partition count understated", "01 01 | " + idA + " | 01 | 00 00 00 00 00 00 00 00 01 | 01 00 00 00 00 00 00 00 02", TrailingBytes, 28},
	{"16 non-minimal topic count 81 00", "01 81 00", NonMinimalVarint, 1},
	{"16 non-minimal partition 85 00", "01 01 | " + idA + " | 01 | 85 00 | 00 00 00 00 00 00 00 01", NonMinimalVarint, 19},
	{"16 non-minimal partition count 81 00", "01 01 | " + idA + " | 81 00 | 00 | 00 00 00 00 00 00 00 01", NonMinimalVarint, 18},
	{"17 fifth-byte alias 85 80 80 80 10", "01 01 | " + idA + " | 01 | 85 80 80 80 10 | 00 00 00 00 00 00 00 01", VarintOverflow, 19},
	{"17 over range 85 80 80 80 08", "01 01 | " + idA + " | 01 | 85 80 80 80 08 | 00 00 00 00 00 00 00 01", VarintOverflow, 19},
	{"17 six bytes 85 80 80 80 80 01", "01 01 | " + idA + " | 01 | 85 80 80 80 80 01 | 00 00 00 00 00 00 00 01", VarintOverflow, 19},
	{"17 topic count over range", "01 85 80 80 80 10", VarintOverflow, 1},
}

// TestUndecodableVectors: every undecodable vector of SPEC §4.7 is refused with its family and
// offset, and yields no causes.
func TestUndecodableVectors(t *testing.T) {
	for _, tc := range undecodable {
		t.Run(tc.name, func(t *testing.T) {
			in := h(t, tc.value)
			got, r := Decode(in)
			if r == nil {
				t.Fatalf("Decode(%x) = %v, want a %s refusal", in, got, tc.family)
			}
			if got != nil {
				t.Fatalf("Decode(%x) refused and returned causes %v", in, got)
			}
			if r.Family != tc.family || r.Offset != tc.offset {
				t.Fatalf("Decode(%x) refused %s at byte %d (%v), want %s at byte %d", in, r.Family, r.Offset, r, tc.family, tc.offset)
			}
			if r.Detail == "" {
				t.Fatalf("Decode(%x): a refusal without a detail", in)
			}
		})
	}
}

// TestHeaderVectors: SPEC §4.7 items 1 and 3 and §4.1, on a record's header list.
func TestHeaderVectors(t *testing.T) {
	valid := h(t, golden)
	other := Header{Key: "parsley.other", Value: []byte{0x63}}
	for _, tc := range []struct {
		name    string
		headers []Header
		present bool
		family  Family // "" when it decodes
	}{
		{"no header: no causes", nil, false, ""},
		{"other headers only", []Header{other, {Key: "app", Value: nil}}, false, ""},
		{"one header among others", []Header{other, {Key: HeaderKey, Value: valid}}, true, ""},
		{"1 null value", []Header{{Key: HeaderKey, Value: nil}}, true, NullValue},
		{"2 empty value", []Header{{Key: HeaderKey, Value: []byte{}}}, true, Truncated},
		{"3 two valid headers", []Header{{Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: valid}}, true, DuplicateHeader},
		{"3 a valid and an undecodable header", []Header{{Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: nil}}, true, DuplicateHeader},
		{"key compared exactly", []Header{{Key: "Parsley.causes", Value: nil}, {Key: HeaderKey + " ", Value: nil}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			causes, present, r := DecodeHeaders(nil, tc.headers)
			if present != tc.present {
				t.Fatalf("present = %v, want %v", present, tc.present)
			}
			switch {
			case tc.family == "" && r != nil:
				t.Fatalf("refused %v, want it to decode", r)
			case tc.family != "" && (r == nil || r.Family != tc.family):
				t.Fatalf("got %v, %v; want a %s refusal", causes, r, tc.family)
			case tc.family != "" && causes != nil:
				t.Fatalf("refused and returned causes %v", causes)
			case tc.family == "" && tc.present && len(causes) != 3:
				t.Fatalf("decoded %v, want the golden vector's 3 causes", causes)
			}
		})
	}
}

// TestEveryPrefixOfAValidValueIsTruncated: cutting a valid value anywhere leaves a truncated one.
func TestEveryPrefixOfAValidValueIsTruncated(t *testing.T) {
	in := h(t, golden)
	for n := 0; n < len(in); n++ {
		if _, r := Decode(in[:n]); r == nil || r.Family != Truncated {
			t.Fatalf("Decode of the first %d golden bytes = %v, want truncated", n, r)
		}
	}
}

// TestImportsOnlyTheStandardLibrary: the package shares no code with the node it judges, nor
// with anything else in the module.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the reference decoder may import only the standard library", f, path)
			}
		}
	}
}

// TestAppendDecodeKeepsWhatDstHeld: decoding into a list already holding a cause appends what
// Decode returns after it, and leaves the list as it was on a refusal; DecodeHeaders does the
// same for every header vector.
func TestAppendDecodeKeepsWhatDstHeld(t *testing.T) {
	held := Cause{Channel{topicB, 7}, 3}
	values := [][]byte{h(t, golden), h(t, "01 00"), nil}
	for _, tc := range undecodable {
		values = append(values, h(t, tc.value))
	}
	for _, in := range values {
		want, wantR := Decode(in)
		dst := make([]Cause, 1, 8) // spare room: the causes go into dst's storage
		dst[0] = held
		got, r := AppendDecode(dst, in)
		if (r == nil) != (wantR == nil) || (r != nil && *r != *wantR) {
			t.Fatalf("AppendDecode(%x) refused %v, Decode %v", in, r, wantR)
		}
		if len(got) != 1+len(want) || got[0] != held || !reflect.DeepEqual(got[1:], append([]Cause{}, want...)) {
			t.Fatalf("AppendDecode(%x) = %v, want %v then %v", in, got, held, want)
		}
		hs := []Header{{Key: "app", Value: []byte{1}}, {Key: HeaderKey, Value: in}}
		wantH, presentH, wantHR := DecodeHeaders(nil, hs)
		gotH, present, rH := DecodeHeaders(dst[:1], hs)
		if present != presentH || (rH == nil) != (wantHR == nil) || len(gotH) != 1+len(wantH) || gotH[0] != held ||
			!reflect.DeepEqual(gotH[1:], append([]Cause{}, wantH...)) {
			t.Fatalf("DecodeHeaders(dst, %x) = %v, %v, %v; DecodeHeaders(nil, ...) %v, %v, %v", in, gotH, present, rH, wantH, presentH, wantHR)
		}
	}
}

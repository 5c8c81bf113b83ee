package node

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Hex spellings of the SPEC §4.6 topics, the all-zero ID and positions, for readable vectors.
const (
	hexA    = "0102030405060708090a0b0c0d0e0f10" // topic A of the golden vector
	hexB    = "f102030405060708090a0b0c0d0e0f10" // topic B: sorts after A, 0xf1 > 0x01 unsigned
	hexZero = "00000000000000000000000000000000"
	hexOne  = "0000000000000000000000000000000" + "1" // smallest non-zero ID
	pos0    = "0000000000000000"
	pos1    = "0000000000000001"
	pos5    = "0000000000000005"
	pos41   = "0000000000000029"
	posMax  = "7ffffffffffffffe" // 2^63−2, the largest legal position
	posRes  = "7fffffffffffffff" // 2^63−1, reserved
	posNeg5 = "fffffffffffffffb" // −5
	golden  = "01 02" + hexA + "02 02" + pos41 + "05 0000000000000007" + hexB + "01 00 0000000000000009"
)

// idOf parses a 32-digit hex topic ID.
func idOf(t testing.TB, s string) TopicID {
	return TopicID(mustHex(t, s))
}

// TestDecodeValidVectors decodes every valid vector of SPEC §4.6 (and a few more boundary
// spellings), checks the frontier, and checks that re-encoding is byte-identical.
func TestDecodeValidVectors(t *testing.T) {
	a, b, one := idOf(t, hexA), idOf(t, hexB), idOf(t, hexOne)
	cases := []struct {
		name string
		hex  string
		want []Cause
	}{
		{"empty frontier", "01 00", nil},
		{"golden", golden, []Cause{{Channel{a, 2}, 41}, {Channel{a, 5}, 7}, {Channel{b, 0}, 9}}},
		{"partition 300 is ac 02", "01 01" + hexA + "01 ac02" + pos5, []Cause{{Channel{a, 300}, 5}}},
		{"partition 127 is one byte", "01 01" + hexA + "01 7f" + pos5, []Cause{{Channel{a, 127}, 5}}},
		{"partition 128 is 80 01", "01 01" + hexA + "01 8001" + pos5, []Cause{{Channel{a, 128}, 5}}},
		{"partition 16384 is 80 80 01", "01 01" + hexA + "01 808001" + pos5, []Cause{{Channel{a, 16384}, 5}}},
		{"largest partition 2^31-1", "01 01" + hexA + "01 ffffffff07" + pos0, []Cause{{Channel{a, 1<<31 - 1}, 0}}},
		{"largest position 2^63-2", "01 01" + hexA + "01 00" + posMax, []Cause{{Channel{a, 0}, MaxOffset - 1}}},
		{"smallest non-zero topic", "01 01" + hexOne + "01 00" + pos1, []Cause{{Channel{one, 0}, 1}}},
		{"two topics, partitions 0 and 2^31-1", "01 02" + hexA + "02 00" + pos1 + "ffffffff07" + pos1 + hexB + "01 03" + pos0,
			[]Cause{{Channel{a, 0}, 1}, {Channel{a, 1<<31 - 1}, 1}, {Channel{b, 3}, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mustHex(t, tc.hex)
			got, err := Decode(in)
			if err != nil {
				t.Fatalf("Decode(%x): %v", in, err)
			}
			if want := CausesOf(tc.want...); !got.Equal(want) || got.Len() != len(tc.want) {
				t.Fatalf("Decode = %v, want %v", got, want)
			}
			if re := Encode(got); !bytes.Equal(re, in) {
				t.Fatalf("re-encoded %x, want %x", re, in)
			}
			if n := EncodedLen(got); n != len(in) {
				t.Fatalf("EncodedLen = %d, want %d", n, len(in))
			}
		})
	}
}

// undecodable is one SPEC §4.7 case: the bytes, the family, and the byte offset (−1: not
// asserted).
type undecodable struct {
	name   string
	value  []byte
	family Family
	offset int
}

// undecodableCases lists every undecodable value of SPEC §4.7 that is a single header value (the
// header-level cases live in header_test.go), with the family of the first violation met in a
// left-to-right parse.
func undecodableCases(t testing.TB) []undecodable {
	h := func(s string) []byte { return mustHex(t, s) }
	one := func(groupBody string) []byte { return h("01 01" + hexA + groupBody) } // one group of topic A
	cases := []undecodable{
		{"null value", nil, FamilyNullValue, 0},
		{"empty value", []byte{}, FamilyTruncated, 0},
		{"flat-grammar empty frontier", h("01 00 00 00 00"), FamilyTrailingBytes, 2},
		{"flat-grammar one entry", h("01 00000001" + hexA + "00000002" + pos41), FamilyTrailingBytes, 2},
		{"truncated inside a position", one("01 02 000000"), FamilyTruncated, 20},
		{"truncated inside a topic ID", h("01 01 010203"), FamilyTruncated, 2},
		{"truncated inside a varint", h("01 ac"), FamilyTruncated, 2},
		{"truncated before partition count", h("01 01" + hexA), FamilyTruncated, 18},
		{"one surplus byte", h(golden + "00"), FamilyTrailingBytes, 63},
		{"negative position", one("01 02" + posNeg5), FamilyNegativePosition, 20},
		{"position -1", one("01 02 ffffffffffffffff"), FamilyNegativePosition, 20},
		{"position 2^63-1", one("01 02" + posRes), FamilyReservedPosition, 20},
		{"all-zero topic ID", h("01 01" + hexZero + "01 00" + pos1), FamilyZeroTopicID, 2},
		{"topics descending", h("01 02" + hexB + "01 00" + pos1 + hexA + "01 00" + pos1), FamilyTopicsNotAscending, 28},
		{"same topic in two groups", h("01 02" + hexA + "01 00" + pos1 + hexA + "01 01" + pos1), FamilyTopicsNotAscending, 28},
		{"partitions descending", one("02 05" + pos1 + "02" + pos1), FamilyPartitionsNotAscending, 28},
		{"partition duplicated", one("02 05" + pos1 + "05" + pos1), FamilyPartitionsNotAscending, 28},
		{"partition count 0", one("00"), FamilyZeroPartitions, 18},
		{"topic count overstated", h("01 02" + hexA + "01 00" + pos1), FamilyTruncated, 28},
		{"topic count understated", h("01 01" + hexA + "01 00" + pos1 + hexB + "01 00" + pos1), FamilyTrailingBytes, 28},
		{"partition count overstated", one("02 00" + pos1), FamilyTruncated, 28},
		{"partition count understated", one("01 00" + pos1 + "01" + pos1), FamilyTrailingBytes, 28},
		{"non-minimal topic count 81 00", h("01 8100"), FamilyNonMinimalVarint, 1},
		{"non-minimal partition 85 00", one("01 8500" + pos1), FamilyNonMinimalVarint, 19},
		{"non-minimal 80 00 zero", h("01 8000"), FamilyNonMinimalVarint, 1},
		{"non-minimal five bytes ending 00", h("01 8080808000"), FamilyNonMinimalVarint, 1},
		{"85 80 80 80 10 is not 05", h("01 8580808010"), FamilyVarintOverflow, 1},
		{"85 80 80 80 08 (2^31+5)", h("01 8580808008"), FamilyVarintOverflow, 1},
		{"six-byte varint", h("01 858080808001"), FamilyVarintOverflow, 1},
		{"2^32-1", h("01 ffffffff0f"), FamilyVarintOverflow, 1},
		{"overflowing partition", one("01 8580808010" + pos1), FamilyVarintOverflow, 19},
		{"overflowing partition count", one("8580808010 00" + pos1), FamilyVarintOverflow, 18},
	}
	for _, v := range []byte{0x00, 0x02, 0x03, 0x09, 0x81, 0xff} {
		cases = append(cases, undecodable{"version " + hexByte(v), []byte{v, 0x00}, FamilyUnknownVersion, 0})
	}
	// The pre-release grouped grammar used 0x02: a body valid under 0x01 is still refused.
	cases = append(cases, undecodable{"version 02 with a valid body", append([]byte{0x02}, h(golden)[1:]...), FamilyUnknownVersion, 0})
	return cases
}

func hexByte(b byte) string {
	return string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&15])
}

func TestDecodeUndecodableVectors(t *testing.T) {
	for _, tc := range undecodableCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			assertUndecodable(t, tc)
		})
	}
}

// assertUndecodable checks that Decode and DecodeInto refuse tc with its family and offset,
// yield no causes, and say something about the bad value.
func assertUndecodable(t *testing.T, tc undecodable) {
	t.Helper()
	got, err := Decode(tc.value)
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("Decode(%x) = %v, %v; want a *DecodeError", tc.value, got, err)
	}
	if de.Family != tc.family || (tc.offset >= 0 && de.Offset != tc.offset) {
		t.Fatalf("Decode(%x): %v; want family %s at byte %d", tc.value, de, tc.family, tc.offset)
	}
	if de.Detail == "" || !strings.HasPrefix(de.Error(), string(tc.family)+" at byte ") {
		t.Fatalf("Decode(%x): error %q lacks family or detail", tc.value, de.Error())
	}
	if !got.IsEmpty() {
		t.Fatalf("Decode(%x) returned partial causes %v with its error", tc.value, got)
	}
	dst := fxFrontier(2, 2)
	if err := DecodeInto(&dst, tc.value); err == nil || !dst.IsEmpty() {
		t.Fatalf("DecodeInto(%x) = %v and left %v; want an error and no causes", tc.value, err, dst)
	}
}

// TestDecodeFirstViolationWins checks the family when several rules break: the first violation
// met in a left-to-right parse names it.
func TestDecodeFirstViolationWins(t *testing.T) {
	h := func(s string) []byte { return mustHex(t, s) }
	cases := []undecodable{
		{"unknown version before truncation", h("02"), FamilyUnknownVersion, 0},
		{"unknown version before non-minimal count", h("ff 8100"), FamilyUnknownVersion, 0},
		{"non-minimal count before trailing bytes", h("01 8100 0000"), FamilyNonMinimalVarint, 1},
		{"zero topic before trailing bytes", h("01 01" + hexZero + "01 00" + pos1 + "ff"), FamilyZeroTopicID, 2},
		{"zero topic in second group (also not ascending)", h("01 02" + hexA + "01 00" + pos1 + hexZero + "01 00" + pos1), FamilyZeroTopicID, 28},
		{"descending topics before zero partitions", h("01 02" + hexB + "01 00" + pos1 + hexA + "00"), FamilyTopicsNotAscending, 28},
		{"zero partitions before descending topics", h("01 02" + hexB + "00" + hexA + "01 00" + pos1), FamilyZeroPartitions, 18},
		{"negative position before descending topics", h("01 02" + hexB + "01 00" + posNeg5 + hexA + "01 00" + pos1), FamilyNegativePosition, 20},
		{"descending partitions before a reserved position", h("01 01" + hexA + "02 05" + pos1 + "02" + posRes), FamilyPartitionsNotAscending, 28},
		{"descending partitions before truncation", h("01 01" + hexA + "02 05" + pos1 + "02 00"), FamilyPartitionsNotAscending, 28},
		{"non-minimal partition before negative position", h("01 01" + hexA + "01 8500" + posNeg5), FamilyNonMinimalVarint, 19},
		{"overflow before truncation", h("01 01" + hexA + "01 8580808010"), FamilyVarintOverflow, 19},
		{"reserved position before overstated topic count", h("01 03" + hexA + "01 00" + posRes), FamilyReservedPosition, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertUndecodable(t, tc) })
	}
}

// TestDecodeAllocationIsBoundedByInput checks that a claimed count never sizes an allocation:
// 2^31−1 topics (or partitions) claimed in a few bytes fail as truncated after allocating no more
// than the error itself.
func TestDecodeAllocationIsBoundedByInput(t *testing.T) {
	cases := map[string][]byte{
		"2^31-1 topics in 6 bytes":       mustHex(t, "01 ffffffff07"),
		"2^31-1 partitions in one group": mustHex(t, "01 01"+hexA+"ffffffff07"),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			bytesPerRun := allocatedBytes(100, func() { _, err = Decode(in) })
			var de *DecodeError
			if !errors.As(err, &de) || de.Family != FamilyTruncated {
				t.Fatalf("Decode(%x) = %v, want truncated", in, err)
			}
			if bytesPerRun > 512 {
				t.Fatalf("Decode(%x) allocated %d bytes a call; the input justifies none", in, bytesPerRun)
			}
			if allocs := testing.AllocsPerRun(100, func() { _, _ = Decode(in) }); allocs > 4 {
				t.Fatalf("Decode(%x) made %.0f allocations a call, want only the error's", in, allocs)
			}
		})
	}
}

// allocatedBytes returns the heap bytes f allocates a call, averaged over runs.
func allocatedBytes(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	f() // warm up
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// TestDecodeIntoReusedBufferDoesNotAllocate checks the hot-path form: decoding valid values into a
// frontier whose storage is already large enough allocates nothing.
func TestDecodeIntoReusedBufferDoesNotAllocate(t *testing.T) {
	values := [][]byte{mustHex(t, golden), mustHex(t, "01 00"), Encode(fxFrontier(4, 16)), Encode(fxFrontier(64, 1))}
	for _, in := range values {
		var dst Causes
		if err := DecodeInto(&dst, in); err != nil {
			t.Fatal(err)
		}
		want := dst.Clone()
		allocs := testing.AllocsPerRun(100, func() {
			if err := DecodeInto(&dst, in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("DecodeInto a reused buffer (%d entries): %.1f allocs, want 0", want.Len(), allocs)
		}
		if !dst.Equal(want) {
			t.Fatalf("DecodeInto the reused buffer gave %v, want %v", dst, want)
		}
	}
}

// TestDecodeReservesOnce checks that Decode sizes its result from the input in one allocation.
func TestDecodeReservesOnce(t *testing.T) {
	for _, c := range []Causes{fxFrontier(1, 64), fxFrontier(64, 1), fxFrontier(3, 5)} {
		in := Encode(c)
		if allocs := testing.AllocsPerRun(50, func() { _, _ = Decode(in) }); allocs != 1 {
			t.Errorf("Decode of %d entries: %.1f allocs, want 1", c.Len(), allocs)
		}
	}
}

func TestAppendEncodeAppends(t *testing.T) {
	c := CausesOf(Cause{Channel{idOf(t, hexA), 300}, 5})
	prefix := []byte("xyz")
	got := AppendEncode(prefix, c)
	want := append([]byte("xyz"), mustHex(t, "01 01"+hexA+"01 ac02"+pos5)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendEncode = %x, want %x", got, want)
	}
	if got := Encode(Causes{}); !bytes.Equal(got, []byte{1, 0}) {
		t.Fatalf("Encode(empty) = %x, want 0100", got)
	}
	if allocs := testing.AllocsPerRun(50, func() { _ = AppendEncode(got[:0], Causes{}) }); allocs != 0 {
		t.Fatalf("AppendEncode into capacity allocated %.1f", allocs)
	}
}

func TestDecodeErrorNamesTheValue(t *testing.T) {
	cases := map[string]string{
		"ff00":                             "0xff",
		"01 01" + hexA + "01 02" + posNeg5: "-5",
		"01 01" + hexA + "02 05" + pos1 + "02" + pos1:           "partition 2 does not follow 5",
		"01 02" + hexB + "01 00" + pos1 + hexA + "01 00" + pos1: "01020304-0506-0708-090a-0b0c0d0e0f10",
	}
	for in, want := range cases {
		_, err := Decode(mustHex(t, in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) error %v does not mention %q", in, err, want)
		}
	}
}

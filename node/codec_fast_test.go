package node

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// checkFastMatchesStrict holds decodeFast to the strict parser on one input: whatever the fast
// path accepts, the strict parser accepts with the same frontier; whatever the strict parser
// accepts, the fast path accepts too unless the input holds a varint of three or more bytes (which
// it leaves to the strict parser by design); and DecodeInto, fast path and fallback together,
// gives exactly the strict answer, error included. The fast path runs into a buffer with stale
// contents, as it does on a reused frontier. It returns whether the input is valid.
func checkFastMatchesStrict(t interface{ Fatalf(string, ...any) }, in []byte) bool {
	var strict Causes
	strictErr := decodeInto(&strict, in)
	fast := CausesOf(Cause{fxChannel(7, 7), 7}, Cause{fxChannel(8, 8), 8})
	if need := decodeRoom(in); cap(fast.pairs) < need {
		fast.pairs = slices.Grow(fast.pairs, need)
	}
	n, fastOK := decodeFast(fast.pairs, in)
	if fastOK {
		fast.pairs = fast.pairs[:n]
	}
	if fastOK && (strictErr != nil || !fast.Equal(strict)) {
		t.Fatalf("input %x: fast path accepted %v, strict parser %v, %v", in, fast, strict, strictErr)
	}
	if !fastOK && strictErr == nil && !hasLongVarint(strict) {
		t.Fatalf("input %x: fast path refused what the strict parser accepts as %v", in, strict)
	}
	if one, ok := decodeOne(in); ok && (strictErr != nil || !(Causes{pairs: one[:]}).Equal(strict)) {
		t.Fatalf("input %x: the one-entry path accepted %v, strict parser %v, %v", in, one[:], strict, strictErr)
	}
	if dec, err := Decode(in); (err == nil) != (strictErr == nil) || err != nil && err.Error() != strictErr.Error() || err == nil && !dec.Equal(strict) {
		t.Fatalf("input %x: Decode gave %v, %v; strict parser %v, %v", in, dec, err, strict, strictErr)
	}
	got := fast
	err := DecodeInto(&got, in)
	if strictErr != nil {
		if err == nil || err.Error() != strictErr.Error() || !got.IsEmpty() {
			t.Fatalf("input %x: DecodeInto gave %v, %v; strict parser refuses: %v", in, got, err, strictErr)
		}
	} else if err != nil || !got.Equal(strict) {
		t.Fatalf("input %x: DecodeInto gave %v, %v; strict parser %v", in, got, err, strict)
	}
	return strictErr == nil
}

// hasLongVarint reports whether the canonical encoding of c spells any varint (topic count,
// partition count or partition) in three or more bytes, that is, any of them is 16384 or more.
func hasLongVarint(c Causes) bool {
	if countTopics(c) >= 1<<14 {
		return true
	}
	for i := 0; i < c.Len(); {
		j := i
		for j < c.Len() && c.At(j).Channel.Topic == c.At(i).Channel.Topic {
			if c.At(j).Channel.Partition >= 1<<14 {
				return true
			}
			j++
		}
		if j-i >= 1<<14 {
			return true
		}
		i = j
	}
	return false
}

// TestDecodeFastMatchesStrict: on valid encodings and on near misses (a few bytes flipped, set,
// dropped or inserted), checkFastMatchesStrict holds. Both outcomes must occur, or the property
// checked nothing.
func TestDecodeFastMatchesStrict(t *testing.T) {
	accepted, refused := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		in := Encode(genFrontier().Draw(t, "frontier"))
		if rapid.Bool().Draw(t, "mutated") {
			in = mutate(t, in)
		}
		if checkFastMatchesStrict(t, in) {
			accepted++
		} else {
			refused++
		}
	})
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d: the property needs both", accepted, refused)
	}
}

// TestDecodeFastWideGroups covers the two-byte counts the random frontiers never reach: a topic
// with 200 and one with 20000 partitions, 200 topics, each valid and with the bytes around
// the first partition count damaged in turn.
func TestDecodeFastWideGroups(t *testing.T) {
	for _, c := range []Causes{fxFrontier(1, 200), fxFrontier(1, 20000), fxFrontier(200, 1)} {
		in := Encode(c)
		if !checkFastMatchesStrict(t, in) {
			t.Fatalf("valid frontier of %d entries refused", c.Len())
		}
		countAt := 1 + varintLen(uint32(countTopics(c))) + topicIDBytes
		for i := countAt - 1; i < countAt+3; i++ {
			for _, v := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
				bad := append([]byte(nil), in...)
				bad[i] = v
				checkFastMatchesStrict(t, bad)
			}
		}
	}
}

// TestDecodeFastMatchesStrictOnCorpus runs the differential check over the fuzz seed corpus (every
// SPEC §4.6–§4.7 vector) and over every prefix of each, so each truncation point is covered.
func TestDecodeFastMatchesStrictOnCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/fuzz/FuzzDecode/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed corpus: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in := corpusBytes(t, raw)
		for n := 0; n <= len(in); n++ {
			checkFastMatchesStrict(t, in[:n])
		}
	}
}

// corpusBytes parses a "go test fuzz v1" file holding one []byte("...") value.
func corpusBytes(t *testing.T, raw []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
		!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("unexpected corpus file %q", raw)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("corpus value %q: %v", lines[1], err)
	}
	return []byte(s)
}

package node

import (
	"encoding/binary"
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
	if oneEntry(in) && (strictErr != nil || strict.Len() != 1) {
		t.Fatalf("input %x: the one-entry path accepted it, strict parser %v, %v", in, strict, strictErr)
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
		for j < c.Len() && c.Pairs()[j].Channel.Topic == c.Pairs()[i].Channel.Topic {
			if c.Pairs()[j].Channel.Partition >= 1<<14 {
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

// genSimpleFrontier draws a frontier that decodeSame can decode a repeat of: distinct topics,
// partitions below 0x80 (the boundary included); up to 40 entries, or now and then 130 to 140
// (an entry count of two bytes).
func genSimpleFrontier() *rapid.Generator[Causes] {
	return rapid.Custom(func(t *rapid.T) Causes {
		var c Causes
		if rapid.IntRange(0, 5).Draw(t, "long") == 0 {
			for n := rapid.IntRange(130, 140).Draw(t, "entries"); c.Len() < n; {
				id := TopicID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "topic bytes"))
				id[15] |= 1 // not zero
				ch := Channel{id, Partition(rapid.SampledFrom([]int32{0, 0x7f}).Draw(t, "partition"))}
				if !slices.ContainsFunc(c.pairs, func(p Cause) bool { return p.Channel.Topic == id }) {
					c.Merge(ch, genPosition().Draw(t, "position"))
				}
			}
			return c
		}
		for range rapid.IntRange(0, 40).Draw(t, "entries") {
			ch := Channel{genTopic().Draw(t, "topic"), Partition(rapid.SampledFrom([]int32{0, 1, 2, 0x7f}).Draw(t, "partition"))}
			if _, ok := c.search(ch); !ok && !slices.ContainsFunc(c.pairs, func(p Cause) bool { return p.Channel.Topic == ch.Topic }) {
				c.Merge(ch, genPosition().Draw(t, "position"))
			}
		}
		return c
	})
}

// repeatList draws a frontier naming list's channels with new positions, or, half the time, list
// changed by one channel: one dropped, one added, or one's partition or topic ID moved a little
// (often to a channel that breaks the list's order or simplicity).
func repeatList(t *rapid.T, list []Cause) Causes {
	pairs := slices.Clone(list)
	for k := range pairs {
		pairs[k].Position = genPosition().Draw(t, "position")
	}
	k := rapid.IntRange(0, len(pairs)-1).Draw(t, "changed")
	switch rapid.IntRange(0, 7).Draw(t, "change") {
	case 0:
		pairs = slices.Delete(pairs, k, k+1)
	case 1:
		pairs = append(pairs, Cause{genChannel().Draw(t, "added"), 1})
	case 2:
		pairs[k].Channel.Partition = Partition(rapid.SampledFrom([]int32{0, 1, 0x7f, 0x80, 300}).Draw(t, "partition"))
	case 3:
		pairs[k].Channel.Topic[rapid.IntRange(0, 15).Draw(t, "byte")] ^= 1
		if pairs[k].Channel.Topic.IsZero() {
			pairs[k].Channel.Topic[0] = 1
		}
	}
	return CausesOf(pairs...) // a channel moved onto another keeps the higher position
}

// overPositions are 8-byte positions the wire refuses: 2^63−1, 2^63 and 2^64−1.
var overPositions = []uint64{1<<63 - 1, 1 << 63, 1<<64 - 1}

// plantPosition writes pos into group k's position when value has the layout of a value naming a
// simple list of n entries (a one- or two-byte entry count, then n groups), else does nothing.
func plantPosition(value []byte, n, k int, pos uint64) {
	off := 2
	if n >= 0x80 {
		off = 3
	}
	if len(value) != off+n*simpleGroupBytes {
		return
	}
	binary.BigEndian.PutUint64(value[off+k*simpleGroupBytes+topicIDBytes+2:], pos)
}

// TestDecodeSameLongList: a list of 130 entries (an entry count of two bytes) decodes by
// decodeSame as by the strict parser, and a position of 2^63−1 or more in any of its groups is
// refused by both.
func TestDecodeSameLongList(t *testing.T) {
	var list []Cause
	for k := range 130 {
		list = append(list, Cause{etCh(byte(k+1), Partition(k%2*0x7f)), Offset(k)})
	}
	in := Encode(CausesOf(list...))
	room := make([]Cause, len(list))
	if !simpleList(list) || !decodeSame(room, in, list) || !(Causes{pairs: room}).Equal(CausesOf(list...)) {
		t.Fatalf("decodeSame of a 130-entry list: %v", room)
	}
	for _, k := range []int{0, 77, 129} {
		for _, pos := range overPositions {
			bad := slices.Clone(in)
			plantPosition(bad, len(list), k, pos)
			if decodeSame(room, bad, list) {
				t.Fatalf("decodeSame accepted position %d in group %d", pos, k)
			}
			if _, err := Decode(bad); err == nil {
				t.Fatalf("the strict parser accepted position %d in group %d", pos, k)
			}
		}
	}
}

// TestDecodeSameMatchesStrict holds decodeSame to the strict parser: on a value naming a list's
// channels (with new positions), or the list changed by a channel, either perhaps with a position
// of 2^63−1 or more planted in a group, or with a few bytes damaged, whatever decodeSame accepts the strict parser accepts with the same frontier, whose
// channels are the list's; and whenever the strict parser accepts a value naming exactly a simple
// list's channels, decodeSame accepts it. Both outcomes must occur.
func TestDecodeSameMatchesStrict(t *testing.T) {
	accepted, refused := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		list := rapid.OneOf(genSimpleFrontier(), genFrontier()).Draw(t, "list").pairs
		if len(list) == 0 {
			return
		}
		in := Encode(repeatList(t, list))
		if rapid.IntRange(0, 3).Draw(t, "over") == 0 {
			plantPosition(in, len(list), rapid.IntRange(0, len(list)-1).Draw(t, "over group"),
				rapid.SampledFrom(overPositions).Draw(t, "over position"))
		}
		if rapid.Bool().Draw(t, "mutated") {
			in = mutate(t, in)
		}
		var strict Causes
		strictErr := decodeInto(&strict, in)
		room := make([]Cause, len(list))
		for k := range room {
			room[k] = Cause{fxChannel(9, 9), 9} // stale contents, as in a chunk's room
		}
		ok := simpleList(list) && decodeSame(room, in, list)
		if ok && (strictErr != nil || !(Causes{pairs: room}).Equal(strict) || !sameChannels(room, list)) {
			t.Fatalf("input %x, list %v: decodeSame accepted %v, strict parser %v, %v", in, list, room, strict, strictErr)
		}
		if !ok && simpleList(list) && strictErr == nil && sameChannels(strict.pairs, list) {
			t.Fatalf("input %x: decodeSame refused what the strict parser accepts as %v, the list's channels", in, strict)
		}
		if ok {
			accepted++
		} else {
			refused++
		}
	})
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d: the property needs both", accepted, refused)
	}
}

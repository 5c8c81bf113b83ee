package session

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"pgregory.net/rapid"
)

// topicA, topicB and topicC name three channels' topics; B sorts after A by its first byte 0xf1.
var (
	topicA = node.TopicID{0x01, 15: 0x10}
	topicB = node.TopicID{0xf1, 15: 0x10}
	topicC = node.TopicID{0x7f, 15: 0x01}
)

// at builds one cause on topic/partition at pos.
func at(topic node.TopicID, partition int32, pos int64) node.Cause {
	return node.Cause{Channel: node.Channel{Topic: topic, Partition: node.Partition(partition)}, Position: node.Offset(pos)}
}

// pastOf builds a past from causes in any order.
func pastOf(pairs ...node.Cause) CausalPast { return Of(node.CausesOf(pairs...)) }

// sameStorage reports whether two pasts share one frontier: the identity Merge and MergePast
// promise when nothing changes.
func sameStorage(p, q CausalPast) bool { return p.causes == q.causes }

// unhex decodes a hex string with spaces, failing the test on bad text.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestNoneIsTheEmptyPast(t *testing.T) {
	for name, p := range map[string]CausalPast{"None()": None(), "zero value": {}, "Of(empty)": Of(node.Causes{})} {
		if !p.IsEmpty() || p.Size() != 0 {
			t.Errorf("%s: IsEmpty=%v Size=%d, want empty", name, p.IsEmpty(), p.Size())
		}
		if got := hex.EncodeToString(p.Encode()); got != "0100" {
			t.Errorf("%s: Encode = %s, want 0100", name, got)
		}
		if !p.Equal(None()) || p.String() != "past{}" {
			t.Errorf("%s: Equal(None())=%v String=%q", name, p.Equal(None()), p.String())
		}
	}
}

func TestOfAndCausesCopy(t *testing.T) {
	causes := node.CausesOf(at(topicA, 0, 5))
	p := Of(causes)
	causes.Merge(at(topicA, 0, 9).Channel, 9)
	if pos, _ := p.Lookup(at(topicA, 0, 0).Channel); pos != 5 {
		t.Fatalf("changing the frontier given to Of changed the past: position %d, want 5", pos)
	}
	out := p.Causes()
	out.Merge(at(topicA, 0, 0).Channel, 7)
	out.Merge(at(topicB, 1, 0).Channel, 1)
	if !p.Equal(pastOf(at(topicA, 0, 5))) {
		t.Fatalf("changing the frontier Causes returned changed the past: %v", p)
	}
}

// goldenHex is SPEC §4.6's frozen 63-byte vector: A/2@41, A/5@7, B/0@9.
const goldenHex = "01 02 0102030405060708090a0b0c0d0e0f10 02 02 0000000000000029 05 0000000000000007" +
	" f102030405060708090a0b0c0d0e0f10 01 00 0000000000000009"

func TestEncodeIsTheCanonicalHeaderValue(t *testing.T) {
	golden := unhex(t, goldenHex)
	a := node.TopicID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	b := node.TopicID{0xf1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	// Merged out of order: the spelling must not depend on the history that built the past.
	p := None()
	for _, c := range []node.Cause{at(b, 0, 9), at(a, 5, 7), at(a, 2, 40), at(a, 2, 41)} {
		var err error
		if p, err = p.Merge(c.Channel, c.Position); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Encode(); !reflect.DeepEqual(got, golden) {
		t.Fatalf("Encode = % x\nwant      % x", got, golden)
	}
	headerCauses, err := node.ExtractCauses([]node.Header{{Key: node.HeaderKey, Value: p.Encode()}})
	if err != nil || !headerCauses.Equal(p.Causes()) {
		t.Fatalf("token as a parsley.causes header decodes to %v, %v; want %v", headerCauses, err, p)
	}
	decoded, err := Decode(golden)
	if err != nil || !decoded.Equal(p) {
		t.Fatalf("Decode(golden) = %v, %v; want %v", decoded, err, p)
	}
}

func TestDecodeRefusesDamagedTokens(t *testing.T) {
	const id = "0102030405060708090a0b0c0d0e0f10 "
	cases := []struct {
		name, hex string
		family    node.Family
	}{
		{"null", "", node.FamilyNullValue}, // nil, below
		{"empty", "", node.FamilyTruncated},
		{"truncated in a varint", "01 ac", node.FamilyTruncated},
		{"truncated in a topic ID", "01 01 0102030405", node.FamilyTruncated},
		{"truncated in a position", "01 01 " + id + "01 00 00000000000000", node.FamilyTruncated},
		{"trailing byte", "01 01 " + id + "01 00 0000000000000001 00", node.FamilyTrailingBytes},
		{"topic count overstated", "01 02 " + id + "01 00 0000000000000001", node.FamilyTruncated},
		{"topic count understated", "01 00 " + id + "01 00 0000000000000001", node.FamilyTrailingBytes},
		{"partition count overstated", "01 01 " + id + "02 00 0000000000000001", node.FamilyTruncated},
		{"partition count understated", "01 01 " + id + "01 00 0000000000000001 01 0000000000000001", node.FamilyTrailingBytes},
		{"partition count zero", "01 01 " + id + "00", node.FamilyZeroPartitions},
		{"topics out of order", "01 02 f102030405060708090a0b0c0d0e0f10 01 00 0000000000000001 " + id + "01 00 0000000000000001", node.FamilyTopicsNotAscending},
		{"topic repeated", "01 02 " + id + "01 00 0000000000000001 " + id + "01 01 0000000000000001", node.FamilyTopicsNotAscending},
		{"partitions out of order", "01 01 " + id + "02 05 0000000000000001 02 0000000000000001", node.FamilyPartitionsNotAscending},
		{"partition repeated", "01 01 " + id + "02 05 0000000000000001 05 0000000000000002", node.FamilyPartitionsNotAscending},
		{"padded topic count", "01 8100", node.FamilyNonMinimalVarint},
		{"padded partition", "01 01 " + id + "01 8500 0000000000000001", node.FamilyNonMinimalVarint},
		{"over-range varint", "01 01 " + id + "01 8580808010 0000000000000001", node.FamilyVarintOverflow},
		{"negative position", "01 01 " + id + "01 00 fffffffffffffffb", node.FamilyNegativePosition},
		{"reserved position", "01 01 " + id + "01 00 7fffffffffffffff", node.FamilyReservedPosition},
		{"zero topic ID", "01 01 00000000000000000000000000000000 01 00 0000000000000001", node.FamilyZeroTopicID},
		{"unknown version", "02 00", node.FamilyUnknownVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := unhex(t, tc.hex)
			if tc.family == node.FamilyNullValue {
				b = nil
			}
			p, err := Decode(b)
			var decodeErr *node.DecodeError
			if !errors.As(err, &decodeErr) || decodeErr.Family != tc.family {
				t.Fatalf("Decode(% x) = %v, %v; want a %s DecodeError", b, p, err, tc.family)
			}
			if !p.IsEmpty() {
				t.Errorf("a refused token salvaged %v", p)
			}
			// The same code path as the header decode: the very same error.
			_, headerErr := node.Decode(b)
			if !reflect.DeepEqual(err, headerErr) {
				t.Errorf("token error %v differs from header error %v", err, headerErr)
			}
		})
	}
}

func TestMergeCoordinate(t *testing.T) {
	base := pastOf(at(topicA, 0, 5), at(topicB, 1, 3))
	chA0, chC2 := at(topicA, 0, 0).Channel, at(topicC, 2, 0).Channel

	for _, pos := range []node.Offset{0, 4, 5} {
		got, err := base.Merge(chA0, pos)
		if err != nil || !sameStorage(got, base) {
			t.Errorf("Merge(A/0, %d) on %v = %v, %v; want the receiver itself", pos, base, got, err)
		}
	}
	raised, err := base.Merge(chA0, 6)
	if err != nil || !raised.Equal(pastOf(at(topicA, 0, 6), at(topicB, 1, 3))) {
		t.Errorf("Merge(A/0, 6) = %v, %v", raised, err)
	}
	added, err := base.Merge(chC2, node.MaxOffset-1)
	if err != nil || !added.Equal(pastOf(at(topicA, 0, 5), at(topicB, 1, 3), at(topicC, 2, 1<<63-2))) {
		t.Errorf("Merge(C/2, 2^63-2) = %v, %v", added, err)
	}
	if !base.Equal(pastOf(at(topicA, 0, 5), at(topicB, 1, 3))) || sameStorage(raised, base) || sameStorage(added, base) {
		t.Errorf("Merge changed or reused the receiver: %v", base)
	}
}

func TestMergeRefusesImpossibleCoordinates(t *testing.T) {
	base := pastOf(at(topicA, 0, 5))
	cases := []struct {
		ch      node.Channel
		pos     node.Offset
		mention string
	}{
		{at(topicA, 0, 0).Channel, -1, "position -1"},
		{at(topicA, 0, 0).Channel, node.MaxOffset, "position 9223372036854775807"},
		{node.Channel{Partition: 3}, 1, "all-zero topic ID"},
		{at(topicA, -2, 0).Channel, 1, "negative partition -2"},
	}
	for _, tc := range cases {
		got, err := base.Merge(tc.ch, tc.pos)
		if !errors.Is(err, ErrInvalidCoordinate) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Merge(%v, %d) error = %v; want ErrInvalidCoordinate naming %q", tc.ch, tc.pos, err, tc.mention)
		}
		if !sameStorage(got, base) {
			t.Errorf("Merge(%v, %d) refused but returned %v", tc.ch, tc.pos, got)
		}
	}
}

func TestMergePastReturnsTheCoveringSide(t *testing.T) {
	small := pastOf(at(topicA, 0, 5))
	big := pastOf(at(topicA, 0, 7), at(topicB, 1, 3))
	other := pastOf(at(topicA, 0, 9), at(topicC, 0, 1))
	twin := pastOf(at(topicA, 0, 5))

	cases := []struct {
		name     string
		p, other CausalPast
		want     CausalPast // compared by storage when it is p or other
	}{
		{"receiver covers", big, small, big},
		{"argument covers", small, big, big},
		{"equal: the receiver", small, twin, small},
		{"empty argument", small, None(), small},
		{"empty receiver", None(), small, small},
	}
	for _, tc := range cases {
		if got := tc.p.MergePast(tc.other); !sameStorage(got, tc.want) {
			t.Errorf("%s: %v.MergePast(%v) = %v, want the covering side itself", tc.name, tc.p, tc.other, got)
		}
	}
	merged := big.MergePast(other)
	want := pastOf(at(topicA, 0, 9), at(topicB, 1, 3), at(topicC, 0, 1))
	if !merged.Equal(want) || sameStorage(merged, big) || sameStorage(merged, other) {
		t.Errorf("%v.MergePast(%v) = %v, want a new %v", big, other, merged, want)
	}
	if !big.Equal(pastOf(at(topicA, 0, 7), at(topicB, 1, 3))) || !other.Equal(pastOf(at(topicA, 0, 9), at(topicC, 0, 1))) {
		t.Errorf("MergePast changed an input: %v, %v", big, other)
	}
}

func TestStringIsReadable(t *testing.T) {
	p := pastOf(at(topicB, 1, 3), at(topicA, 0, 5))
	want := "past{01000000-0000-0000-0000-000000000010/0@5, f1000000-0000-0000-0000-000000000010/1@3}"
	if got := p.String(); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
}

// coordinate is one observed (channel, position), drawn with a compact GoString so a shrunk
// counterexample prints as a readable session history such as [A/0@5 C/2@0].
type coordinate struct {
	topic     byte // index into drawTopics
	partition int32
	position  int64
}

// drawTopics is the small topic universe of the properties, so drawn pasts overlap often.
var drawTopics = []node.TopicID{topicA, topicC, topicB}

func (c coordinate) GoString() string {
	return fmt.Sprintf("%c/%d@%d", "ACB"[c.topic], c.partition, c.position)
}

func (c coordinate) cause() node.Cause { return at(drawTopics[c.topic], c.partition, c.position) }

// coordinateGen draws a coordinate: mostly small positions, sometimes the extremes 0 and 2^63−2.
var coordinateGen = rapid.Custom(func(t *rapid.T) coordinate {
	return coordinate{
		topic:     rapid.ByteRange(0, 2).Draw(t, "topic"),
		partition: rapid.Int32Range(0, 2).Draw(t, "partition"),
		position: rapid.OneOf(rapid.Int64Range(0, 20), rapid.SampledFrom([]int64{0, 1<<63 - 2})).
			Draw(t, "position"),
	}
})

// drawPast draws a past as the history of coordinates merged into it, labelled label.
func drawPast(t *rapid.T, label string) CausalPast {
	p := None()
	for _, c := range rapid.SliceOfN(coordinateGen, 0, 6).Draw(t, label) {
		var err error
		if p, err = p.Merge(c.cause().Channel, c.cause().Position); err != nil {
			t.Fatalf("drawn coordinate %#v refused: %v", c, err)
		}
	}
	return p
}

func TestMergePastIsASemilattice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := drawPast(t, "a"), drawPast(t, "b"), drawPast(t, "c")
		if ab, ba := a.MergePast(b), b.MergePast(a); !ab.Equal(ba) {
			t.Fatalf("not commutative: a∨b = %v, b∨a = %v", ab, ba)
		}
		if l, r := a.MergePast(b).MergePast(c), a.MergePast(b.MergePast(c)); !l.Equal(r) {
			t.Fatalf("not associative: (a∨b)∨c = %v, a∨(b∨c) = %v", l, r)
		}
		if aa := a.MergePast(a); !sameStorage(aa, a) {
			t.Fatalf("not idempotent by identity: a∨a = %v, a = %v", aa, a)
		}
	})
}

func TestMergeAgreesWithMergePast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPast(t, "past")
		c := coordinateGen.Draw(t, "observed").cause()
		merged, err := p.Merge(c.Channel, c.Position)
		if err != nil {
			t.Fatal(err)
		}
		if want := p.MergePast(pastOf(c)); !merged.Equal(want) {
			t.Fatalf("Merge(%v@%d) = %v, MergePast = %v", c.Channel, c.Position, merged, want)
		}
		recorded, ok := p.Lookup(c.Channel)
		if covered := ok && recorded >= c.Position; covered != sameStorage(merged, p) {
			t.Fatalf("covered=%v but returned the receiver=%v", covered, sameStorage(merged, p))
		}
	})
}

func TestDecodeInvertsEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPast(t, "past")
		encoded := p.Encode()
		decoded, err := Decode(encoded)
		if err != nil || !decoded.Equal(p) {
			t.Fatalf("Decode(Encode(%v)) = %v, %v", p, decoded, err)
		}
		if again := decoded.Encode(); !reflect.DeepEqual(again, encoded) {
			t.Fatalf("re-encode differs: % x vs % x", again, encoded)
		}
	})
}

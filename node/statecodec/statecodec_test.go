package statecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/parsleysim/parsleysim/node"
)

// Fixtures: topic n has ID bytes n, 0, ..., 0, 1, so topics order by n.

func topic(n byte) node.TopicID {
	var id node.TopicID
	id[0], id[15] = n, 1
	return id
}

func ch(n byte) node.Channel { return node.Channel{Topic: topic(n)} }

// rec builds a record whose parsley.causes header carries causes (no header when none are given).
func rec(value string, causes ...node.Cause) node.Record {
	r := node.Record{Key: []byte("k"), Value: []byte(value), TimestampMicros: 42}
	if len(causes) > 0 {
		r.Headers = []node.Header{{Key: node.HeaderKey, Value: node.Encode(node.CausesOf(causes...))}}
	}
	return r
}

func start(t testing.TB, st *node.State, received ...node.Channel) *node.Engine {
	t.Helper()
	e, err := node.Start(st, node.Init{Received: received}, node.Options{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return e
}

func feed(t testing.TB, e *node.Engine, c node.Channel, pos node.Offset, r node.Record) {
	t.Helper()
	if _, err := e.Receive(c, pos, r); err != nil {
		t.Fatalf("Receive %v@%d: %v", c, pos, err)
	}
}

func drain(e *node.Engine) int {
	n := 0
	for _, ok := e.Next(); ok; _, ok = e.Next() {
		n++
	}
	return n
}

// refused fails the test unless err is a *node.Refusal for an unreadable ordering state.
func refused(t interface {
	Helper()
	Fatalf(string, ...any)
}, err error) {
	t.Helper()
	var r *node.Refusal
	if !errors.As(err, &r) || r.Reason != node.ReasonUnknownOrderingStateFormat {
		t.Fatalf("want refusal %s, got %v", node.ReasonUnknownOrderingStateFormat, err)
	}
}

// same reports whether two states have the same content: the encoding is canonical (every list
// in one order, every integer in its one spelling), so equal encodings are equal states.
func same(a, b *node.State) bool { return bytes.Equal(EncodeState(a), EncodeState(b)) }

// deepState returns an engine with depth messages held on ch(1) (blocked on ch(3)), committed,
// and the committed state.
func deepState(t testing.TB, depth int) (*node.Engine, *node.State) {
	e := start(t, nil, ch(1), ch(2), ch(3))
	for i := 0; i < depth; i++ {
		feed(t, e, ch(1), node.Offset(i), rec("held", node.Cause{Channel: ch(3)}))
	}
	st := &node.State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	return e, st
}

// The state and delta codecs round-trip byte for byte.
func TestRoundTrip(t *testing.T) {
	a, z := ch(1), ch(3)
	e, st := deepState(t, 5)
	feed(t, e, z, 2, node.Record{Key: nil, Value: []byte{}, Headers: []node.Header{{Key: "h", Value: nil}, {Key: "", Value: []byte{}}}})
	feed(t, e, a, 9, rec("x", node.Cause{Channel: z}))
	d := e.Commit()
	enc := EncodeDelta(d)
	d2, err := DecodeDelta(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeDelta(d2), enc) {
		t.Fatal("delta re-encoding differs")
	}
	if err := st.Apply(d2); err != nil {
		t.Fatal(err)
	}
	senc := EncodeState(st)
	st2, err := DecodeState(senc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeState(st2), senc) || !same(st2, st) || !same(st2, e.Snapshot()) {
		t.Fatal("state round trip differs")
	}
	empty, err := DecodeState(EncodeState(&node.State{}))
	if err != nil || !empty.IsEmpty() {
		t.Fatalf("empty state: %v", err)
	}
}

// SPEC §2.5(b), §7.1: truncated, trailing, corrupt and out-of-range input refuses with
// UNKNOWN_ORDERING_STATE_FORMAT and never panics.
func TestRefusesBadInput(t *testing.T) {
	e, st := deepState(t, 3)
	feed(t, e, ch(3), 0, rec("release"))
	drain(e)
	senc := EncodeState(st)
	denc := EncodeDelta(e.Commit())
	for i := 0; i < len(senc); i++ {
		_, err := DecodeState(senc[:i])
		refused(t, err)
	}
	for i := 0; i < len(denc); i++ {
		_, err := DecodeDelta(denc[:i])
		refused(t, err)
	}
	_, err := DecodeState(append(bytes.Clone(senc), 0))
	refused(t, err)
	_, err = DecodeDelta(append(bytes.Clone(denc), 0))
	refused(t, err)

	// Hand-built states: PS 01, no bindings, one fed row, one frontier row, no past, no holds.
	row := func(id node.TopicID, pos uint64) []byte {
		b := append(append([]byte{}, id[:]...), 0)
		return binary.BigEndian.AppendUint64(b, pos)
	}
	build := func(fed, frontier []byte) []byte {
		b := []byte{'P', 'S', 1, 0, 1}
		b = append(b, fed...)
		b = append(b, 1)
		b = append(b, frontier...)
		return append(b, 0, 0)
	}
	good := build(row(topic(1), uint64(node.MaxOffset)), row(topic(1), 5)) // fedUpTo may be the deleted marker
	if _, err := DecodeState(good); err != nil {
		t.Fatalf("hand-built state refused: %v", err)
	}
	for name, b := range map[string][]byte{
		"frontier MaxOffset": build(row(topic(1), 1), row(topic(1), uint64(node.MaxOffset))),
		"frontier negative":  build(row(topic(1), 1), row(topic(1), 1<<63)),
		"fed negative":       build(row(topic(1), 1<<64-1), row(topic(1), 5)),
		"zero topic":         build(row(node.TopicID{}, 1), row(topic(1), 5)),
		"version 2":          append([]byte{'P', 'S', 2}, good[3:]...),
		"delta magic":        append([]byte{'P', 'D', 1}, good[3:]...),
		"huge count":         {'P', 'S', 1, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"non-minimal count":  append([]byte{'P', 'S', 1, 0x80, 0x00}, good[4:]...),
	} {
		_, err := DecodeState(b)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		refused(t, err)
	}
}

// A held channel named twice, even with its positions ascending across the two groups, is not
// the canonical encoding and is refused.
func TestRefusesRepeatedHeldChannel(t *testing.T) {
	_, st := deepState(t, 2)
	enc := EncodeState(st)
	// The holds section is the encoding's tail: count 1, the channel, count 2, two holds. Split it
	// into two groups of one hold each.
	holds := enc[len(enc)-holdsLen(t, st):]
	head := enc[:len(enc)-len(holds)]
	chanBytes := holds[1 : 1+topicIDBytes+1]
	body := holds[1+len(chanBytes)+1:]
	first := len(body) / 2
	split := append(append([]byte{}, head...), 2)
	split = append(append(append(split, chanBytes...), 1), body[:first]...)
	split = append(append(append(split, chanBytes...), 1), body[first:]...)
	if _, err := DecodeState(split); err == nil {
		t.Fatal("a held channel named twice was accepted")
	} else {
		refused(t, err)
	}
}

// holdsLen is the length of st's holds section: the encoding minus that of st without holds.
func holdsLen(t *testing.T, st *node.State) int {
	t.Helper()
	p := node.StateParts{Version: st.Version(), Bindings: st.Bindings(), Fed: st.FedPositions(),
		Frontier: st.Frontier().Pairs(), Past: st.DeliveredPast().Pairs()}
	bare, err := node.NewState(p)
	if err != nil {
		t.Fatal(err)
	}
	return len(EncodeState(st)) - len(EncodeState(bare)) + 1 // the bare state's zero count stays
}

// Any byte string: decoding refuses or yields a valid state/delta that re-encodes to the same
// bytes; it never panics.
func TestArbitraryBytes(t *testing.T) {
	e, st := deepState(t, 2)
	feed(t, e, ch(3), 0, rec("release"))
	drain(e)
	seeds := [][]byte{EncodeState(st), EncodeDelta(e.Commit())}
	rapid.Check(t, func(t *rapid.T) {
		b := bytes.Clone(rapid.SampledFrom(seeds).Draw(t, "seed"))
		for i := rapid.IntRange(0, 4).Draw(t, "flips"); i > 0; i-- {
			k := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[k] = rapid.Byte().Draw(t, "byte")
		}
		b = b[:rapid.IntRange(0, len(b)).Draw(t, "len")]
		if s, err := DecodeState(b); err == nil {
			if !bytes.Equal(EncodeState(s), b) {
				t.Fatalf("accepted state does not re-encode identically")
			}
		} else {
			refused(t, err)
		}
		if d, err := DecodeDelta(b); err == nil {
			if !bytes.Equal(EncodeDelta(d), b) {
				t.Fatalf("accepted delta does not re-encode identically")
			}
		} else {
			refused(t, err)
		}
	})
}

// Every state and delta an engine produces — holds taken and released, channels joining and
// leaving across restarts — round-trips: the decoded delta applies to the same state, and the
// decoded state equals the original and starts the same next execution.
func TestEngineStatesRoundTrip(t *testing.T) {
	universe := []node.Channel{ch(1), ch(2), ch(3), {Topic: topic(3), Partition: 1}}
	rapid.Check(t, func(t *rapid.T) {
		st := &node.State{}
		received := universe[:2]
		e, err := node.Start(nil, node.Init{Received: received}, node.Options{})
		if err != nil {
			t.Fatal(err)
		}
		next := map[node.Channel]node.Offset{}
		for step := rapid.IntRange(1, 12).Draw(t, "steps"); step > 0; step-- {
			for n := rapid.IntRange(0, 4).Draw(t, "feeds"); n > 0; n-- {
				c := rapid.SampledFrom(received).Draw(t, "channel")
				var causes []node.Cause
				for _, u := range universe {
					if rapid.IntRange(0, 2).Draw(t, "names "+u.String()) == 0 {
						causes = append(causes, node.Cause{Channel: u, Position: node.Offset(rapid.IntRange(0, 3).Draw(t, "at"))})
					}
				}
				if _, err := e.Receive(c, next[c], rec("v", causes...)); err != nil {
					t.Fatalf("Receive: %v", err)
				}
				next[c]++
				if rapid.Bool().Draw(t, "drain") {
					drain(e)
				}
			}
			d := e.Commit()
			dec, err := DecodeDelta(EncodeDelta(d))
			if err != nil || !bytes.Equal(EncodeDelta(dec), EncodeDelta(d)) {
				t.Fatalf("delta does not round-trip: %v", err)
			}
			want := st.Clone()
			if err := want.Apply(d); err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(dec); err != nil {
				t.Fatalf("the decoded delta does not apply: %v", err)
			}
			if !same(st, want) {
				t.Fatal("the decoded delta applies to another state")
			}
			back, err := DecodeState(EncodeState(st))
			if err != nil || !same(back, st) {
				t.Fatalf("state does not round-trip: %v", err)
			}
			if rapid.Bool().Draw(t, "restart") {
				received = rapid.SampledFrom([][]node.Channel{universe[:2], universe[1:], universe}).Draw(t, "received")
				e1, err1 := node.Start(st.Clone(), node.Init{Received: received}, node.Options{})
				e2, err2 := node.Start(back, node.Init{Received: received}, node.Options{})
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("starts differ: %v against %v", err1, err2)
				}
				if err1 != nil {
					return // the restart refused (both alike): this history ends here
				}
				if !same(e1.Snapshot(), e2.Snapshot()) {
					t.Fatal("the decoded state starts another execution")
				}
				e = e2
				for c := range next {
					if f, ok := e.FedUpTo(c); ok {
						next[c] = max(next[c], f+1)
					}
				}
			}
		}
	})
}

// FuzzDecodeState: never panics; accepted input re-encodes identically.
func FuzzDecodeState(f *testing.F) {
	_, st := deepState(f, 2)
	f.Add(EncodeState(st))
	f.Add(EncodeState(&node.State{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeState(b)
		if err == nil && !bytes.Equal(EncodeState(s), b) {
			t.Fatal("accepted state does not re-encode identically")
		}
	})
}

// FuzzDecodeDelta: never panics; accepted input re-encodes identically.
func FuzzDecodeDelta(f *testing.F) {
	e, _ := deepState(f, 2)
	feed(f, e, ch(3), 0, rec("release"))
	drain(e)
	f.Add(EncodeDelta(e.Commit()))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeDelta(b)
		if err == nil && !bytes.Equal(EncodeDelta(d), b) {
			t.Fatal("accepted delta does not re-encode identically")
		}
	})
}

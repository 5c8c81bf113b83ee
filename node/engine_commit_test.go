package node

import (
	"bytes"
	"encoding/binary"
	"testing"

	"pgregory.net/rapid"
)

// etDeepState returns an engine with depth messages held on a (blocked on z), committed, and the
// committed state.
func etDeepState(t testing.TB, depth int) (*Engine, *State) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	e := etStart(t, nil, etInit(a, b, z), Options{})
	for i := 0; i < depth; i++ {
		etFeed(t, e, a, Offset(i), etRec("held", etCause(z, 0)))
	}
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		t.Fatal(err)
	}
	return e, st
}

// SPEC §1.3, Host obligation 3, D102: a step's delta holds what the step did — new holds still held,
// committed holds released, raised fedUpTo, changed frontier entries — not the buffer; a hold taken
// and delivered in the same step never appears.
func TestCommitDeltaIsTheStepsChange(t *testing.T) {
	a, b, z := etCh(1, 0), etCh(2, 0), etCh(3, 0)
	e, st := etDeepState(t, 100)
	etEqual(t, "committed holds", st.HeldCount(), 100)

	etFeed(t, e, a, 100, etRec("one more", etCause(z, 0)))
	etFeed(t, e, b, 0, etRec("in and out"))
	etDrain(e)
	d := e.Commit()
	etEqual(t, "new holds", len(d.NewHolds), 1)
	etEqual(t, "removed", len(d.RemovedHolds), 0)
	etEqual(t, "fed", d.Fed, []FedPosition{{a, 100}, {b, 0}})
	etEqual(t, "frontier set", d.Frontier, []Cause{{b, 0}})
	if err := st.Apply(d); err != nil {
		t.Fatal(err)
	}
	if !st.Equal(e.Snapshot()) {
		t.Fatal("applied state differs from snapshot")
	}

	etFeed(t, e, z, 0, etRec("release"))
	etEqual(t, "released", len(etDrain(e)), 102)
	d = e.Commit()
	etEqual(t, "removed", len(d.RemovedHolds), 101)
	etEqual(t, "first removed", d.RemovedHolds[0], HoldRef{a, 0})
	if err := st.Apply(d); err != nil {
		t.Fatal(err)
	}
	etEqual(t, "held after", st.HeldCount(), 0)
	if !st.Equal(e.Snapshot()) {
		t.Fatal("applied state differs from snapshot")
	}
	if d := e.Commit(); !d.IsEmpty() {
		t.Fatalf("idle step delta %+v", d)
	}
}

// A delta that does not fit the state is refused and leaves it unchanged.
func TestCommitApplyRefusesMisfit(t *testing.T) {
	a := etCh(1, 0)
	_, st := etDeepState(t, 3)
	before := st.Clone()
	for name, d := range map[string]Delta{
		"remove absent":  {RemovedHolds: []HoldRef{{a, 7}}},
		"add duplicate":  {NewHolds: []HeldMessage{{Channel: a, Position: 1}}},
		"add above fed":  {NewHolds: []HeldMessage{{Channel: a, Position: 9}}},
		"remove on none": {RemovedHolds: []HoldRef{{etCh(5, 0), 0}}},
	} {
		etRefusal(t, st.Apply(d), ReasonUnknownOrderingStateFormat)
		if !st.Equal(before) {
			t.Fatalf("%s: state changed by a refused delta", name)
		}
	}
	fresh := &State{}
	etRefusal(t, fresh.Apply(Delta{Fed: []FedPosition{{a, 1}}}), ReasonUnknownOrderingStateFormat)
}

// The state and delta codecs round-trip byte for byte.
func TestCommitCodecRoundTrip(t *testing.T) {
	a, z := etCh(1, 0), etCh(3, 0)
	e, st := etDeepState(t, 5)
	etFeed(t, e, z, 2, Record{Key: nil, Value: []byte{}, Headers: []Header{{Key: "h", Value: nil}, {Key: "", Value: []byte{}}}})
	etFeed(t, e, a, 9, etRec("x", etCause(z, 0)))
	d := e.Commit()
	enc := d.Encode()
	d2, err := DecodeDelta(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d2.Encode(), enc) {
		t.Fatal("delta re-encoding differs")
	}
	if err := st.Apply(d2); err != nil {
		t.Fatal(err)
	}
	senc := st.Encode()
	st2, err := DecodeState(senc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st2.Encode(), senc) || !st2.Equal(st) || !st2.Equal(e.Snapshot()) {
		t.Fatal("state round trip differs")
	}
	empty, err := DecodeState((&State{}).Encode())
	if err != nil || !empty.IsEmpty() {
		t.Fatalf("empty state: %v", err)
	}
}

// SPEC §2.5(b), §7.1: truncated, trailing, corrupt and out-of-range input refuses with
// UNKNOWN_ORDERING_STATE_FORMAT and never panics.
func TestCommitCodecRefusesBadInput(t *testing.T) {
	e, st := etDeepState(t, 3)
	etFeed(t, e, etCh(3, 0), 0, etRec("release"))
	etDrain(e)
	senc := st.Encode()
	denc := e.Commit().Encode()
	for i := 0; i < len(senc); i++ {
		_, err := DecodeState(senc[:i])
		etRefusal(t, err, ReasonUnknownOrderingStateFormat)
	}
	for i := 0; i < len(denc); i++ {
		_, err := DecodeDelta(denc[:i])
		etRefusal(t, err, ReasonUnknownOrderingStateFormat)
	}
	_, err := DecodeState(append(bytes.Clone(senc), 0))
	etRefusal(t, err, ReasonUnknownOrderingStateFormat)
	_, err = DecodeDelta(append(bytes.Clone(denc), 0))
	etRefusal(t, err, ReasonUnknownOrderingStateFormat)

	// Hand-built states: PS 01, no bindings, one fed row, one frontier row, no past, no holds.
	row := func(topic TopicID, pos uint64) []byte {
		b := append(append([]byte{}, topic[:]...), 0)
		return binary.BigEndian.AppendUint64(b, pos)
	}
	build := func(fed, frontier []byte) []byte {
		b := []byte{'P', 'S', 1, 0, 1}
		b = append(b, fed...)
		b = append(b, 1)
		b = append(b, frontier...)
		return append(b, 0, 0)
	}
	good := build(row(etTopic(1), uint64(MaxOffset)), row(etTopic(1), 5))
	if _, err := DecodeState(good); err != nil {
		t.Fatalf("hand-built state refused: %v", err)
	}
	for name, b := range map[string][]byte{
		"frontier MaxOffset": build(row(etTopic(1), 1), row(etTopic(1), uint64(MaxOffset))),
		"frontier negative":  build(row(etTopic(1), 1), row(etTopic(1), 1<<63)),
		"fed negative":       build(row(etTopic(1), 1<<64-1), row(etTopic(1), 5)),
		"zero topic":         build(row(TopicID{}, 1), row(etTopic(1), 5)),
		"version 2":          append([]byte{'P', 'S', 2}, good[3:]...),
		"delta magic":        append([]byte{'P', 'D', 1}, good[3:]...),
		"huge count":         {'P', 'S', 1, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"non-minimal count":  append([]byte{'P', 'S', 1, 0x80, 0x00}, good[4:]...),
	} {
		_, err := DecodeState(b)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		etRefusal(t, err, ReasonUnknownOrderingStateFormat)
	}
}

// Any byte string: decoding refuses or yields a valid state/delta that re-encodes to the same
// bytes; it never panics.
func TestCommitCodecArbitraryBytes(t *testing.T) {
	e, st := etDeepState(t, 2)
	etFeed(t, e, etCh(3, 0), 0, etRec("release"))
	etDrain(e)
	seeds := [][]byte{st.Encode(), e.Commit().Encode()}
	rapid.Check(t, func(t *rapid.T) {
		b := bytes.Clone(rapid.SampledFrom(seeds).Draw(t, "seed"))
		for i := rapid.IntRange(0, 4).Draw(t, "flips"); i > 0; i-- {
			k := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[k] = rapid.Byte().Draw(t, "byte")
		}
		b = b[:rapid.IntRange(0, len(b)).Draw(t, "len")]
		if s, err := DecodeState(b); err == nil {
			if !bytes.Equal(s.Encode(), b) || s.validate() != nil {
				t.Fatalf("accepted state does not re-encode identically")
			}
		} else {
			etRefusal(t, err, ReasonUnknownOrderingStateFormat)
		}
		if d, err := DecodeDelta(b); err == nil {
			if !bytes.Equal(d.Encode(), b) {
				t.Fatalf("accepted delta does not re-encode identically")
			}
		} else {
			etRefusal(t, err, ReasonUnknownOrderingStateFormat)
		}
	})
}

// FuzzDecodeState: never panics; accepted input re-encodes identically.
func FuzzDecodeState(f *testing.F) {
	_, st := etDeepState(f, 2)
	f.Add(st.Encode())
	f.Add((&State{}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeState(b)
		if err == nil && !bytes.Equal(s.Encode(), b) {
			t.Fatal("accepted state does not re-encode identically")
		}
	})
}

// FuzzDecodeDelta: never panics; accepted input re-encodes identically.
func FuzzDecodeDelta(f *testing.F) {
	e, _ := etDeepState(f, 2)
	etFeed(f, e, etCh(3, 0), 0, etRec("release"))
	etDrain(e)
	f.Add(e.Commit().Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeDelta(b)
		if err == nil && !bytes.Equal(d.Encode(), b) {
			t.Fatal("accepted delta does not re-encode identically")
		}
	})
}

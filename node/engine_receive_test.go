package node

import (
	"bytes"
	"fmt"
	"testing"
)

// SPEC §2.1/§9.7, Safety 6: a message without a parsley.causes header is deliverable at once.
func TestReceiveHeaderlessDeliversAtOnce(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etEqual(t, "outcome", etFeed(t, e, a, 0, etRec("x")), Held)
	etEqual(t, "deliveries", etDrain(e), []string{"t1/0@0"})
}

// SPEC §4.7, §9.8, Safety 7: undecodable metadata refuses UNDECODABLE_METADATA, is never treated as
// absent, and nothing is delivered past it — not even what was already deliverable.
func TestReceiveUndecodableRefusesAndStopsDelivery(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	valid := Encode(CausesOf(etCause(b, 1)))
	cases := map[string][]Header{
		"null value":        {{Key: HeaderKey, Value: nil}},
		"empty value":       {{Key: HeaderKey, Value: []byte{}}},
		"version 2":         {{Key: HeaderKey, Value: []byte{0x02, 0x00}}},
		"trailing byte":     {{Key: HeaderKey, Value: []byte{0x01, 0x00, 0x00}}},
		"corrupt 63010203":  {{Key: HeaderKey, Value: []byte{0x63, 0x01, 0x02, 0x03}}},
		"two valid headers": {{Key: HeaderKey, Value: valid}, {Key: HeaderKey, Value: valid}},
	}
	for name, headers := range cases {
		t.Run(name, func(t *testing.T) {
			e := etStart(t, nil, etInit(a, b), Options{})
			etFeed(t, e, b, 0, etRec("ready")) // deliverable, not yet drained
			_, err := e.Receive(a, 0, Record{Value: []byte("v"), Headers: headers})
			r := etRefusal(t, err, ReasonUndecodableMetadata)
			etEqual(t, "refusal channel", r.Channel, a)
			etEqual(t, "refusal position", r.Position, Offset(0))
			if _, ok := e.Next(); ok {
				t.Fatal("delivered after a refusal")
			}
			if _, err := e.Receive(b, 1, etRec("later")); err != r {
				t.Fatalf("Receive after refusal = %v, want the refusal", err)
			}
			if _, err := e.Stamp(); err != r {
				t.Fatalf("Stamp after refusal = %v, want the refusal", err)
			}
			if e.Refusal() != r || e.Status().Refusal != r {
				t.Fatal("refusal not reported")
			}
			if !e.Commit().IsEmpty() {
				t.Fatal("a refused step produced a delta")
			}
		})
	}
}

// SPEC §2.2 step 2, D93: the raw header length is judged against the budget before decoding
// (equality allowed), so an oversized garbage header is METADATA_BUDGET_EXCEEDED, not undecodable.
func TestReceiveBudgetJudgedBeforeDecoding(t *testing.T) {
	a := etCh(1, 0)
	opts := Options{MetadataBudgetBytes: 28}
	e := etStart(t, nil, etInit(a), opts)
	_, err := e.Receive(a, 0, etRaw(bytes.Repeat([]byte{0xff}, 29)))
	etRefusal(t, err, ReasonMetadataBudgetExceeded)

	e = etStart(t, nil, etInit(a), opts)
	exact := Encode(CausesOf(etCause(etCh(9, 0), 4))) // 28 bytes: at the budget
	etEqual(t, "exact size", len(exact), 28)
	etFeed(t, e, a, 0, etRaw(exact))

	e = etStart(t, nil, etInit(a), opts)
	_, err = e.Receive(a, 0, etRaw(bytes.Repeat([]byte{0xff}, 28)))
	etRefusal(t, err, ReasonUndecodableMetadata)
}

// SPEC §3 Budget: the merged frontier is bounded by the budget too.
func TestReceiveFrontierGrowthOverBudgetRefuses(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{MetadataBudgetBytes: 40})
	etFeed(t, e, a, 0, etRec("x", etCause(etCh(5, 0), 1)))        // 28 bytes
	_, err := e.Receive(a, 1, etRec("y", etCause(etCh(6, 0), 1))) // merged: 2+26+26 = 54
	etRefusal(t, err, ReasonMetadataBudgetExceeded)
}

// SPEC §2.3: extraction precedes the order check, which precedes the frontier merge.
func TestReceiveCheckOrder(t *testing.T) {
	a, x := etCh(1, 0), etCh(7, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 5, etRec("x"))
	_, err := e.Receive(a, 3, etRaw([]byte{0x09}))
	etRefusal(t, err, ReasonUndecodableMetadata) // undecodable wins over the regression

	e = etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 5, etRec("x"))
	_, err = e.Receive(a, 5, etRec("again", etCause(x, 9)))
	r := etRefusal(t, err, ReasonOutOfOrderFeed)
	etEqual(t, "position", r.Position, Offset(5))
	if _, ok := e.Frontier().Lookup(x); ok {
		t.Fatal("an out-of-order record's causes were merged")
	}
}

// SPEC §2.5, D10, D41: a replay at or below the session floor is dropped silently but its causes
// are still merged into the frontier; an in-execution regression refuses on either side of it.
func TestReceiveReplayBelowFloorDroppedCausesMerged(t *testing.T) {
	a, x := etCh(1, 0), etCh(7, 0)
	init := etInit(a)
	init.StartPositions = []Cause{etCause(a, 0)}
	st := &State{}
	e := etStart(t, nil, init, Options{})
	for pos := Offset(0); pos < 3; pos++ {
		etFeed(t, e, a, pos, etRec("x"))
	}
	etEqual(t, "first run", etDrain(e), []string{"t1/0@0", "t1/0@1", "t1/0@2"})
	e, st = etRestart(t, e, st, init, Options{}) // operator rewind: start position 0 again
	etEqual(t, "floor", fmtFloor(e, a), "2")
	etEqual(t, "replay", etFeed(t, e, a, 1, etRec("x", etCause(x, 4))), Duplicate)
	if p, _ := e.Frontier().Lookup(x); p != 4 {
		t.Fatalf("replayed causes not merged: frontier %v", e.Frontier())
	}
	etEqual(t, "replay", etFeed(t, e, a, 2, etRec("x")), Duplicate)
	etEqual(t, "fresh", etFeed(t, e, a, 3, etRec("x")), Held)
	etEqual(t, "nothing redelivered", etDrain(e), []string{"t1/0@3"})
	_, err := e.Receive(a, 1, etRec("x"))
	etRefusal(t, err, ReasonOutOfOrderFeed) // in-execution regression below the floor
	_ = st
}

func fmtFloor(e *Engine, ch Channel) string {
	f, ok := e.SessionFloor(ch)
	if !ok {
		return "none"
	}
	return itoa(int64(f))
}

// SPEC §2.2 step 5: a feed above the session floor inside fedUpTo is COVERED_POSITION_FED. No host
// behaviour reaches it after D115, so the test raises fedUpTo behind the engine's back.
func TestReceiveCoveredPositionRefuses(t *testing.T) {
	a := etCh(1, 0)
	init := etInit(a)
	init.StartPositions = []Cause{etCause(a, 5)} // fed 4, floor 4
	e := etStart(t, nil, init, Options{})
	e.chans[0].fed = 10
	etEqual(t, "below floor", etFeed(t, e, a, 3, etRec("x")), Duplicate)
	_, err := e.Receive(a, 7, etRec("x"))
	r := etRefusal(t, err, ReasonCoveredPositionFed)
	etEqual(t, "position", r.Position, Offset(7))
}

// SPEC §2.5(c): any feed on a channel recorded deleted refuses OUT_OF_ORDER_FEED.
func TestReceiveOnDeletedChannelRefuses(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	if err := e.Identity([]TopicID{a.Topic}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := e.Receive(a, 0, etRec("x"))
	r := etRefusal(t, err, ReasonOutOfOrderFeed)
	etEqual(t, "detail", r.Detail, "fed on a channel recorded as no longer existing")
}

// SPEC §3, D56: reserved parsley.* headers are hidden from the application; others pass through.
func TestReceiveHidesReservedHeaders(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	rec := etRec("x", etCause(etCh(9, 0), 1))
	rec.Headers = append(rec.Headers, Header{Key: "parsley.other", Value: []byte("p")}, Header{Key: "app", Value: []byte("a")})
	etFeed(t, e, a, 0, rec)
	d, ok := e.Next()
	if !ok {
		t.Fatal("not delivered")
	}
	etEqual(t, "headers", d.Record.Headers, []Header{{Key: "app", Value: []byte("a")}})
	etEqual(t, "causes", d.Causes.String(), CausesOf(etCause(etCh(9, 0), 1)).String())
	etEqual(t, "key", string(d.Record.Key), "k")
	etEqual(t, "timestamp", d.Record.TimestampMicros, int64(42))
}

// A channel outside the received set is a host programming error.
func TestReceiveUnreceivedChannelPanics(t *testing.T) {
	e := etStart(t, nil, etInit(etCh(1, 0)), Options{})
	defer func() {
		r := recover()
		if want := fmt.Sprintf("node: channel %v is not in the received set", etCh(2, 0)); fmt.Sprint(r) != want {
			t.Fatalf("panic %v, want %q", r, want)
		}
	}()
	e.Receive(etCh(2, 0), 0, etRec("x"))
}

package node

import (
	"bytes"
	"testing"
)

// SPEC §3, D28: every emission carries exactly one parsley.causes header, 01 00 when the frontier
// is empty; application headers and payload pass through unchanged.
func TestEmitEmptyFrontierStampsOneHeader(t *testing.T) {
	out := etCh(8, 0)
	e := etStart(t, nil, Init{SendTopics: []TopicID{out.Topic}}, Options{})
	in := Record{Key: []byte("k"), Value: []byte("v"), Headers: []Header{{Key: "app", Value: []byte("a")}}, TimestampMicros: 7}
	rec, err := e.Emit(out, in)
	if err != nil {
		t.Fatal(err)
	}
	etEqual(t, "headers", rec.Headers, []Header{{Key: "app", Value: []byte("a")}, {Key: HeaderKey, Value: []byte{1, 0}}})
	etEqual(t, "input untouched", len(in.Headers), 1)
	if !bytes.Equal(rec.Key, in.Key) || !bytes.Equal(rec.Value, in.Value) || rec.TimestampMicros != 7 {
		t.Fatal("payload changed")
	}
	etEqual(t, "encoded counter", e.Counters().HeaderBytesEncoded, uint64(2))
}

// SPEC §3: emissions only to declared send topics, never with reserved headers; both refusals are
// terminal.
func TestEmitRefusals(t *testing.T) {
	out, other := etCh(8, 0), etCh(9, 0)
	init := Init{SendTopics: []TopicID{out.Topic}}
	e := etStart(t, nil, init, Options{})
	_, err := e.Emit(other, Record{})
	etRefusal(t, err, ReasonEmissionToUndeclaredChannel)
	if _, err := e.Emit(out, Record{}); err == nil {
		t.Fatal("emitted after a refusal")
	}
	e = etStart(t, nil, init, Options{})
	_, err = e.Emit(out, Record{Headers: []Header{{Key: "parsley.causes", Value: []byte{1, 0}}}})
	etRefusal(t, err, ReasonReservedHeaderUsed)
	e = etStart(t, nil, init, Options{})
	_, err = e.Emit(out, Record{Headers: []Header{{Key: "parsley.x"}}})
	etRefusal(t, err, ReasonReservedHeaderUsed)
}

// SPEC §3 Budget: a stamp longer than the budget refuses; equality is allowed.
func TestEmitBudget(t *testing.T) {
	a, out := etCh(1, 0), etCh(8, 0)
	init := Init{Received: []Channel{a}, SendTopics: []TopicID{out.Topic}}
	e := etStart(t, nil, init, Options{MetadataBudgetBytes: 28})
	etFeed(t, e, a, 0, etRec("x"))
	etDrain(e) // frontier {a@0}: 28 bytes
	if _, err := e.Emit(out, Record{}); err != nil {
		t.Fatalf("stamp at the budget refused: %v", err)
	}
	e = etStart(t, nil, init, Options{MetadataBudgetBytes: 27})
	etFeed(t, e, a, 0, etRec("x"))
	etDrain(e)
	if e.Refusal() == nil {
		t.Fatal("delivery growing the frontier over budget not refused")
	}
	etRefusal(t, e.Refusal(), ReasonMetadataBudgetExceeded)
}

// SPEC §3, §9.21, Structural 15: the stamp expresses every received pair — including causes known
// only from held (undelivered) metadata and from replays — plus every delivered coordinate, and
// nothing else: not fedUpTo coverage, not a held message's own position, not the process's sends.
func TestEmitExpressesReceivedAndDeliveredOnly(t *testing.T) {
	a, b, x, out := etCh(1, 0), etCh(2, 0), etCh(7, 0), etCh(8, 0)
	init := Init{Received: []Channel{a, b}, SendTopics: []TopicID{out.Topic}}
	e := etStart(t, nil, init, Options{})
	etFeed(t, e, a, 0, etRec("d"))
	etFeed(t, e, b, 5, etRec("held", etCause(a, 9), etCause(x, 3))) // a@9 never arrives
	etEqual(t, "drain", etDrain(e), []string{"t1/0@0"})
	if _, err := e.Emit(out, Record{}); err != nil { // sends never enter the frontier
		t.Fatal(err)
	}
	v, err := e.Stamp()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Decode(v)
	etEqual(t, "stamp", got.String(), CausesOf(etCause(a, 9), etCause(x, 3)).String())
	if _, ok := got.Lookup(b); ok {
		t.Fatal("held message's own position or fedUpTo expressed")
	}
}

// SPEC §9.20, Structural 14, D23: a process that sends to a channel it receives delivers its own
// emissions; their causes on that channel lie strictly below their own position.
func TestEmitSelfChannel(t *testing.T) {
	in, self := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, Init{Received: []Channel{in, self}, SendTopics: []TopicID{self.Topic}}, Options{})
	var log []Record // the self channel's log; offsets are indexes
	selfNext := 0
	for i := 0; i < 3; i++ {
		etFeed(t, e, in, Offset(i), etRec("input"))
		for {
			d, ok := e.Next()
			if !ok {
				break
			}
			if d.Channel == in {
				rec, err := e.Emit(self, Record{Value: []byte("echo")})
				if err != nil {
					t.Fatal(err)
				}
				log = append(log, rec)
			}
		}
		for ; selfNext < len(log); selfNext++ {
			causes, _ := ExtractCauses(log[selfNext].Headers)
			if p, ok := causes.Lookup(self); ok && p >= Offset(selfNext) {
				t.Fatalf("own-channel cause %d at or above own position %d", p, selfNext)
			}
			etFeed(t, e, self, Offset(selfNext), log[selfNext])
		}
	}
	etDrain(e)
	etEqual(t, "self deliveries", e.Status().Held, 0)
	if p, _ := e.Frontier().Lookup(self); p != 2 {
		t.Fatalf("self channel not delivered to 2: %v", e.Frontier())
	}
}

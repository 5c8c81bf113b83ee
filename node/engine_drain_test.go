package node

import (
	"testing"
)

// SPEC §9.1/§9.2 diamond: p3 receives c1 and c2 and gets the effect (on c2, caused by c1@0) first;
// it holds the effect, with a blocker, until the cause arrives, then delivers cause first.
func TestDrainDiamondDeliversCauseFirst(t *testing.T) {
	c1, c2 := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, etInit(c1, c2), Options{})
	etFeed(t, e, c2, 0, etRec("effect", etCause(c1, 0)))
	etEqual(t, "held", etDrain(e), []string(nil))
	st := e.Status()
	etEqual(t, "status", st.Channels, []ChannelStatus{{Channel: c2, Held: 1, Head: 0,
		Blockers: []Blocker{{Channel: c1, Required: 0}}}})
	etEqual(t, "blocker", st.Channels[0].Blockers[0].String(), c1.String()+" required=0 settled=none")
	etFeed(t, e, c1, 0, etRec("cause"))
	etEqual(t, "order", etDrain(e), []string{"t1/0@0", "t2/0@0"})
}

// SPEC §9.3, Safety 3: a later message on a channel waits behind a blocked head even when its own
// causes are met; only heads are offered.
func TestDrainFIFOBehindBlockedHead(t *testing.T) {
	c1, c2 := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, etInit(c1, c2), Options{})
	etFeed(t, e, c2, 0, etRec("blocked", etCause(c1, 0)))
	etFeed(t, e, c2, 1, etRec("free"))
	before := e.Counters()
	etEqual(t, "held", etDrain(e), []string(nil))
	etEqual(t, "heads offered", e.Counters().Minus(before).HeadsOffered, uint64(1))
	etEqual(t, "held count", e.Status().Held, 2)
	etFeed(t, e, c1, 0, etRec("cause"))
	etEqual(t, "order", etDrain(e), []string{"t1/0@0", "t2/0@0", "t2/0@1"})
}

// SPEC §2.2 drain: deterministic, first deliverable head in channel order (topic ID unsigned, then
// partition), rescanning from the lowest channel after each delivery.
func TestDrainCanonicalChannelOrder(t *testing.T) {
	hi := Channel{Topic: TopicID{0xf0, 15: 1}, Partition: 0}
	lo, lo1 := etCh(1, 1), etCh(1, 0)
	e := etStart(t, nil, etInit(hi, lo, lo1), Options{})
	etFeed(t, e, hi, 0, etRec("x"))
	etFeed(t, e, lo, 0, etRec("x"))
	etFeed(t, e, lo1, 0, etRec("x", etCause(lo, 0)))
	etFeed(t, e, lo1, 1, etRec("x"))
	// lo1 (t1/0) blocks on lo; lo (t1/1) delivers; rescan: lo1 heads now deliverable.
	etEqual(t, "order", etDrain(e), []string{"t1/1@0", "t1/0@0", "t1/0@1", "t240/0@0"})
}

// SPEC §2.2 delivery: the own coordinate goes into the frontier, the causes into the delivered
// past (never the own position, D106).
func TestDrainDeliveryMergesFrontierAndPast(t *testing.T) {
	a, x := etCh(1, 0), etCh(7, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 3, etRec("x", etCause(x, 5)))
	etEqual(t, "frontier at receipt", e.Frontier().String(), CausesOf(etCause(x, 5)).String())
	etDrain(e)
	etEqual(t, "frontier", e.Frontier().String(), CausesOf(etCause(a, 3), etCause(x, 5)).String())
	etEqual(t, "past", e.DeliveredPast().String(), CausesOf(etCause(x, 5)).String())
}

// SPEC §9.6, §2.4, L4: a cause on an unreceived channel does not block, and stays in the frontier.
func TestDrainUnreceivedCauseDoesNotBlock(t *testing.T) {
	a, x := etCh(1, 0), etCh(7, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 0, etRec("x", etCause(x, 1000)))
	etEqual(t, "delivered", etDrain(e), []string{"t1/0@0"})
	if p, ok := e.Frontier().Lookup(x); !ok || p != 1000 {
		t.Fatalf("unreceived cause not re-expressed: %v", e.Frontier())
	}
}

// SPEC §2.2 own channel, D23: a cause below the own position is satisfied once the message is
// head; at or above it the message and everything behind it hold forever, without refusal.
func TestDrainOwnChannelCauses(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 0, etRec("x"))
	etFeed(t, e, a, 1, etRec("x", etCause(a, 0)))
	etEqual(t, "below own", etDrain(e), []string{"t1/0@0", "t1/0@1"})
	etFeed(t, e, a, 2, etRec("x", etCause(a, 2)))
	etFeed(t, e, a, 3, etRec("x"))
	etEqual(t, "at own", etDrain(e), []string(nil))
	etFeed(t, e, a, 4, etRec("x"))
	etEqual(t, "still", etDrain(e), []string(nil))
	if e.Refusal() != nil {
		t.Fatal("own-channel cause refused")
	}
	etEqual(t, "status", e.Status().Channels[0].Blockers, []Blocker{{Channel: a, Required: 2, Settled: 1, SettledKnown: true}})
}

// SPEC §9.5, §2.5 out-of-contract positions and markers: a cause naming a never-yielding position
// holds, visibly, until a later record settles it; the effect may then deliver before that record
// when they are independent. Gaps left by markers are settled by the next record's arrival.
func TestDrainOutOfContractPositionHeldUntilLaterRecord(t *testing.T) {
	c0, c1 := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, etInit(c0, c1), Options{})
	etFeed(t, e, c1, 0, etRec("w"))
	etEqual(t, "w", etDrain(e), []string{"t2/0@0"})
	etFeed(t, e, c0, 0, etRec("effect", etCause(c1, 2))) // 1, 2 are markers
	etEqual(t, "held", etDrain(e), []string(nil))
	etEqual(t, "blocker", e.Status().Channels[0].Blockers, []Blocker{{Channel: c1, Required: 2, Settled: 0, SettledKnown: true}})
	etFeed(t, e, c1, 3, etRec("later"))
	etEqual(t, "released before the record", etDrain(e), []string{"t1/0@0", "t2/0@3"})
}

// SPEC §1.5 baselines: a fresh channel with start position 0 and no receipt blocks every cause on
// it; a start position s > 0 settles everything below s.
func TestDrainStartPositionSettles(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	for _, tc := range []struct {
		start Offset
		want  []string
	}{{0, nil}, {4, nil}, {5, []string{"t1/0@0"}}, {6, []string{"t1/0@0"}}} {
		init := etInit(a, b)
		init.StartPositions = []Cause{etCause(b, tc.start)}
		e := etStart(t, nil, init, Options{})
		etFeed(t, e, a, 0, etRec("x", etCause(b, 4)))
		etEqual(t, "start "+itoa(int64(tc.start)), etDrain(e), tc.want)
	}
}

// SPEC §2.5 retention, L5, §9.10/§9.17/§9.24: a held message survives a restart from committed state
// (however long it waits) and still delivers in order with key, value, headers and timestamp
// intact; nothing is pruned for age.
func TestDrainHeldMessageSurvivesRestart(t *testing.T) {
	c1, c2, x := etCh(1, 0), etCh(2, 0), etCh(7, 0)
	init := etInit(c1, c2)
	e := etStart(t, nil, init, Options{})
	rec := etRec("effect", etCause(c1, 0), etCause(x, 3))
	rec.Headers = append(rec.Headers, Header{Key: "app", Value: []byte("h")})
	etFeed(t, e, c2, 0, rec)
	etDrain(e)
	var st *State
	for i := 0; i < 3; i++ { // restarts with nothing happening: no age-based pruning
		e, st = etRestart(t, e, st, init, Options{})
		if err := e.Identity(nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if p, ok := e.Frontier().Lookup(x); !ok || p != 3 {
		t.Fatalf("frontier lost an old cause: %v", e.Frontier())
	}
	etEqual(t, "still held", etDrain(e), []string(nil))
	etFeed(t, e, c1, 0, etRec("cause"))
	d1, _ := e.Next()
	d2, ok := e.Next()
	if !ok || d1.Channel != c1 || d2.Channel != c2 {
		t.Fatalf("order after restart: %v then %v", d1.Channel, d2.Channel)
	}
	etEqual(t, "value", string(d2.Record.Value), "effect")
	etEqual(t, "key", string(d2.Record.Key), "k")
	etEqual(t, "timestamp", d2.Record.TimestampMicros, int64(42))
	etEqual(t, "headers", d2.Record.Headers, []Header{{Key: "app", Value: []byte("h")}})
}

// SPEC §9.22: every fed message is delivered (four on one channel).
func TestDrainEveryFedMessageDelivered(t *testing.T) {
	a := etCh(1, 0)
	e := etStart(t, nil, etInit(a), Options{})
	etFeed(t, e, a, 0, etRec("x"))
	for pos := Offset(1); pos < 4; pos++ {
		etFeed(t, e, a, pos*2, etRec("x", etCause(a, pos*2-1))) // odd positions: markers
	}
	etEqual(t, "all", etDrain(e), []string{"t1/0@0", "t1/0@2", "t1/0@4", "t1/0@6"})
}

// Drain cost: heads offered per failed drain equal the number of non-empty buffers, whatever
// their depth.
func TestDrainWorkIndependentOfDepth(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	var perDepth []Counters
	for _, depth := range []int{1, 64, 1024} {
		e := etStart(t, nil, etInit(a, b), Options{})
		for i := 0; i < depth; i++ {
			etFeed(t, e, a, Offset(i), etRec("x", etCause(b, 0)))
		}
		before := e.Counters()
		etEqual(t, "held", etDrain(e), []string(nil))
		perDepth = append(perDepth, e.Counters().Minus(before))
	}
	for _, c := range perDepth[1:] {
		etEqual(t, "work vs depth", c, perDepth[0])
	}
	etEqual(t, "heads", perDepth[0].HeadsOffered, uint64(1))
}

// HeldCount follows receipts and deliveries, and while it is 0 Next changes nothing at all (the
// promise a copy-on-write host relies on to skip copying the engine).
func TestDrainHeldCount(t *testing.T) {
	c1, c2 := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, etInit(c1, c2), Options{})
	before := e.Counters()
	if _, ok := e.Next(); ok || e.HeldCount() != 0 || e.Counters() != before {
		t.Fatalf("Next on an empty engine: held %d, counters %+v, want 0 and %+v", e.HeldCount(), e.Counters(), before)
	}
	etFeed(t, e, c2, 0, etRec("effect", etCause(c1, 0)))
	etFeed(t, e, c2, 1, etRec("next"))
	etEqual(t, "held after two receipts", e.HeldCount(), 2)
	etFeed(t, e, c1, 0, etRec("cause"))
	etEqual(t, "held after the cause", e.HeldCount(), 3)
	etEqual(t, "order", etDrain(e), []string{"t1/0@0", "t2/0@0", "t2/0@1"})
	etEqual(t, "held after the drain", e.HeldCount(), 0)
}

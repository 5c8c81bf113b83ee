package oracle

import (
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// The oracle judged from hand-built event sequences: each criterion it owns fires on a small
// sequence that breaks it, and (where the difference is one event) stays quiet on its honest
// twin. No world runs here: the events are what a world would hand the oracle.

// heap is the room the tests' frontiers are copied into.
type heap struct{}

func (heap) CauseRoom(n int) []node.Cause { return make([]node.Cause, 0, n) }

// fixture is an oracle of a world with topics a and b (one partition each, channels 0 and 1) and
// one process (p, index 0).
type fixture struct {
	t    *testing.T
	o    *Oracle
	p    *Proc
	step int
}

func newFixture(t *testing.T) *fixture {
	o := New([]string{"a", "b"}, nil, 0)
	o.OnChannelCreated(0, nc(1), 0, 0, 0)
	o.OnChannelCreated(1, nc(2), 1, 0, 0)
	f := &fixture{t: t, o: &o}
	p := NewProc(0)
	f.p = &p
	o.SetProc(0, f.p)
	return f
}

// nc is the node channel of partition 0 of the topic whose ID is all id.
func nc(id byte) node.Channel {
	var t node.TopicID
	for i := range t {
		t[i] = id
	}
	return node.Channel{Topic: t}
}

// at dates the next event: every event is a step of its own.
func (f *fixture) at() At {
	f.step++
	return At{Step: f.step, Micros: int64(f.step) * 10}
}

// record writes a committed record on channel c at pos whose true past (and header) is past.
func (f *fixture) record(c int32, pos int64, past ...node.Cause) uint64 {
	return f.o.Add(Message{Ch: c, Pos: pos, Sender: -1, Kind: MsgPlain, State: MsgCommitted,
		Past: node.CausesOf(past...), Expressed: node.CausesOf(past...)}, 0)
}

// receive starts an execution receiving channels recv, each from position 0.
func (f *fixture) receive(recv ...int32) {
	f.o.OnReceived(f.at(), f.p, recv, make([]node.Cause, len(recv)), nil, nil)
	f.o.OnStart(f.p)
}

func (f *fixture) feed(c int32, uid uint64, pos int64) {
	f.p.BeginStep()
	f.o.OnFeed(f.at(), f.p, c, uid, pos, heap{})
}

func (f *fixture) deliver(c int32, uid uint64) {
	f.p.BeginStep()
	f.o.OnDeliver(f.at(), f.p, c, uid, heap{})
}

// send emits to channel c at pos a record whose header names causes.
func (f *fixture) send(c int32, pos int64, causes ...node.Cause) {
	f.p.BeginStep()
	f.o.OnSend(f.at(), f.p, c, pos, nil, nil, []node.Header{{Key: node.HeaderKey, Value: EncodeCauses(node.CausesOf(causes...))}})
}

func (f *fixture) commit() { f.o.OnCommit(f.at(), f.p) }

// expect fails unless the oracle found exactly one violation, of criterion crit, whose detail
// contains detail.
func (f *fixture) expect(crit spec.Criterion, detail string) {
	f.t.Helper()
	vs := f.o.Violations()
	if len(vs) != 1 || vs[0].Criterion != crit || !strings.Contains(vs[0].Detail, detail) {
		f.t.Fatalf("found %v; want one %s violation saying %q", vs, crit, detail)
	}
}

// expectNone fails if the oracle found a violation.
func (f *fixture) expectNone() {
	f.t.Helper()
	if vs := f.o.Violations(); len(vs) > 0 {
		f.t.Fatalf("found %v; want none", vs)
	}
}

func TestEventsS1AtDelivery(t *testing.T) {
	f := newFixture(t)
	f.receive(0, 1)
	f.record(0, 0)
	effect := f.record(1, 0, node.Cause{Channel: nc(1), Position: 0})
	f.feed(1, effect, 0)
	f.deliver(1, effect)
	f.commit()
	f.expect(spec.CritS1, "before its true cause m1")
}

func TestEventsS1Lifetime(t *testing.T) {
	for _, inverted := range []bool{false, true} {
		f := newFixture(t)
		cause := f.record(0, 0)
		effect := f.record(1, 0, node.Cause{Channel: nc(1), Position: 0})
		// No execution receives a: the delivery-time half judges nothing.
		if inverted {
			f.deliver(1, effect)
			f.deliver(0, cause)
		} else {
			f.deliver(0, cause)
			f.deliver(1, effect)
		}
		f.commit()
		f.o.OnRunEnd(f.at(), false)
		if !inverted {
			f.expectNone()
			continue
		}
		f.expect(spec.CritS1, "after its effect m2")
		if !f.o.HasInversion(f.p) {
			t.Fatal("HasInversion misses the inversion the lifetime check reports")
		}
	}
}

func TestEventsS2(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m := f.record(0, 0)
	f.feed(0, m, 0)
	f.deliver(0, m)
	f.commit()
	f.expectNone()
	f.deliver(0, m)
	f.commit()
	f.expect(spec.CritS2, "again")
}

func TestEventsS2RolledBackIsNoDelivery(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m := f.record(0, 0)
	f.feed(0, m, 0)
	f.deliver(0, m)
	if !f.o.Rollback(f.p) {
		t.Fatal("a rollback of a step that delivered says it did nothing")
	}
	f.receive(0) // the next execution reads from its start again
	f.feed(0, m, 0)
	f.deliver(0, m)
	f.commit()
	f.expectNone()
}

func TestEventsS3(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m0, m1 := f.record(0, 0), f.record(0, 1)
	f.feed(0, m0, 0)
	f.feed(0, m1, 1)
	f.deliver(0, m1)
	f.commit()
	f.expect(spec.CritS3, "past the earlier undelivered m1")
}

func TestEventsS7(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m := f.o.Add(Message{Ch: 0, Pos: 0, Sender: -1, Kind: MsgCorrupt, State: MsgCommitted, Undecodable: true}, 0)
	f.feed(0, m, 0)
	f.o.Rollback(f.p) // the honest engine refuses it: the step is rolled back
	f.receive(0)
	f.expectNone()
	f.feed(0, m, 0)
	f.commit()
	f.expect(spec.CritS7, "undecodable header of m1")
}

func TestEventsS8Skipped(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	f.record(0, 0)
	m1 := f.record(0, 1)
	f.feed(0, m1, 1)
	f.commit()
	f.expect(spec.CritS8, "read past m1")
}

func TestEventsS8ReadReset(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	f.p.BeginStep()
	f.o.OnReadReset(f.at(), f.p, 0, 0, 3)
	f.commit()
	f.expect(spec.CritS8, "below log start 3")
}

func TestEventsS9(t *testing.T) {
	f := newFixture(t)
	f.receive(0, 1)
	ma, mb := f.record(0, 0, node.Cause{Channel: nc(2), Position: 5}), f.record(1, 0)
	f.feed(0, ma, 0) // held: it names a position of b nothing occupies
	f.feed(1, mb, 0)
	f.o.OnIncarnationDead(0, 1)
	f.deliver(1, mb)
	f.commit()
	f.expect(spec.CritS9, "while holding m1(a#0/0:0) on the deleted channel a#0/0")
}

func TestEventsStruct12(t *testing.T) {
	f := newFixture(t)
	f.send(1, 0, node.Cause{Channel: nc(1), Position: 5})
	f.commit()
	// Never assigned and never seen: over-expression too.
	if vs := f.o.Violations(); len(vs) == 0 || vs[0].Criterion != spec.CritStruct12 || !strings.Contains(vs[0].Detail, "never assigned and never seen") {
		t.Fatalf("found %v; want STRUCT12 first", vs)
	}
}

func TestEventsStruct14(t *testing.T) {
	f := newFixture(t)
	f.record(1, 0)
	f.send(1, 1, node.Cause{Channel: nc(2), Position: 1})
	f.commit()
	if vs := f.o.Violations(); len(vs) == 0 || vs[0].Criterion != spec.CritStruct14 || !strings.Contains(vs[0].Detail, "names its own channel at 1") {
		t.Fatalf("found %v; want STRUCT14 first", vs)
	}
}

func TestEventsStruct15(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m := f.record(0, 0)
	f.feed(0, m, 0)
	f.deliver(0, m)
	f.send(1, 0)
	f.commit()
	f.expect(spec.CritStruct15, "does not express its true cause")
}

func TestEventsStruct15NoHeader(t *testing.T) {
	f := newFixture(t)
	f.p.BeginStep()
	f.o.OnSend(f.at(), f.p, 1, 0, nil, nil, nil)
	f.commit()
	f.expect(spec.CritStruct15, "carries no")
}

func TestEventsOverexpression(t *testing.T) {
	f := newFixture(t)
	f.record(0, 0) // assigned, never fed or delivered to p
	f.send(1, 0, node.Cause{Channel: nc(1), Position: 0})
	f.commit()
	f.expect(spec.CritOverexpression, "beyond everything delivered or seen")
}

func TestEventsOverRefusal(t *testing.T) {
	for _, entitled := range []bool{false, true} {
		f := newFixture(t)
		f.receive(0)
		if entitled {
			f.p.OnIdentityChanged()
		}
		f.o.OnRefused(f.at(), f.p, &node.Refusal{Reason: node.ReasonChannelIdentityChanged, Channel: nc(1), Position: -1}, false)
		if entitled {
			f.expectNone()
			continue
		}
		f.expect(spec.CritOverRefusal, "with no injected cause")
	}
}

func TestEventsRecreation(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	f.o.OnIncarnationDead(0, 1)
	f.o.OnChannelCreated(2, nc(3), 0, 1, 0)
	f.p.BeginStep()
	f.commit()
	f.expect(spec.CritRecreation, "committed while receiving a#0/0, whose name now binds to incarnation 1")
}

func TestEventsLiveness(t *testing.T) {
	for _, failed := range []bool{false, true} {
		f := newFixture(t)
		f.receive(0)
		m := f.record(0, 0)
		f.feed(0, m, 0)
		f.commit()
		if failed { // a process that failed closed is waived
			f.p.OnIdentityChanged()
			f.o.OnRefused(f.at(), f.p, &node.Refusal{Reason: node.ReasonChannelIdentityChanged, Channel: nc(1), Position: -1}, false)
		}
		f.o.OnRunEnd(f.at(), true)
		if failed {
			f.expectNone()
			continue
		}
		f.expect(spec.CritLiveness, "m1(a#0/0:0) was fed at step")
	}
}

func TestEventsHostH1(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	m0, m1 := f.record(0, 0), f.record(0, 1)
	f.feed(0, m0, 0)
	f.feed(0, m1, 1)
	f.o.OnRefeed(f.at(), f.p, 0, m0, 0)
	f.expect(spec.CritHost, "H1: fed m1")
}

func TestEventsHostH2(t *testing.T) {
	f := newFixture(t)
	f.receive(0)
	f.p.OnReadFrom(0)
	f.p.BeginStep()
	f.commit()
	f.record(0, 0)
	offs := []substrate.GroupOffset{{TopicPartition: substrate.TopicPartition{Topic: substrate.TopicID(nc(1).Topic)}, Offset: 1}}
	f.o.OnReceived(f.at(), f.p, []int32{0}, []node.Cause{{Channel: nc(1), Position: 1}}, offs, nil)
	f.expect(spec.CritHost, "H2: start position 1 on a#0/0 covers m1")
}

func TestEventsHostStartRule(t *testing.T) {
	// A joiner (no committed offset, no state) starts at the log start of its live incarnation.
	f := newFixture(t)
	f.o.OnLogMoved(0, 3, 5)
	f.o.OnReceived(f.at(), f.p, []int32{0}, []node.Cause{{Channel: nc(1), Position: 3}}, nil, nil)
	f.expectNone()
	f.o.OnReceived(f.at(), f.p, []int32{0}, []node.Cause{{Channel: nc(1), Position: 0}}, nil, nil)
	f.expect(spec.CritHost, "H2: start position 0 on a#0/0, where SPEC §7.4 starts it at 3")
}

func TestEventsHostH6(t *testing.T) {
	f := newFixture(t)
	offs := []substrate.GroupOffset{{Offset: 1}}
	f.o.OnZombieCommit(f.at(), f.p, offs, offs, nil, nil)
	f.expectNone()
	f.o.OnZombieCommit(f.at(), f.p, offs, []substrate.GroupOffset{{Offset: 2}}, nil, nil)
	f.expect(spec.CritHost, "H6: a superseded execution committed read positions")
}

// reporter records what it hears.
type reporter []string

func (r *reporter) ReportViolation(proc int, text string) { *r = append(*r, text) }

// TestEventsReporterHearsViolationsFoundNow checks the reporter hears a violation found now and
// that a disabled criterion is neither reported nor heard.
func TestEventsReporterHearsViolationsFoundNow(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		f := newFixture(t)
		if disabled {
			f.o.disabled = []spec.Criterion{spec.CritHost}
		}
		var r reporter
		f.o.SetReporter(&r)
		offs := []substrate.GroupOffset{{Offset: 1}}
		f.o.OnZombieCommit(f.at(), f.p, offs, nil, nil, nil)
		if disabled {
			if len(r) != 0 || len(f.o.Violations()) != 0 {
				t.Fatalf("a disabled criterion was reported: %v, heard %q", f.o.Violations(), r)
			}
			continue
		}
		if len(r) != 1 || !strings.HasPrefix(r[0], "HOST: H6") {
			t.Fatalf("heard %q", r)
		}
	}
}

// TestEventsReporterHearsStagedViolationsAtTheCommit checks the reporter hears a violation
// staged in a step when the step commits, as the violations list gets it, and never one the
// step's rollback drops.
func TestEventsReporterHearsStagedViolationsAtTheCommit(t *testing.T) {
	for _, commit := range []bool{true, false} {
		f := newFixture(t)
		var r reporter
		f.o.SetReporter(&r)
		f.receive(0, 1)
		f.record(0, 0)
		effect := f.record(1, 0, node.Cause{Channel: nc(1), Position: 0})
		f.feed(1, effect, 0)
		f.deliver(1, effect)
		if len(r) != 0 {
			t.Fatalf("heard %q before the step ended", r)
		}
		if !commit {
			f.o.Rollback(f.p)
			if len(r) != 0 || len(f.o.Violations()) != 0 {
				t.Fatalf("a rolled-back step's violation was reported: %v, heard %q", f.o.Violations(), r)
			}
			continue
		}
		f.commit()
		if len(r) != 1 || !strings.HasPrefix(r[0], "S1: ") || len(f.o.Violations()) != 1 {
			t.Fatalf("heard %q, violations %v; want the staged S1 violation once", r, f.o.Violations())
		}
	}
}

// referenceStart starts process p's reference node receiving a and sending to b, the engine's
// start and identity report agreeing.
func (f *fixture) referenceStart() *Reference {
	r := NewReference(0)
	init := node.Init{Received: []node.Channel{nc(1)}, Bindings: []node.Binding{{Name: "a", Topic: nc(1).Topic}},
		SendTopics: []node.TopicID{nc(2).Topic}, StartPositions: []node.Cause{{Channel: nc(1), Position: 0}}}
	f.o.RefStart(f.at(), &r, init, nil, nil, nil, nil)
	if r.Live() == nil || r.Off() {
		f.t.Fatal("the reference node did not start")
	}
	return &r
}

func TestEventsReference(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newFixture(t)
		r := f.referenceStart()
		// The engine stamps an emission to b, with nothing delivered: the empty frontier, or
		// (deviating) a cause it never received.
		stamp := node.Causes{}
		if !honest {
			stamp = node.CausesOf(node.Cause{Channel: nc(1), Position: 3})
		}
		stamped := node.Record{Headers: []node.Header{{Key: node.HeaderKey, Value: EncodeCauses(stamp)}}}
		f.o.RefEmit(f.at(), r, 1, node.Record{}, stamped, nil)
		if honest {
			f.expectNone()
			continue
		}
		f.expect(spec.CritReference, "stamp of an emission to b")
		if !r.Off() || r.Live() != nil {
			t.Fatal("the process is still judged after a disagreement")
		}
		// Not judged again: a second disagreement is not reported.
		f.o.RefEmit(f.at(), r, 1, node.Record{}, stamped, nil)
		f.expect(spec.CritReference, "stamp of an emission to b")
	}
}

// sessions is one session client (0) over the fixture's world, whose processes p (0) and q (1)
// project.
type sessions struct {
	*fixture
	s  Sessions
	op int
}

func newSessions(t *testing.T) *sessions {
	f := &sessions{fixture: newFixture(t), s: NewSessions(1, 2)}
	f.s.AddProjector(0, "p")
	f.s.AddProjector(1, "q")
	f.o.OnSessionStarted(&f.s, 0, 7)
	return f
}

// project makes projector p deliver and commit record uid: a row of its projection.
func (f *sessions) project(p int, uid uint64) {
	f.o.OnProjectorDelivered(&f.s, p, uid)
	f.o.OnProjectorCommitted(&f.s, p)
}

// write makes the client write a committed record to channel c at pos whose header expresses
// expressed, the tier handing back a token naming the record.
func (f *sessions) write(c int32, pos int64, expressed ...node.Cause) uint64 {
	f.op++
	uid := f.o.OnSessionProduced(&f.s, 0, Message{Ch: c, Pos: pos, Sender: -1, Kind: MsgSession, State: MsgCommitted,
		Expressed: node.CausesOf(expressed...)}, 0)
	f.o.OnSessionWrite(f.at(), &f.s, 0, f.op, uid, true, node.CausesOf(node.Cause{Channel: f.o.Channel(c), Position: node.Offset(pos)}))
	return uid
}

// read makes a tier serve the client a read by the projectors served, the client presenting
// the token presented and the tier handing back minted.
func (f *sessions) read(served []int, presented, minted node.Causes) {
	f.op++
	f.o.OnSessionRead(f.at(), &f.s, &SessionRead{Client: 0, Op: f.op, Model: "m", Served: served,
		Presented: EncodeCauses(presented), Minted: minted})
}

func TestEventsSessionRYW(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		uid := f.write(0, 0)
		if honest {
			f.project(0, uid)
		}
		f.read([]int{0}, node.Causes{}, node.Causes{})
		if honest {
			f.expectNone()
		} else {
			f.expect(spec.CritSessionRYW, "client 0 session 7: read op 2 of m served by p reflects a#0/0 only up to")
		}
	}
}

func TestEventsSessionMR(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		uid := f.record(0, 0)
		f.project(0, uid)
		if honest {
			f.project(1, uid)
		}
		f.read([]int{0}, node.Causes{}, node.Causes{})
		f.read([]int{1}, node.Causes{}, node.Causes{})
		if honest {
			f.expectNone()
		} else {
			f.expect(spec.CritSessionMR, "read op 2 of m served by q reflects a#0/0 only up to")
		}
	}
}

func TestEventsSessionWFR(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		row := node.Cause{Channel: nc(1), Position: 0}
		f.project(0, f.record(0, 0))
		f.read([]int{0}, node.Causes{}, node.Causes{})
		if honest {
			f.write(1, 0, row)
			f.expectNone()
		} else {
			f.write(1, 0)
			f.expect(spec.CritSessionWFR, "write op 2 (m2(b#0/0:0)) carries a#0/0 only up to nothing")
		}
	}
}

func TestEventsSessionCoverage(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		uid := f.record(0, 0)
		if honest {
			f.project(0, uid)
		}
		f.read([]int{0}, node.CausesOf(node.Cause{Channel: nc(1), Position: 0}), node.Causes{})
		if honest {
			f.expectNone()
		} else {
			f.expect(spec.CritSessionCoverage, "served by p, whose true past does not cover the token")
		}
	}
}

func TestEventsSessionToken(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		f.record(0, 0)
		pos := node.Offset(0)
		if !honest {
			pos = 5
		}
		f.read([]int{0}, node.Causes{}, node.CausesOf(node.Cause{Channel: nc(1), Position: pos}))
		if honest {
			f.expectNone()
		} else {
			f.expect(spec.CritSessionToken, "read op 1 handed back a token naming a#0/0:5, which is no record")
		}
	}
}

func TestEventsSessionDamaged(t *testing.T) {
	for _, honest := range []bool{true, false} {
		f := newSessions(t)
		damage := spec.TokenTruncated
		if honest {
			damage = spec.TokenIntact
		}
		f.o.OnTokenAccepted(f.at(), &f.s, 0, 1, damage, func() string { return "read op 1 of m used it as past{}" })
		if honest {
			f.expectNone()
		} else {
			f.expect(spec.CritSessionDamaged, "op 1: the tier accepted a token damaged in flight")
		}
	}
}

// A refusal in the trace names its channel, and the topic IDs of its detail, as the world names
// them; a topic ID the world never created, and a refusal about no channel, stay as the engine
// wrote them.
func TestRefusalTextNamesChannelsAsTheWorldDoes(t *testing.T) {
	f := newFixture(t)
	stranger := nc(9).Topic.String()
	for _, c := range []struct {
		r    node.Refusal
		want string
	}{
		{node.Refusal{Reason: node.ReasonUndecodableMetadata, Channel: nc(1), Position: 3,
			Detail: "topic " + nc(2).Topic.String() + " partition 0: position 2^63-1 is reserved"},
			"UNDECODABLE_METADATA on a#0/0@3: topic b#0 partition 0: position 2^63-1 is reserved"},
		{node.Refusal{Reason: node.ReasonChannelIdentityChanged, Channel: nc(2), Position: -1,
			Detail: "received topic " + nc(2).Topic.String() + " was recreated"},
			"CHANNEL_IDENTITY_CHANGED on b#0/0: received topic b#0 was recreated"},
		{node.Refusal{Reason: node.ReasonUndecodableMetadata, Channel: nc(1), Position: 0, Detail: "topic " + stranger},
			"UNDECODABLE_METADATA on a#0/0@0: topic " + stranger},
		{node.Refusal{Reason: node.ReasonUnknownOrderingStateFormat, Position: -1, Detail: "version 9"},
			"UNKNOWN_ORDERING_STATE_FORMAT: version 9"},
	} {
		if got := f.o.RefusalText(&c.r); got != c.want {
			t.Errorf("RefusalText(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

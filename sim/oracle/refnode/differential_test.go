package refnode_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
	"pgregory.net/rapid"
)

// The differential test: random input sequences — starts (received sets, bindings, start
// positions, send topics, budgets), identity reports, receipts with valid, forged and undecodable
// headers, drains, emissions, commits, crashes — driven into node's engine and the reference
// node, which must agree at every call: every refusal's reason, every receipt's outcome, every
// delivery (channel, position, record) in order, every stamp's bytes, and the committed state the
// host's commit builds from the engine's deltas against the model's own committed state.

// The universe: three topic names, each with two incarnations (the second a recreation), two
// partitions each. The IDs' first bytes 0x01, 0x7f and 0x80 make signed and unsigned orders
// disagree.
var (
	names  = []string{"a", "b", "c"}
	topics = [3][2]node.TopicID{
		{id(0x01, 1), id(0x01, 2)},
		{id(0x7f, 1), id(0x7f, 2)},
		{id(0x80, 1), id(0x80, 2)},
	}
)

func id(first, last byte) node.TopicID {
	var t node.TopicID
	t[0], t[15] = first, last
	return t
}

// allTopics lists every topic ID of the universe.
func allTopics() []node.TopicID {
	var out []node.TopicID
	for _, inc := range topics {
		out = append(out, inc[0], inc[1])
	}
	return out
}

// allChannels lists every channel of the universe.
func allChannels() []node.Channel {
	var out []node.Channel
	for _, t := range allTopics() {
		out = append(out, node.Channel{Topic: t, Partition: 0}, node.Channel{Topic: t, Partition: 1})
	}
	return out
}

// pair is a process as both implementations see it: committed states and, while an execution
// is live, the two executions.
type pair struct {
	t        *rapid.T
	sabotage node.Sabotage

	engState *node.State
	refState *refnode.State

	// seen counts what the sequence exercised: refusal reasons, receipt outcomes, deliveries,
	// stamps and commits (TestDifferentialCoverage).
	seen map[string]int

	eng     *node.Engine
	ref     *refnode.Node
	recv    []node.Channel
	lastFed map[node.Channel]node.Offset
	sends   []node.TopicID
}

// disagreement stops a sequence at the first call on which the two disagree.
type disagreement struct{ detail string }

// disagree stops the sequence with both answers.
func (p *pair) disagree(call string, engine, model any) {
	panic(disagreement{fmt.Sprintf("%s: engine %v, model %v", call, engine, model)})
}

// run drives one random sequence and returns the first disagreement, "" if there was none.
func (p *pair) run() (failure string) {
	defer func() {
		if r := recover(); r != nil {
			d, ok := r.(disagreement)
			if !ok {
				panic(r)
			}
			failure = d.detail
		}
	}()
	p.engState = &node.State{}
	p.seen = map[string]int{}
	n := rapid.IntRange(1, 80).Draw(p.t, "calls")
	for range n {
		if p.eng == nil {
			p.start()
			continue
		}
		switch rapid.IntRange(0, 15).Draw(p.t, "action") {
		case 0, 1, 2, 3, 4, 5:
			if len(p.recv) > 0 {
				p.receive()
			}
		case 6, 7, 8:
			p.drain()
		case 9, 10:
			p.emit()
		case 11, 12:
			p.commit()
		case 13:
			p.commit()
			p.end()
		default:
			p.end() // a crash: the step's changes are gone on both sides
		}
	}
	return ""
}

func (p *pair) end() { p.eng, p.ref, p.recv = nil, nil, nil }

// start draws an execution's Init and starts both, then hands both the same identity report.
func (p *pair) start() {
	var init node.Init
	for i, name := range names {
		// Mostly keep the recorded incarnation and the channels holding messages: a process
		// whose start refuses stays refused, and ends the sequence's interesting part.
		inc := rapid.IntRange(-1, 1).Draw(p.t, "incarnation of "+name)
		parts := rapid.IntRange(1, 3).Draw(p.t, "partitions of "+name)
		for k, t := range topics[i] {
			if recorded(p.engState, name, t) && rapid.IntRange(0, 7).Draw(p.t, "keep binding") > 0 {
				inc = k
			}
			for part := range 2 {
				c := node.Channel{Topic: t, Partition: node.Partition(part)}
				if len(p.engState.Held(c)) > 0 && rapid.IntRange(0, 9).Draw(p.t, "keep held channel") > 0 {
					inc, parts = k, parts|1<<part
				}
			}
		}
		if inc < 0 {
			continue
		}
		t := topics[i][inc]
		for part := range 2 {
			if parts&(1<<part) != 0 {
				init.Received = append(init.Received, node.Channel{Topic: t, Partition: node.Partition(part)})
			}
		}
		init.Bindings = append(init.Bindings, node.Binding{Name: name, Topic: t})
	}
	for _, c := range init.Received {
		s := node.Offset(rapid.IntRange(0, 12).Draw(p.t, "start position"))
		if f, ok := p.engState.FedUpTo(c); ok && f < node.MaxOffset && rapid.Bool().Draw(p.t, "resume at coverage") {
			s = f + 1
		}
		init.StartPositions = append(init.StartPositions, node.Cause{Channel: c, Position: s})
	}
	for _, t := range allTopics() {
		if rapid.IntRange(0, 3).Draw(p.t, "sends to") == 0 {
			init.SendTopics = append(init.SendTopics, t)
		}
	}
	budget := 0
	if rapid.IntRange(0, 5).Draw(p.t, "small budget") == 0 {
		budget = rapid.IntRange(2, 90).Draw(p.t, "budget")
	}
	eng, eerr := node.Start(p.engState, init, node.Options{MetadataBudgetBytes: budget, Sabotage: p.sabotage})
	ref, rerr := refnode.Start(p.refState, refInit(init, budget))
	if !sameRefusal(eerr, rerr) {
		p.disagree("start", eerr, rerr)
	}
	p.note("start", eerr)
	if eerr != nil {
		return
	}
	var dead, recreated []node.TopicID
	if rapid.IntRange(0, 3).Draw(p.t, "identity names topics") == 0 {
		for _, t := range allTopics() {
			switch rapid.IntRange(0, 5).Draw(p.t, "identity of topic") {
			case 0:
				dead = append(dead, t)
			case 1:
				recreated = append(recreated, t)
			}
		}
	}
	eerr, rerr = eng.Identity(dead, recreated), ref.Identity(refTopics(dead), refTopics(recreated))
	if !sameRefusal(eerr, rerr) {
		p.disagree("identity", eerr, rerr)
	}
	p.note("identity", eerr)
	if eerr != nil {
		return
	}
	p.eng, p.ref, p.recv, p.sends = eng, ref, init.Received, init.SendTopics
	p.lastFed = map[node.Channel]node.Offset{}
}

// recorded reports whether st binds name to t.
func recorded(st *node.State, name string, t node.TopicID) bool {
	for _, b := range st.Bindings() {
		if b.Name == name {
			return b.Topic == t
		}
	}
	return false
}

// receive feeds both a record on a received channel.
func (p *pair) receive() {
	c := rapid.SampledFrom(p.recv).Draw(p.t, "channel")
	var pos node.Offset
	last, ok := p.lastFed[c]
	switch {
	case ok && rapid.IntRange(0, 9).Draw(p.t, "regress") == 0:
		pos = node.Offset(rapid.Int64Range(0, int64(last)).Draw(p.t, "position"))
	case ok:
		pos = last + 1 + node.Offset(rapid.IntRange(0, 2).Draw(p.t, "gap"))
	default:
		pos = node.Offset(rapid.IntRange(0, 14).Draw(p.t, "position"))
	}
	p.lastFed[c] = max(pos, last)
	rec := node.Record{
		Key:             []byte{byte(rapid.IntRange(0, 3).Draw(p.t, "key"))},
		Value:           []byte(fmt.Sprintf("v%d", pos)),
		Headers:         drawHeaders(p.t, c, pos),
		TimestampMicros: int64(rapid.IntRange(0, 9).Draw(p.t, "timestamp")),
	}
	out, eerr := p.eng.Receive(c, pos, rec)
	rout, rerr := p.ref.Receive(refChannel(c), refnode.Position(pos), refRecord(rec))
	if !sameRefusal(eerr, rerr) || (eerr == nil && out.String() != rout.String()) {
		p.disagree(fmt.Sprintf("receive %v@%d", c, pos), answer(out, eerr), answer(rout, rerr))
	}
	if eerr == nil {
		p.note(out.String(), nil)
	} else {
		p.note("receive", eerr)
	}
	if eerr != nil {
		p.end()
	}
}

// drain asks both for deliveries until neither has one.
func (p *pair) drain() {
	for {
		d, ok := p.eng.Next()
		rd, rok := p.ref.Next()
		if ok != rok || (ok && (refChannel(d.Channel) != rd.Channel || refnode.Position(d.Position) != rd.Position ||
			refnode.DiffRecord(refRecord(d.Record), rd.Record) != "")) {
			p.disagree("next", delivery(d, ok), refDelivery(rd, rok))
		}
		if !ok {
			break
		}
		p.note("delivery", nil)
	}
	if eref, rref := p.eng.Refusal(), p.ref.Refusal(); !sameRefusal(errOf(eref), rref) {
		p.disagree("refusal after drain", eref, rref)
	}
	if p.eng.Refusal() != nil {
		p.note("delivery", p.eng.Refusal())
		p.end()
	}
}

// emit stamps an emission on both.
func (p *pair) emit() {
	topic := rapid.SampledFrom(allTopics()).Draw(p.t, "emission topic")
	if len(p.sends) > 0 && rapid.IntRange(0, 9).Draw(p.t, "undeclared") > 0 {
		topic = rapid.SampledFrom(p.sends).Draw(p.t, "emission topic")
	}
	c := node.Channel{Topic: topic, Partition: node.Partition(rapid.IntRange(0, 1).Draw(p.t, "emission partition"))}
	var hs []node.Header
	switch rapid.IntRange(0, 9).Draw(p.t, "emission headers") {
	case 0:
		hs = []node.Header{{Key: "app", Value: []byte("x")}}
	case 1:
		hs = []node.Header{{Key: "parsley.mine", Value: []byte("x")}}
	}
	rec, eerr := p.eng.Emit(c, node.Record{Key: []byte("k"), Value: []byte("v"), Headers: hs})
	stamp, rerr := p.ref.Emit(refChannel(c), refnode.Record{Key: []byte("k"), Value: []byte("v"), Headers: refHeaders(hs)})
	if !sameRefusal(eerr, rerr) {
		p.disagree("emit", eerr, rerr)
	}
	p.note("emit", eerr)
	if eerr != nil {
		p.end()
		return
	}
	value, present, err := node.CausesHeader(rec.Headers)
	if err != nil || !present || string(value) != string(stamp) {
		p.disagree("stamp", fmt.Sprintf("%x (%v)", value, err), fmt.Sprintf("%x", stamp))
	}
}

// commit commits both: the engine's delta applied to the host's copy of its state, against the
// model's own commit.
func (p *pair) commit() {
	d := p.eng.Commit()
	if p.engState == nil {
		p.engState = &node.State{}
		p.seen = map[string]int{}
	}
	if err := p.engState.Apply(d); err != nil {
		p.disagree("applying the engine's delta", err, "")
	}
	p.refState = p.ref.Commit()
	if diff := refState(p.engState).Diff(p.refState); diff != "" {
		p.disagree("committed state", diff, "(the other side of the difference)")
	}
	p.note("commit", nil)
}

// drawHeaders draws a record's headers: none, a valid or forged parsley.causes header, an
// undecodable one, two of them, and other headers beside them.
func drawHeaders(t *rapid.T, c node.Channel, pos node.Offset) []node.Header {
	var hs []node.Header
	if rapid.IntRange(0, 4).Draw(t, "app header") == 0 {
		hs = append(hs, node.Header{Key: "app", Value: []byte("h")})
	}
	if rapid.IntRange(0, 6).Draw(t, "other parsley header") == 0 {
		hs = append(hs, node.Header{Key: "parsley.other", Value: []byte{9}})
	}
	switch rapid.IntRange(0, 9).Draw(t, "causes header") {
	case 0, 1:
	case 2:
		hs = append(hs, node.Header{Key: node.HeaderKey, Value: rapid.SampledFrom(undecodable()).Draw(t, "undecodable")})
	case 3:
		v := node.Encode(drawCauses(t, c, pos))
		hs = append(hs, node.Header{Key: node.HeaderKey, Value: v}, node.Header{Key: node.HeaderKey, Value: v})
	default:
		hs = append(hs, node.Header{Key: node.HeaderKey, Value: node.Encode(drawCauses(t, c, pos))})
	}
	return hs
}

// drawCauses draws up to four causes: mostly small positions on the universe's channels, some
// forged far beyond any log, some on the record's own channel at or above its position.
func drawCauses(t *rapid.T, c node.Channel, pos node.Offset) node.Causes {
	var pairs []node.Cause
	for range rapid.IntRange(0, 4).Draw(t, "cause count") {
		ch := rapid.SampledFrom(allChannels()).Draw(t, "cause channel")
		q := node.Offset(rapid.IntRange(0, 12).Draw(t, "cause position"))
		switch rapid.IntRange(0, 9).Draw(t, "cause kind") {
		case 0:
			q = node.Offset(rapid.Int64Range(1<<40, int64(node.MaxOffset)-1).Draw(t, "forged position"))
		case 1:
			ch, q = c, pos+node.Offset(rapid.IntRange(-2, 1).Draw(t, "own-channel offset"))
		}
		if q >= 0 {
			pairs = append(pairs, node.Cause{Channel: ch, Position: q})
		}
	}
	return node.CausesOf(pairs...)
}

// undecodable lists header values SPEC §4.7 says must fail closed.
func undecodable() [][]byte {
	one := node.Encode(node.CausesOf(node.Cause{Channel: allChannels()[0], Position: 3}))
	neg := slices.Clone(one)
	binary.BigEndian.PutUint64(neg[len(neg)-8:], uint64(1)<<63|5)
	end := slices.Clone(one)
	binary.BigEndian.PutUint64(end[len(end)-8:], uint64(node.MaxOffset))
	zero := slices.Clone(one)
	clear(zero[2:18])
	return [][]byte{
		nil, {}, {0x02, 0x00}, {0x01, 0x00, 0x00}, {0x01, 0x81, 0x00}, {0x01, 0xac},
		{0x01, 0x85, 0x80, 0x80, 0x80, 0x10}, {0x63, 0x01, 0x02, 0x03},
		one[:len(one)-1], append(slices.Clone(one), 0), neg, end, zero,
	}
}

// The conversions from node's types to the model's: inputs are the same bytes.

func refChannel(c node.Channel) refnode.Channel {
	return refnode.Channel{Topic: refnode.TopicID(c.Topic), Partition: int32(c.Partition)}
}

func refTopics(ts []node.TopicID) []refnode.TopicID {
	out := make([]refnode.TopicID, len(ts))
	for i, t := range ts {
		out[i] = refnode.TopicID(t)
	}
	return out
}

func refHeaders(hs []node.Header) []refnode.Header {
	var out []refnode.Header
	for _, h := range hs {
		out = append(out, refnode.Header{Key: h.Key, Value: h.Value})
	}
	return out
}

func refRecord(r node.Record) refnode.Record {
	return refnode.Record{Key: r.Key, Value: r.Value, Headers: refHeaders(r.Headers), TimestampMicros: r.TimestampMicros}
}

func refCauses(c node.Causes) refnode.Positions {
	var out refnode.Positions
	for _, p := range c.Pairs() {
		out.Set(refChannel(p.Channel), refnode.Position(p.Position))
	}
	return out
}

func refInit(init node.Init, budget int) refnode.Init {
	out := refnode.Init{SendTopics: refTopics(init.SendTopics), BudgetBytes: budget}
	for _, c := range init.Received {
		out.Received = append(out.Received, refChannel(c))
	}
	for _, b := range init.Bindings {
		out.Bindings = append(out.Bindings, refnode.Binding{Name: b.Name, Topic: refnode.TopicID(b.Topic)})
	}
	for _, s := range init.StartPositions {
		out.Starts.Set(refChannel(s.Channel), refnode.Position(s.Position))
	}
	return out
}

// refState is the meaning of a committed node.State in the model's terms.
func refState(s *node.State) *refnode.State {
	out := &refnode.State{Version: s.Version(), Frontier: refCauses(s.Frontier()), Past: refCauses(s.DeliveredPast())}
	for _, b := range s.Bindings() {
		out.Bindings = append(out.Bindings, refnode.Binding{Name: b.Name, Topic: refnode.TopicID(b.Topic)})
	}
	for _, f := range s.FedPositions() {
		out.Fed = append(out.Fed, refnode.Entry{Channel: refChannel(f.Channel), Position: refnode.Position(f.FedUpTo)})
	}
	for _, c := range s.HeldChannels() {
		buf := refnode.Buffer{Channel: refChannel(c)}
		for _, m := range s.Held(c) {
			buf.Messages = append(buf.Messages, &refnode.Message{Channel: refChannel(m.Channel),
				Position: refnode.Position(m.Position), Record: refRecord(m.Record), Causes: refCauses(m.Causes)})
		}
		out.Held = append(out.Held, buf)
	}
	return out
}

// note counts what a call's answer exercised.
func (p *pair) note(what string, err error) {
	var r *node.Refusal
	if errors.As(err, &r) {
		what = string(r.Reason) + " at " + what
	}
	p.seen[what]++
}

// sameRefusal reports whether both refused with the same reason, or neither refused.
func sameRefusal(eerr error, rerr *refnode.Refusal) bool {
	if eerr == nil || rerr == nil {
		return eerr == nil && rerr == nil
	}
	var r *node.Refusal
	return errors.As(eerr, &r) && string(r.Reason) == string(rerr.Reason)
}

func errOf(r *node.Refusal) error {
	if r == nil {
		return nil
	}
	return r
}

func answer(out fmt.Stringer, err any) string {
	if err != nil && fmt.Sprint(err) != "<nil>" {
		return fmt.Sprint(err)
	}
	return out.String()
}

func refDelivery(d refnode.Delivery, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%v@%d", d.Channel, d.Position)
}

func delivery(d node.Delivery, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%v@%d", d.Channel, d.Position)
}

// TestModelAgreesWithTheEngine is the differential property over the honest engine.
func TestModelAgreesWithTheEngine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if failure := (&pair{t: t}).run(); failure != "" {
			t.Fatal(failure)
		}
	})
}

// TestDifferentialCoverage shows the generator reaches what the property compares: every
// refusal reason the engine raises through its calls, at each place it can raise it, receipts
// held and dropped as replays, deliveries, stamps and commits. (COVERED_POSITION_FED is
// unreachable, TestModelCatchesEverySabotageMode; UNKNOWN_ORDERING_STATE_FORMAT needs a corrupt
// committed state, TestModelRefusesCorruptState.)
func TestDifferentialCoverage(t *testing.T) {
	seen := map[string]int{}
	gen := rapid.Custom(func(rt *rapid.T) map[string]int {
		p := &pair{t: rt}
		if failure := p.run(); failure != "" {
			t.Fatal(failure)
		}
		return p.seen
	})
	for seed := range 400 {
		for k, n := range gen.Example(seed) {
			seen[k] += n
		}
	}
	want := []string{"start", "identity", "held", "duplicate", "delivery", "emit", "commit",
		"CHANNEL_REMOVED_WITH_HELD_MESSAGES at start", "CHANNEL_IDENTITY_CHANGED at start",
		"CHANNEL_IDENTITY_CHANGED at identity", "CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES at identity",
		"UNDECODABLE_METADATA at receive", "METADATA_BUDGET_EXCEEDED at receive", "OUT_OF_ORDER_FEED at receive",
		"METADATA_BUDGET_EXCEEDED at delivery", "METADATA_BUDGET_EXCEEDED at emit",
		"EMISSION_TO_UNDECLARED_CHANNEL at emit", "RESERVED_HEADER_USED at emit"}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("no sequence exercised %q (seen: %v)", k, seen)
		}
	}
}

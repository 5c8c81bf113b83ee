package oracle

import (
	"errors"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
	"github.com/parsleysim/parsleysim/substrate"
)

// SameCommitted reports whether the committed state the host persisted means what the model's
// means: same version, bindings, fedUpTo, frontier, delivered past and held messages (position,
// record and causes) in order. Both list everything in the same order (names; channels).
//
// A held message's record and causes are compared only when it is new since prev, the model's
// state at this execution's previous commit (nil: compare all), whose holds were found equal
// then: within an execution a committed hold is never changed in place on either side (each
// buffer is a FIFO that loses heads and gains tails; node.State.Apply refuses a hold it already
// has), so, the positions being equal, so are the older holds. Every position is compared.
func SameCommitted(st *node.State, ref, prev *refnode.State) bool {
	if st == nil {
		st = &node.State{}
	}
	bindings, fed, heldChans := st.Bindings(), st.FedPositions(), st.HeldChannels()
	if st.Version() != ref.Version || len(bindings) != len(ref.Bindings) || len(fed) != len(ref.Fed) || len(heldChans) != len(ref.Held) {
		return false
	}
	for i, b := range bindings {
		if ref.Bindings[i] != (refnode.Binding{Name: b.Name, Topic: refnode.TopicID(b.Topic)}) {
			return false
		}
	}
	for i, f := range fed {
		if ref.Fed[i] != (refnode.Entry{Channel: refChannel(f.Channel), Position: refnode.Position(f.FedUpTo)}) {
			return false
		}
	}
	if !sameCauses(st.Frontier(), ref.Frontier) || !sameCauses(st.DeliveredPast(), ref.Past) {
		return false
	}
	for i, c := range heldChans {
		held, want := st.Held(c), ref.Held[i].Messages
		if ref.Held[i].Channel != refChannel(c) || len(held) != len(want) {
			return false
		}
		seen := lastHeld(prev, ref.Held[i].Channel) // holds at or below it were compared before
		for j := range held {
			if refnode.Position(held[j].Position) != want[j].Position || refChannel(held[j].Channel) != want[j].Channel {
				return false
			}
			if want[j].Position > seen && (!sameRecord(held[j].Record, want[j].Record) || !sameCauses(held[j].Causes, want[j].Causes)) {
				return false
			}
		}
	}
	return true
}

// lastHeld returns the position of the last message st holds on c, -1 when it holds none there
// or st is nil.
func lastHeld(st *refnode.State, c refnode.Channel) refnode.Position {
	if st == nil {
		return -1
	}
	for _, b := range st.Held {
		if b.Channel == c {
			return b.Messages[len(b.Messages)-1].Position
		}
	}
	return -1
}

// sameCauses reports whether a frontier names exactly the model's positions.
func sameCauses(c node.Causes, p refnode.Positions) bool {
	if c.Len() != len(p) {
		return false
	}
	for i, e := range c.Pairs() {
		if p[i] != (refnode.Entry{Channel: refChannel(e.Channel), Position: refnode.Position(e.Position)}) {
			return false
		}
	}
	return true
}

// sameRecord reports whether the engine's record is the model's: same key, value, headers in
// order (null and empty values told apart) and timestamp, as refnode.sameRecord.
func sameRecord(r node.Record, m refnode.Record) bool {
	if !sameBytes(r.Key, m.Key) || !sameBytes(r.Value, m.Value) || r.TimestampMicros != m.TimestampMicros ||
		len(r.Headers) != len(m.Headers) {
		return false
	}
	for i, h := range r.Headers {
		if h.Key != m.Headers[i].Key || !sameBytes(h.Value, m.Headers[i].Value) {
			return false
		}
	}
	return true
}

// sameBytes compares two byte strings, telling nil (null) from empty.
func sameBytes(x, y []byte) bool { return (x == nil) == (y == nil) && string(x) == string(y) }

// RefState is a committed node.State in the model's terms (for reporting a difference).
func RefState(st *node.State) *refnode.State {
	if st == nil {
		st = &node.State{}
	}
	out := &refnode.State{Version: st.Version(), Frontier: RefCauses(st.Frontier()), Past: RefCauses(st.DeliveredPast())}
	for _, b := range st.Bindings() {
		out.Bindings = append(out.Bindings, refnode.Binding{Name: b.Name, Topic: refnode.TopicID(b.Topic)})
	}
	for _, f := range st.FedPositions() {
		out.Fed = append(out.Fed, refnode.Entry{Channel: refChannel(f.Channel), Position: refnode.Position(f.FedUpTo)})
	}
	for _, c := range st.HeldChannels() {
		buf := refnode.Buffer{Channel: refChannel(c)}
		for _, m := range st.Held(c) {
			buf.Messages = append(buf.Messages, &refnode.Message{Channel: refChannel(m.Channel),
				Position: refnode.Position(m.Position), Record: refRecordOfNode(m.Record), Causes: RefCauses(m.Causes)})
		}
		out.Held = append(out.Held, buf)
	}
	return out
}

// Conversions of the host's inputs to the model's types: the same bytes.

// refChannel is channel c in the model's terms.
func refChannel(c node.Channel) refnode.Channel {
	return refnode.Channel{Topic: refnode.TopicID(c.Topic), Partition: int32(c.Partition)}
}

// refTopics is topic IDs ts in the model's terms.
func refTopics(ts []node.TopicID) []refnode.TopicID {
	out := make([]refnode.TopicID, len(ts))
	for i, t := range ts {
		out[i] = refnode.TopicID(t)
	}
	return out
}

// RefCauses is frontier c in the model's terms.
func RefCauses(c node.Causes) refnode.Positions {
	out := make(refnode.Positions, 0, c.Len())
	for _, p := range c.Pairs() {
		out = append(out, refnode.Entry{Channel: refChannel(p.Channel), Position: refnode.Position(p.Position)})
	}
	return out
}

// refRecord is a fetched record in the model's terms.
func refRecord(r substrate.Record) refnode.Record {
	out := refnode.Record{Key: r.Key, Value: r.Value, TimestampMicros: r.TimestampMicros}
	if len(r.Headers) > 0 {
		out.Headers = make([]refnode.Header, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = refnode.Header{Key: h.Key, Value: h.Value}
		}
	}
	return out
}

// NodeRecord is a fetched record in the engine's terms (headers copied into node.Header).
func NodeRecord(r substrate.Record) node.Record {
	out := node.Record{Key: r.Key, Value: r.Value, TimestampMicros: r.TimestampMicros}
	if len(r.Headers) > 0 {
		out.Headers = make([]node.Header, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = node.Header{Key: h.Key, Value: h.Value}
		}
	}
	return out
}

// refRecordOfNode is a record the application hands the engine, in the model's terms.
func refRecordOfNode(r node.Record) refnode.Record {
	out := refnode.Record{Key: r.Key, Value: r.Value, TimestampMicros: r.TimestampMicros}
	if len(r.Headers) > 0 {
		out.Headers = make([]refnode.Header, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = refnode.Header{Key: h.Key, Value: h.Value}
		}
	}
	return out
}

// refInit is an execution's Init in the model's terms, with the metadata budget in force, its
// lists but the start positions built in room (grown past it as they need): refnode.Start keeps
// copies of them, never the lists, so the room can live on the caller's stack.
func refInit(init node.Init, budget int, room *refInitRoom) refnode.Init {
	out := refnode.Init{BudgetBytes: budget, SendTopics: room.sends[:0], Received: room.received[:0],
		Bindings: room.bindings[:0]}
	starts := make(refnode.Positions, 0, len(init.StartPositions)) // set apart: Set leaks what it changes
	for _, t := range init.SendTopics {
		out.SendTopics = append(out.SendTopics, refnode.TopicID(t))
	}
	for _, c := range init.Received {
		out.Received = append(out.Received, refChannel(c))
	}
	for _, b := range init.Bindings {
		out.Bindings = append(out.Bindings, refnode.Binding{Name: b.Name, Topic: refnode.TopicID(b.Topic)})
	}
	for _, s := range init.StartPositions {
		starts.Set(refChannel(s.Channel), refnode.Position(s.Position))
	}
	out.Starts = starts
	return out
}

// refInitRoom is the room refInit builds an Init's lists in, sized for a process of a few
// received topics.
type refInitRoom struct {
	sends    [4]refnode.TopicID
	received [16]refnode.Channel
	bindings [8]refnode.Binding
}

// sameReason reports whether the engine's answer err and the model's r both refuse with one
// reason, or neither refuses.
func sameReason(err error, r *refnode.Refusal) bool {
	if err == nil || r == nil {
		return err == nil && r == nil
	}
	var nr *node.Refusal
	return errors.As(err, &nr) && string(nr.Reason) == string(r.Reason)
}

// refusalString renders the engine's answer err for a violation's detail.
func refusalString(err error) string {
	if err == nil {
		return "no refusal"
	}
	return "refused " + err.Error()
}

// refRefusalString renders the model's answer r for a violation's detail.
func refRefusalString(r *refnode.Refusal) string {
	if r == nil {
		return "no refusal"
	}
	return "refused " + r.Error()
}

// outcomeString renders the engine's receipt outcome (or refusal) for a violation's detail.
func outcomeString(out node.ReceiveOutcome, err error) string {
	if err != nil {
		return refusalString(err)
	}
	return out.String()
}

// refOutcomeString renders the model's receipt outcome (or refusal) for a violation's detail.
func refOutcomeString(out refnode.Outcome, r *refnode.Refusal) string {
	if r != nil {
		return refRefusalString(r)
	}
	return out.String()
}

package sim

// REFERENCE (SPEC §1–§3, §7): every process's engine runs in lockstep with a reference node
// (sim/oracle/refnode), an executable model of the spec that shares no code with the engine. The
// model gets exactly the inputs the host gives the engine — the execution's Init and identity
// report, every record fed, every drain, every emission, every commit — and is dropped with the
// engine when the step crashes, aborts, is fenced or refuses; every start builds it from the
// model's own committed state, never the engine's. At each call the two must agree on what the
// host observes: the start's and the identity report's outcome, each receipt's outcome (held,
// duplicate or the refusal's reason), each delivery (channel, position and record, in order),
// a drain's refusal, each emission's parsley.causes bytes or refusal, and at each commit the
// committed ordering state the host persisted (applied from the engine's delta) against the
// model's: version, bindings, fedUpTo, frontier, delivered past and held messages in order. The
// first disagreement is a violation naming the process, the step, the call and both answers;
// the process is not judged by the model after that (its model no longer follows the engine).

import (
	"errors"
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// procRef is a process's reference node.
type procRef struct {
	// committed is the model's own committed state: replaced, never changed, by each commit,
	// so clones share it.
	committed *refnode.State
	// live is the model of the current execution, nil while the process is down or failed.
	live *refnode.Node
	// shared says live is shared with a process of a cloned world: it is cloned before its next
	// change (node).
	shared bool
	// off says the model disagreed with the engine once: the process is no longer judged.
	off bool
	// checked is the model's state at the execution's last commit (nil before its first): the
	// holds it names were found equal to the engine's then (sameCommitted). A start forgets it,
	// so the first commit of every execution compares every hold, whatever a migration's
	// round trip through the changelog encoding did to them. Only the cost of the comparison
	// depends on it, not its outcome on a path where no committed hold is rewritten: it is not
	// part of the explorer's state.
	checked *refnode.State
	// changes counts the calls that may have changed live (a clone inherits it): with live it
	// keys liveHash.
	changes int
	// liveHash and committedHash cache the canonical hashes of live and committed
	// (world_hash_proc.go appendRef).
	liveHash      refLiveHash
	committedHash refCommittedHash
}

// refLiveHash is a live model's cached hash: valid while by is the hasher and the reference
// holds live after changes calls (holding live keeps its address from being reused).
type refLiveHash struct {
	by      *stateHasher
	live    *refnode.Node
	changes int
	key     hashKey
}

// refCommittedHash is a committed model state's cached hash: committed states never change.
type refCommittedHash struct {
	by  *stateHasher
	st  *refnode.State
	key hashKey
}

// node returns the live model for a call that may change it, cloning it first if shared.
func (r *procRef) node() *refnode.Node {
	if r.shared {
		r.live, r.shared = r.live.Clone(), false
	}
	r.changes++
	return r.live
}

// committedOrEmpty returns the model's committed state, the empty one before its first commit.
func (r *procRef) committedOrEmpty() *refnode.State {
	if r.committed == nil {
		return &refnode.State{}
	}
	return r.committed
}

// drop ends the model's execution with the engine's.
func (r *procRef) drop() { r.live, r.shared = nil, false }

// refDisagree reports the disagreement and stops judging p.
func (w *world) refDisagree(p *proc, call string, engine, model string) {
	w.refViolate(p, fmt.Sprintf("%s: engine %s, reference %s", call, engine, model))
}

// refViolate reports a disagreement described by detail and stops judging p.
func (w *world) refViolate(p *proc, detail string) {
	w.violate(spec.CritReference, p.idx, detail)
	p.ref.drop()
	p.ref.off = true
}

// refStart starts p's model with the engine's Init and hands it the identity report the engine
// got (when the engine's start did not refuse), comparing both outcomes: serr is the engine's
// start refusal, ierr its identity report's.
func (w *world) refStart(p *proc, init node.Init, serr error, dead, recreated []node.TopicID, ierr error) {
	if p.ref.off || !w.opts.reports(spec.CritReference) {
		return
	}
	p.ref.drop()
	p.ref.checked = nil
	live, r := refnode.Start(p.ref.committed, refInit(init, w.budget))
	if !sameReason(serr, r) {
		w.refDisagree(p, "start", refusalString(serr), refRefusalString(r))
		return
	}
	if r != nil {
		return
	}
	r = live.Identity(refTopics(dead), refTopics(recreated))
	if !sameReason(ierr, r) {
		w.refDisagree(p, "identity report", refusalString(ierr), refRefusalString(r))
		return
	}
	if r == nil {
		p.ref.live = live
		p.ref.changes++
	}
}

// refReceive feeds p's model the record the engine was fed at pos on channel c, comparing the
// outcomes.
func (w *world) refReceive(p *proc, c int32, pos int64, rec substrate.Record, out node.ReceiveOutcome, err error) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	rout, r := p.ref.node().Receive(refChannel(w.chans[c].nc), refnode.Position(pos), refRecordOf(rec))
	if !sameReason(err, r) || (err == nil && out.String() != rout.String()) {
		w.refDisagree(p, fmt.Sprintf("receipt of %s:%d", w.chanName(c), pos), outcomeString(out, err), refOutcomeString(rout, r))
	}
}

// refNext asks p's model for its next delivery and compares it with the engine's (d, ok); when
// neither delivers, it compares their refusals (refusal: the engine's, nil for none).
func (w *world) refNext(p *proc, d node.Delivery, ok bool, refusal *node.Refusal) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	m := p.ref.node()
	rd, rok := m.Next()
	if ok != rok || (ok && (refChannel(d.Channel) != rd.Channel || refnode.Position(d.Position) != rd.Position ||
		!sameRecordOf(d.Record, rd.Record))) {
		w.refDisagree(p, "delivery", w.deliveryString(d.Channel, int64(d.Position), ok), w.refDeliveryString(rd, rok))
		return
	}
	if !ok {
		var eerr error
		if refusal != nil {
			eerr = refusal
		}
		if !sameReason(eerr, m.Refusal()) {
			w.refDisagree(p, "refusal at a drain", refusalString(eerr), refRefusalString(m.Refusal()))
		}
	}
}

// refEmit stamps the emission on p's model and compares the parsley.causes bytes (or the
// refusal) with what the engine stamped.
func (w *world) refEmit(p *proc, c int32, rec node.Record, stamped node.Record, err error) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	stamp, r := p.ref.node().Emit(refChannel(w.chans[c].nc), refRecordOfNode(rec))
	if !sameReason(err, r) {
		w.refDisagree(p, "emission to "+w.chanName(c), refusalString(err), refRefusalString(r))
		return
	}
	if err != nil {
		return
	}
	value, present, herr := node.CausesHeader(stamped.Headers)
	if herr != nil || !present || string(value) != string(stamp) {
		w.refDisagree(p, "stamp of an emission to "+w.chanName(c), fmt.Sprintf("%x", value), fmt.Sprintf("%x", stamp))
	}
}

// refCommit commits p's model at the step's durable point (its transaction committed,
// host_commit.go).
func (w *world) refCommit(p *proc) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	p.ref.committed = p.ref.node().Commit()
}

// refCheckCommitted compares, once p's commit sequence is over, the committed state the host
// persisted from the engine's delta with the model's.
func (w *world) refCheckCommitted(p *proc, stored *node.State) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	st := p.ref.committedOrEmpty()
	prev := p.ref.checked
	p.ref.checked = st
	if !sameCommitted(stored, st, prev) {
		w.refViolate(p, "committed ordering state, engine vs reference: "+refStateOf(stored).Diff(st))
	}
}

// refCheckStored compares the committed state in p's state store with the model's committed
// state after a commit sequence that did not end (a crash inside it, a zombie's attempt; when
// says which): the next start reads it, and nothing writes it while p is down.
func (w *world) refCheckStored(p *proc, stored *node.State, when string) {
	if p.ref.off || !w.opts.reports(spec.CritReference) {
		return
	}
	st := p.ref.committedOrEmpty()
	if !sameCommitted(stored, st, nil) {
		w.refViolate(p, "committed ordering state "+when+", engine vs reference: "+refStateOf(stored).Diff(st))
	}
}

// sameCommitted reports whether the committed state the host persisted means what the model's
// means: same version, bindings, fedUpTo, frontier, delivered past and held messages (position,
// record and causes) in order. Both list everything in the same order (names; channels).
//
// A held message's record and causes are compared only when it is new since prev, the model's
// state at this execution's previous commit (nil: compare all), whose holds were found equal
// then: within an execution a committed hold is never changed in place on either side (each
// buffer is a FIFO that loses heads and gains tails; node.State.Apply refuses a hold it already
// has), so, the positions being equal, so are the older holds. Every position is compared.
func sameCommitted(st *node.State, ref, prev *refnode.State) bool {
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
			if want[j].Position > seen && (!sameRecordOf(held[j].Record, want[j].Record) || !sameCauses(held[j].Causes, want[j].Causes)) {
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

// sameRecordOf reports whether the engine's record is the model's: same key, value, headers in
// order (null and empty values told apart) and timestamp, as refnode.SameRecord.
func sameRecordOf(r node.Record, m refnode.Record) bool {
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

// refStateOf is a committed node.State in the model's terms (for reporting a difference).
func refStateOf(st *node.State) *refnode.State {
	if st == nil {
		st = &node.State{}
	}
	out := &refnode.State{Version: st.Version(), Frontier: refCauses(st.Frontier()), Past: refCauses(st.DeliveredPast())}
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
				Position: refnode.Position(m.Position), Record: refRecordOfNode(m.Record), Causes: refCauses(m.Causes)})
		}
		out.Held = append(out.Held, buf)
	}
	return out
}

// Conversions of the host's inputs to the model's types: the same bytes.

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

func refCauses(c node.Causes) refnode.Positions {
	out := make(refnode.Positions, 0, c.Len())
	for _, p := range c.Pairs() {
		out = append(out, refnode.Entry{Channel: refChannel(p.Channel), Position: refnode.Position(p.Position)})
	}
	return out
}

func refRecordOf(r substrate.Record) refnode.Record {
	out := refnode.Record{Key: r.Key, Value: r.Value, TimestampMicros: r.TimestampMicros}
	if len(r.Headers) > 0 {
		out.Headers = make([]refnode.Header, len(r.Headers))
		for i, h := range r.Headers {
			out.Headers[i] = refnode.Header{Key: h.Key, Value: h.Value}
		}
	}
	return out
}

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

// sameReason reports whether the engine's answer err and the model's r both refuse with one
// reason, or neither refuses.
func sameReason(err error, r *refnode.Refusal) bool {
	if err == nil || r == nil {
		return err == nil && r == nil
	}
	var nr *node.Refusal
	return errors.As(err, &nr) && string(nr.Reason) == string(r.Reason)
}

func refusalString(err error) string {
	if err == nil {
		return "no refusal"
	}
	return "refused " + err.Error()
}

func refRefusalString(r *refnode.Refusal) string {
	if r == nil {
		return "no refusal"
	}
	return "refused " + r.Error()
}

func outcomeString(out node.ReceiveOutcome, err error) string {
	if err != nil {
		return refusalString(err)
	}
	return out.String()
}

func refOutcomeString(out refnode.Outcome, r *refnode.Refusal) string {
	if r != nil {
		return refRefusalString(r)
	}
	return out.String()
}

func (w *world) deliveryString(nc node.Channel, pos int64, ok bool) string {
	if !ok {
		return "no delivery"
	}
	if c := w.nodeChan(nc); c >= 0 {
		return fmt.Sprintf("delivered %s:%d", w.chanName(c), pos)
	}
	return fmt.Sprintf("delivered %v:%d", nc, pos)
}

func (w *world) refDeliveryString(d refnode.Delivery, ok bool) string {
	return w.deliveryString(node.Channel{Topic: node.TopicID(d.Channel.Topic), Partition: node.Partition(d.Channel.Partition)}, int64(d.Position), ok)
}

package oracle

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
//
// The host hands each call's inputs and the engine's answers to the Ref* events below, in the
// order it makes the calls.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/refnode"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// Reference is a process's reference node: its committed state and the model of its current
// execution. The world keeps it in the process's shell beside Proc, so that the explorer's clone
// copies it (ShareWith) and its hash encodes it (Off, Live, Changes, Committed).
type Reference struct {
	idx int // the process's index
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
	// holds it names were found equal to the engine's then (SameCommitted). A start forgets it,
	// so the first commit of every execution compares every hold, whatever a migration's
	// round trip through the changelog encoding did to them. Only the cost of the comparison
	// depends on it, not its outcome on a path where no committed hold is rewritten: it is not
	// part of the explorer's state.
	checked *refnode.State
	// changes counts the calls that may have changed live (a clone inherits it).
	changes int
}

// NewReference returns the reference node of process idx, which has not started.
func NewReference(idx int) Reference { return Reference{idx: idx} }

// Off reports whether the model disagreed with the engine once, so the process is no longer
// judged.
func (r *Reference) Off() bool { return r.off }

// Live returns the model of the current execution (nil while the process is down, failed or no
// longer judged), for reading only: it may be shared with a clone.
func (r *Reference) Live() *refnode.Node { return r.live }

// Changes counts the calls that may have changed the live model: with Live, it names the
// model's version, so a hash of it can be cached.
func (r *Reference) Changes() int { return r.changes }

// Committed returns the model's committed state (nil before its first commit). It is replaced,
// never changed, by each commit: its address names its version.
func (r *Reference) Committed() *refnode.State { return r.committed }

// ShareWith makes c a copy of r for a cloned world: the live model is shared until either
// changes it.
func (r *Reference) ShareWith(c *Reference) {
	*c = *r
	if r.live != nil {
		r.shared, c.shared = true, true
	}
}

// Drop ends the model's execution with the engine's: a crash, a stop, a refusal or a fencing.
func (r *Reference) Drop() { r.live, r.shared = nil, false }

// node returns the live model for a call that may change it, cloning it first if shared.
func (r *Reference) node() *refnode.Node {
	if r.shared {
		r.live, r.shared = r.live.Clone(), false
	}
	r.changes++
	return r.live
}

// committedOrEmpty returns the model's committed state, the empty one before its first commit.
func (r *Reference) committedOrEmpty() *refnode.State {
	if r.committed == nil {
		return &refnode.State{}
	}
	return r.committed
}

// refDisagree reports the disagreement and stops judging r's process.
func (o *Oracle) refDisagree(at At, r *Reference, call string, engine, model string) {
	o.refViolate(at, r, fmt.Sprintf("%s: engine %s, reference %s", call, engine, model))
}

// refViolate reports a disagreement described by detail and stops judging r's process.
func (o *Oracle) refViolate(at At, r *Reference, detail string) {
	o.Violate(at, spec.CritReference, r.idx, detail)
	r.Drop()
	r.off = true
}

// RefStart starts the model with the engine's Init and hands it the identity report the engine
// got (when the engine's start did not refuse), comparing both outcomes: serr is the engine's
// start refusal, ierr its identity report's.
func (o *Oracle) RefStart(at At, r *Reference, init node.Init, serr error, dead, recreated []node.TopicID, ierr error) {
	if r.off || !o.Reports(spec.CritReference) {
		return
	}
	r.Drop()
	r.checked = nil
	var room refInitRoom
	live, ref := refnode.Start(r.committed, refInit(init, o.budget, &room))
	if !sameReason(serr, ref) {
		o.refDisagree(at, r, "start", refusalString(serr), refRefusalString(ref))
		return
	}
	if ref != nil {
		return
	}
	ref = live.Identity(refTopics(dead), refTopics(recreated))
	if !sameReason(ierr, ref) {
		o.refDisagree(at, r, "identity report", refusalString(ierr), refRefusalString(ref))
		return
	}
	if ref == nil {
		r.live = live
		r.changes++
	}
}

// RefReceive feeds the model the record the engine was fed at pos on channel c (as fetched),
// comparing the outcomes.
func (o *Oracle) RefReceive(at At, r *Reference, c int32, pos int64, rec substrate.Record, out node.ReceiveOutcome, err error) {
	if r.off || r.live == nil {
		return
	}
	rout, ref := r.node().Receive(refChannel(o.Channel(c)), refnode.Position(pos), refRecord(rec))
	if !sameReason(err, ref) || (err == nil && out.String() != rout.String()) {
		o.refDisagree(at, r, fmt.Sprintf("receipt of %s:%d", o.ChanName(c), pos), outcomeString(out, err), refOutcomeString(rout, ref))
	}
}

// RefNext asks the model for its next delivery and compares it with the engine's (d, ok); when
// neither delivers, it compares their refusals (refusal: the engine's, nil for none).
func (o *Oracle) RefNext(at At, r *Reference, d node.Delivery, ok bool, refusal *node.Refusal) {
	if r.off || r.live == nil {
		return
	}
	m := r.node()
	rd, rok := m.Next()
	if ok != rok || (ok && (refChannel(d.Channel) != rd.Channel || refnode.Position(d.Position) != rd.Position ||
		!sameRecord(d.Record, rd.Record))) {
		o.refDisagree(at, r, "delivery", o.deliveryString(d.Channel, int64(d.Position), ok), o.refDeliveryString(rd, rok))
		return
	}
	if !ok {
		var eerr error
		if refusal != nil {
			eerr = refusal
		}
		if !sameReason(eerr, m.Refusal()) {
			o.refDisagree(at, r, "refusal at a drain", refusalString(eerr), refRefusalString(m.Refusal()))
		}
	}
}

// RefEmit stamps the emission rec to channel c on the model and compares the parsley.causes
// bytes (or the refusal) with what the engine stamped (stamped, or the refusal err).
func (o *Oracle) RefEmit(at At, r *Reference, c int32, rec node.Record, stamped node.Record, err error) {
	if r.off || r.live == nil {
		return
	}
	stamp, ref := r.node().Emit(refChannel(o.Channel(c)), refRecordOfNode(rec))
	if !sameReason(err, ref) {
		o.refDisagree(at, r, "emission to "+o.ChanName(c), refusalString(err), refRefusalString(ref))
		return
	}
	if err != nil {
		return
	}
	value, present, herr := node.CausesHeader(stamped.Headers)
	if herr != nil || !present || string(value) != string(stamp) {
		o.refDisagree(at, r, "stamp of an emission to "+o.ChanName(c), fmt.Sprintf("%x", value), fmt.Sprintf("%x", stamp))
	}
}

// RefCommit commits the model at the step's durable point (its transaction committed).
func (o *Oracle) RefCommit(r *Reference) {
	if r.off || r.live == nil {
		return
	}
	r.committed = r.node().Commit()
}

// RefCheckCommitted compares, once the process's commit sequence is over, the committed state
// the host persisted from the engine's delta (stored) with the model's.
func (o *Oracle) RefCheckCommitted(at At, r *Reference, stored *node.State) {
	if r.off || r.live == nil {
		return
	}
	st := r.committedOrEmpty()
	prev := r.checked
	r.checked = st
	if !SameCommitted(stored, st, prev) {
		o.refViolate(at, r, "committed ordering state, engine vs reference: "+RefState(stored).Diff(st))
	}
}

// RefCheckStored compares the committed state in the process's state store (stored) with the
// model's committed state after a commit sequence that did not end (a crash inside it, a
// zombie's attempt; when says which): the next start reads it, and nothing writes it while the
// process is down.
func (o *Oracle) RefCheckStored(at At, r *Reference, stored *node.State, when string) {
	if r.off || !o.Reports(spec.CritReference) {
		return
	}
	st := r.committedOrEmpty()
	if !SameCommitted(stored, st, nil) {
		o.refViolate(at, r, "committed ordering state "+when+", engine vs reference: "+RefState(stored).Diff(st))
	}
}

func (o *Oracle) deliveryString(nc node.Channel, pos int64, ok bool) string {
	if !ok {
		return "no delivery"
	}
	return fmt.Sprintf("delivered %s:%d", o.NodeChanName(nc), pos)
}

func (o *Oracle) refDeliveryString(d refnode.Delivery, ok bool) string {
	return o.deliveryString(node.Channel{Topic: node.TopicID(d.Channel.Topic), Partition: node.Partition(d.Channel.Partition)}, int64(d.Position), ok)
}

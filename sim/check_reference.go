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
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
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
	// holds it names were found equal to the engine's then (SameCommitted). A start forgets it,
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
	if p.ref.off || !w.or.Reports(spec.CritReference) {
		return
	}
	p.ref.drop()
	p.ref.checked = nil
	live, r := refnode.Start(p.ref.committed, oracle.RefInit(init, w.or.Budget()))
	if !oracle.SameReason(serr, r) {
		w.refDisagree(p, "start", oracle.RefusalString(serr), oracle.RefRefusalString(r))
		return
	}
	if r != nil {
		return
	}
	r = live.Identity(oracle.RefTopics(dead), oracle.RefTopics(recreated))
	if !oracle.SameReason(ierr, r) {
		w.refDisagree(p, "identity report", oracle.RefusalString(ierr), oracle.RefRefusalString(r))
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
	rout, r := p.ref.node().Receive(oracle.RefChannel(w.or.Channel(c)), refnode.Position(pos), oracle.RefRecord(rec))
	if !oracle.SameReason(err, r) || (err == nil && out.String() != rout.String()) {
		w.refDisagree(p, fmt.Sprintf("receipt of %s:%d", w.or.ChanName(c), pos), oracle.OutcomeString(out, err), oracle.RefOutcomeString(rout, r))
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
	if ok != rok || (ok && (oracle.RefChannel(d.Channel) != rd.Channel || refnode.Position(d.Position) != rd.Position ||
		!oracle.SameRecord(d.Record, rd.Record))) {
		w.refDisagree(p, "delivery", w.deliveryString(d.Channel, int64(d.Position), ok), w.refDeliveryString(rd, rok))
		return
	}
	if !ok {
		var eerr error
		if refusal != nil {
			eerr = refusal
		}
		if !oracle.SameReason(eerr, m.Refusal()) {
			w.refDisagree(p, "refusal at a drain", oracle.RefusalString(eerr), oracle.RefRefusalString(m.Refusal()))
		}
	}
}

// refEmit stamps the emission on p's model and compares the parsley.causes bytes (or the
// refusal) with what the engine stamped.
func (w *world) refEmit(p *proc, c int32, rec node.Record, stamped node.Record, err error) {
	if p.ref.off || p.ref.live == nil {
		return
	}
	stamp, r := p.ref.node().Emit(oracle.RefChannel(w.or.Channel(c)), oracle.RefRecordOfNode(rec))
	if !oracle.SameReason(err, r) {
		w.refDisagree(p, "emission to "+w.or.ChanName(c), oracle.RefusalString(err), oracle.RefRefusalString(r))
		return
	}
	if err != nil {
		return
	}
	value, present, herr := node.CausesHeader(stamped.Headers)
	if herr != nil || !present || string(value) != string(stamp) {
		w.refDisagree(p, "stamp of an emission to "+w.or.ChanName(c), fmt.Sprintf("%x", value), fmt.Sprintf("%x", stamp))
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
	if !oracle.SameCommitted(stored, st, prev) {
		w.refViolate(p, "committed ordering state, engine vs reference: "+oracle.RefState(stored).Diff(st))
	}
}

// refCheckStored compares the committed state in p's state store with the model's committed
// state after a commit sequence that did not end (a crash inside it, a zombie's attempt; when
// says which): the next start reads it, and nothing writes it while p is down.
func (w *world) refCheckStored(p *proc, stored *node.State, when string) {
	if p.ref.off || !w.or.Reports(spec.CritReference) {
		return
	}
	st := p.ref.committedOrEmpty()
	if !oracle.SameCommitted(stored, st, nil) {
		w.refViolate(p, "committed ordering state "+when+", engine vs reference: "+oracle.RefState(stored).Diff(st))
	}
}

func (w *world) deliveryString(nc node.Channel, pos int64, ok bool) string {
	if !ok {
		return "no delivery"
	}
	return fmt.Sprintf("delivered %s:%d", w.or.NodeChanName(nc), pos)
}

func (w *world) refDeliveryString(d refnode.Delivery, ok bool) string {
	return w.deliveryString(node.Channel{Topic: node.TopicID(d.Channel.Topic), Partition: node.Partition(d.Channel.Partition)}, int64(d.Position), ok)
}

package world

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/oracle/corrupt"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// External producers: plain (headerless), stamped by an observer of a committed record (its
// header copies that record's expressed causes plus its coordinate), corrupt (a header list
// drawn by sim/oracle/corrupt's generator, drawCorruption), a transactional producer whose
// transactions abort (never-yielding offsets), and one whose transaction stays open (an LSO
// stall) until txn-close ends it. Their headers are written and read with the reference codec.

// extProducers holds the external transactional producers.
type extProducers struct {
	abortTxn  substrate.TxnProducer
	openTxn   substrate.TxnProducer
	open      bool
	openUIDs  []uint64
	openChans []int32
}

func (e *extProducers) init(w *World) {
	var err error
	e.abortTxn, err = w.sub.InitTransactions("ext-abort")
	must(err)
	e.openTxn, err = w.sub.InitTransactions("ext-open")
	must(err)
}

// payload draws an external record's key (one byte) and value (hop count 0, then 4 bytes).
func (w *World) payload() (key, value []byte) {
	v := w.streams.Payloads.Uint64()
	kv := []byte{byte(v), 0, byte(v >> 8), byte(v >> 16), byte(v >> 24), byte(v >> 32)} // one allocation
	return kv[:1:1], kv[1:]
}

// produce writes one external record of kind k non-transactionally to channel c and tells the
// oracle (onProduced), which learns from it what the record means and its true past. values are
// its parsley.causes header values, in order (none: a headerless record; a nil value is a null
// one); stamp is a stamped producer's observation (zero for the other kinds).
func (w *World) produce(c int32, k oracle.MsgKind, stamp oracle.Stamp, key, value []byte, values [][]byte) uint64 {
	rec := substrate.Record{Key: key, Value: value, TimestampMicros: w.clock.Now()}
	if len(values) > 0 {
		rec.Headers = make([]substrate.Header, len(values))
		for i, v := range values {
			rec.Headers[i] = substrate.Header{Key: node.HeaderKey, Value: v}
		}
	}
	off, err := w.sub.Produce(w.chans[c].tp, rec, substrate.ProducePlain)
	if err != nil {
		panic(fmt.Sprintf("world: external produce to %s: %v", w.chanName(c), err))
	}
	uid := w.or.OnProduced(oracle.Produced{C: c, Pos: int64(off), Kind: k, State: oracle.MsgCommitted, Rec: rec, Stamp: stamp}, w.clock.Now())
	w.noteCommitted(uid)
	w.refreshLSO(c)
	w.stats.Produced++
	if w.tracing {
		w.emitChan("produced", nil, c, int64(off), uid, k.String())
	}
	return uid
}

// producePlain writes a headerless record.
func (w *World) producePlain(c int32) uint64 {
	key, value := w.payload()
	return w.produce(c, oracle.MsgPlain, oracle.Stamp{}, key, value, nil)
}

// produceCorrupt writes a record whose parsley.causes header values are values (a corruption;
// undecodable, or a near miss that reads as other causes than its writer meant). A nil key and
// value are drawn from the payload stream.
func (w *World) produceCorrupt(c int32, values [][]byte, key, value []byte) uint64 {
	if key == nil && value == nil {
		key, value = w.payload()
	}
	w.stats.Corrupt++
	uid := w.produce(c, oracle.MsgCorrupt, oracle.Stamp{}, key, value, values)
	if !w.or.Msg(uid).Undecodable {
		w.stats.CorruptDecodable++
	}
	return uid
}

// drawCorruption draws a chosen corrupt produce's headers from the generator. A run draws the
// shape and its details from the corruptions stream, corrupting the header a stamped observer of
// a recently committed record (one drawn from the stamped producers' candidates) would write:
// any shape, but only an undecodable one while the corrupt-header fault is due
// (Settings.FaultAtStep), since that fault is the run's one planned fail-closed record and a near
// miss that decodes stops nobody. An exploration branches instead, through the Chooser, over the
// generator's fixed set of representatives (every shape, the field-level ones at every kind of
// field), corrupting the header an observer of every live channel's last committed record would
// write (oracle.Oracle.ObservedAll): a function of the shadow logs the canonical state holds,
// where the candidates' order is not.
func (w *World) drawCorruption() corrupt.Corruption {
	if w.explored() {
		reps := corrupt.Representatives(oracle.WireCauses(w.or.ObservedAll()))
		return reps[w.chooser.ChooseFrom("produce-corrupt.shape", choose.Uniform(len(reps)))]
	}
	var base node.Causes
	if n := min(w.recentN, recentRing); n > 0 {
		r := w.or.Msg(w.recent[w.streams.Corruptions.IntN(n)])
		base = r.Expressed.Clone()
		base.Merge(w.chans[r.Ch].nc, node.Offset(r.Pos))
	}
	shapes := corrupt.Shapes
	if w.faultDue(spec.ActProduceCorrupt) {
		shapes = corrupt.Undecodable
	}
	return corrupt.Draw(w.streams.Corruptions, shapes, oracle.WireCauses(base))
}

// produceStamped writes a record stamped by an observer of committed record r: its header is
// what r's header names plus r's coordinate.
func (w *World) produceStamped(c int32, r uint64) uint64 {
	key, value := w.payload()
	st := oracle.Stamp{Observed: r, Causes: w.or.StampOf(r)}
	return w.produce(c, oracle.MsgStamped, st, key, value, [][]byte{oracle.EncodeCauses(st.Causes)})
}

// produceForged writes a scripted record whose header is exactly the given frontier (or raw
// bytes); its true past is what the header says (oracle.Oracle.OnProduced).
func (w *World) produceForged(c int32, causes node.Causes, raw []byte, key, value []byte) uint64 {
	if key == nil && value == nil {
		key, value = w.payload()
	}
	header := raw
	if header == nil {
		header = oracle.EncodeCauses(causes)
	}
	return w.produce(c, oracle.MsgForged, oracle.Stamp{}, key, value, [][]byte{header})
}

// txnAbort writes n records to channel c in a transaction that aborts.
func (w *World) txnAbort(c int32, n int) {
	tp := w.ext.abortTxn
	must(w.sub.BeginTransaction(tp))
	for range n {
		key, value := w.payload()
		_, err := w.sub.ProduceTx(tp, w.chans[c].tp, substrate.Record{Key: key, Value: value, TimestampMicros: w.clock.Now()})
		must(err)
	}
	must(w.sub.AbortTransaction(tp))
	w.refreshLSO(c)
	w.stats.AbortedTxns++
	if w.tracing {
		w.emitChan("txn-aborted", nil, c, w.chans[c].lso, 0, fmt.Sprintf("%d records", n))
	}
}

// txnOpen writes n records to channel c in a transaction left open.
func (w *World) txnOpen(c int32, n int) {
	tp := w.ext.openTxn
	must(w.sub.BeginTransaction(tp))
	for range n {
		key, value := w.payload()
		off, err := w.sub.ProduceTx(tp, w.chans[c].tp, substrate.Record{Key: key, Value: value, TimestampMicros: w.clock.Now()})
		must(err)
		rec := substrate.Record{Key: key, Value: value}
		uid := w.or.OnProduced(oracle.Produced{C: c, Pos: int64(off), Kind: oracle.MsgPlain, State: oracle.MsgPending, Rec: rec}, w.clock.Now())
		w.ext.openUIDs = append(w.ext.openUIDs, uid)
	}
	w.logMoved(c)
	w.staleChannelTargets(c) // its high watermark moved; the LSO stays until the transaction ends
	w.ext.open = true
	w.ext.openChans = append(w.ext.openChans, c)
	w.stats.OpenTxns++
	if w.tracing {
		w.emitChan("txn-opened", nil, c, w.chans[c].lso, 0, fmt.Sprintf("%d records", n))
	}
}

// txnClose ends the open transaction, committing or aborting it.
func (w *World) txnClose(commit bool) {
	tp := w.ext.openTxn
	state := oracle.MsgAborted
	if commit {
		must(w.sub.CommitTransaction(tp))
		state = oracle.MsgCommitted
	} else {
		must(w.sub.AbortTransaction(tp))
	}
	for _, uid := range w.ext.openUIDs {
		w.or.SetState(uid, state)
		if commit {
			w.noteCommitted(uid)
		}
	}
	for _, c := range w.ext.openChans {
		w.refreshLSO(c)
	}
	w.ext.open, w.ext.openUIDs, w.ext.openChans = false, w.ext.openUIDs[:0], w.ext.openChans[:0]
	w.emitRaw("txn-closed", -1, state.String())
}

// must panics on an unexpected substrate error: the world only makes calls that are valid.
func must(err error) {
	if err != nil {
		panic(fmt.Sprintf("world: unexpected substrate error: %v", err))
	}
}

package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// worldOracle is the oracle's model of the world as a whole: the message truth table (every
// produced record's true past and what its header says, learnt from the produce or send event
// that wrote it) and its own model of every channel's log and topic, built from the world's
// events — a channel created (onChannelCreated), an incarnation deleted or replaced by a
// recreation (onIncarnationDead), a record produced (add), a transaction committed or aborted
// (setState), the log's offsets moved by a produce, a transaction's end, a truncation or a
// retention sweep (onLogMoved). The checkers judge from it, never from the substrate or the
// world's own channel and topic tables.
type worldOracle struct {
	// msgs is the message table, by uid-1. A message never changes once in it: clones share the
	// messages, and a change replaces the message with a changed copy (setState, setPayload), so
	// a clone copies and a new record appends one pointer rather than every message.
	msgs       []*message
	msgsShared bool // msgs's array is shared with a clone: ownMsgs copies it before a change
	// logs is the model of each channel's log, by channel index.
	logs []chanLog
	// ids names each channel (append-only: clones share it, capacity clipped).
	ids []chanID
	// byNode maps a node channel to its channel index, copied before a change while shared.
	byNode       map[node.Channel]int32
	byNodeShared bool
	topics       []string // the scenario's topic names
	// The settings the checks need, given at construction: the criteria not judged (tests only)
	// and the metadata budget the engines were given (0: node's default).
	disabled []spec.Criterion
	budget   int
	// What it found and measured: the violations in the order found, the committed deliveries
	// and those among them held back first, and the latency samples.
	violations               []spec.Violation
	deliveries, heldReleased int
	lat                      latencies
}

// chanID is what names a channel: its node channel, topic, incarnation and partition.
type chanID struct {
	nc        node.Channel
	topic     int32
	inc, part int32
}

// chanLog is the oracle's model of one channel's log.
type chanLog struct {
	// slots[o] is the uid of the message produced at offset o (0: a marker, nothing yet, or
	// unknown). Whether a slot is a committed record is the message's state.
	slots []uint64
	// digest caches the hash of the log's canonical encoding (slots and their messages' kind,
	// state, sender and content); 0: stale. Whatever changes a slot or a message's state or
	// payload clears it (world_hash_chan.go).
	digest uint64
	// alive says the channel's incarnation is live; logStart and end are its log start and its
	// high watermark as the last onLogMoved reported them.
	alive         bool
	logStart, end int64
}

// newWorldOracle returns the oracle of a world whose topics are named topics, judging every
// criterion but disabled, of engines given the metadata budget budget.
func newWorldOracle(topics []string, disabled []spec.Criterion, budget int) worldOracle {
	return worldOracle{msgs: make([]*message, 0, 1024), topics: topics, byNode: make(map[node.Channel]int32),
		disabled: disabled, budget: budget}
}

// reports says whether criterion c is judged.
func (o *worldOracle) reports(c spec.Criterion) bool { return !slices.Contains(o.disabled, c) }

// onChannelCreated notes channel c (node channel nc), partition part of incarnation inc of topic
// t, live and empty.
func (o *worldOracle) onChannelCreated(c int32, nc node.Channel, t int, inc, part int32) {
	if o.byNodeShared {
		o.byNode, o.byNodeShared = maps.Clone(o.byNode), false
	}
	o.byNode[nc] = c
	o.ids = append(o.ids, chanID{nc: nc, topic: int32(t), inc: inc, part: part})
	o.logs = append(o.logs, chanLog{alive: true})
}

// onIncarnationDead notes that the n channels from first (one incarnation) are dead: its topic
// was deleted or recreated.
func (o *worldOracle) onIncarnationDead(first int32, n int) {
	for i := range n {
		o.logs[first+int32(i)].alive = false
	}
}

// onLogMoved notes channel c's log start and high watermark after an operation that may have
// moved them (a produce, a transaction's end, a truncation, a retention sweep).
func (o *worldOracle) onLogMoved(c int32, logStart, end int64) {
	o.logs[c].logStart, o.logs[c].end = logStart, end
}

// alive reports whether channel c's incarnation is live.
func (o *worldOracle) alive(c int32) bool { return o.logs[c].alive }

// recreated reports whether channel c's incarnation is dead and its name bound to another
// incarnation now.
func (o *worldOracle) recreated(c int32) bool {
	cur := o.liveInc(c)
	return !o.logs[c].alive && cur >= 0 && cur != o.ids[c].inc
}

// liveInc is the live incarnation of channel c's topic, -1 if it is deleted.
func (o *worldOracle) liveInc(c int32) int32 {
	for i := len(o.ids) - 1; i >= 0; i-- {
		if o.ids[i].topic == o.ids[c].topic && o.logs[i].alive {
			return o.ids[i].inc
		}
	}
	return -1
}

// assignedEnd returns one past the last position assigned on channel c so far: every produced
// record has a slot, and markers may follow up to the high watermark of a live channel.
func (o *worldOracle) assignedEnd(c int32) int64 {
	n := int64(len(o.logs[c].slots))
	if !o.logs[c].alive {
		return n
	}
	return max(n, o.logs[c].end)
}

// add registers a produced record (m.ch, m.pos, produced at virtual time now) and returns its uid.
func (o *worldOracle) add(m message, now int64) uint64 {
	m.producedMicros = now
	m.digest = 0
	if len(o.msgs) == cap(o.msgs) {
		o.msgsShared = false // the append copies the table into an array of its own
	}
	o.msgs = append(o.msgs, &m)
	uid := uint64(len(o.msgs))
	lg := &o.logs[m.ch]
	for int64(len(lg.slots)) <= m.pos {
		lg.slots = append(lg.slots, 0)
	}
	lg.slots[m.pos] = uid
	lg.digest = 0
	return uid
}

// recordAt returns the uid of the committed record at offset pos of channel c, or 0 when no
// committed record occupies it (marker, aborted or open transaction, beyond the log end).
func (o *worldOracle) recordAt(c int32, pos int64) uint64 {
	slots := o.logs[c].slots
	if pos < 0 || pos >= int64(len(slots)) {
		return 0
	}
	uid := slots[pos]
	if uid == 0 || o.msgs[uid-1].state != msgCommitted {
		return 0
	}
	return uid
}

// firstRecordIn returns the first committed record's position in [from, to] on channel c, or -1.
func (o *worldOracle) firstRecordIn(c int32, from, to int64) int64 {
	slots := o.logs[c].slots
	from = max(from, 0)
	to = min(to, int64(len(slots))-1)
	for p := from; p <= to; p++ {
		if uid := slots[p]; uid != 0 && o.msgs[uid-1].state == msgCommitted {
			return p
		}
	}
	return -1
}

// ownMsgs gives o its own copy of the message table if it is shared with a clone.
func (o *worldOracle) ownMsgs() {
	if o.msgsShared {
		o.msgs = append(make([]*message, 0, len(o.msgs)+msgsHeadroom), o.msgs...)
		o.msgsShared = false
	}
}

// produced is a produce event: an external record rec of kind kind written at (c, pos), in state
// state; observed is the committed record a stamped producer observed (0 for the other kinds).
type produced struct {
	c        int32
	pos      int64
	kind     msgKind
	state    msgState
	rec      substrate.Record
	observed uint64
}

// onProduced registers an external record at virtual time now and returns its uid, reading its
// headers with the reference decoder. A stamped record's true past is the observed record's plus
// its coordinate. A forged or corrupt record has no writer whose causality the oracle knows: what
// its header says is both what it expresses and its true past, so a receiver is judged against
// what the bytes say and sessions see the past the projectors record (undecodable: nothing).
func (o *worldOracle) onProduced(e produced, now int64) uint64 {
	m := message{ch: e.c, pos: e.pos, sender: -1, kind: e.kind, state: e.state, key: e.rec.Key, value: e.rec.Value}
	if e.observed != 0 {
		obs := o.msgs[e.observed-1]
		m.expressed, m.past = o.stampOf(e.observed), obs.past.Clone()
		m.past.Merge(o.ids[obs.ch].nc, node.Offset(obs.pos))
	}
	if hs := e.rec.Headers; len(hs) > 0 {
		hr := oracle.ReadHeaders(hs)
		m.headerLen, m.undecodable = hr.ValueLen, hr.Undecodable
		if m.kind == msgCorrupt || m.kind == msgForged {
			m.expressed, m.past, m.raw = hr.Expressed, hr.Expressed, make([][]byte, len(hs))
			for i := range hs {
				m.raw[i] = hs[i].Value
			}
		}
	}
	return o.add(m, now)
}

// stampOf is what an observer of record uid stamps: what uid's header names plus its coordinate.
func (o *worldOracle) stampOf(uid uint64) node.Causes {
	m := o.msgs[uid-1]
	c := m.expressed.Clone()
	c.Merge(o.ids[m.ch].nc, node.Offset(m.pos))
	return c
}

// msgsHeadroom is the spare capacity a copied message table gets for the step's emissions.
const msgsHeadroom = 4

// setState changes message uid's state (replacing the message: clones share it).
func (o *worldOracle) setState(uid uint64, st msgState) {
	if o.msgs[uid-1].state != st {
		m := o.changeMsg(uid)
		m.state = st
		o.logs[m.ch].digest = 0
	}
}

// setPayload sets message uid's key and value (replacing the message: clones share it).
func (o *worldOracle) setPayload(uid uint64, key, value []byte) {
	m := o.changeMsg(uid)
	m.key, m.value, m.digest = key, value, 0
	o.logs[m.ch].digest = 0
}

// changeMsg replaces message uid by a copy of o's own in o's own table and returns the copy to
// change: the message itself is shared with clones and never changes.
func (o *worldOracle) changeMsg(uid uint64) *message {
	o.ownMsgs()
	m := *o.msgs[uid-1]
	o.msgs[uid-1] = &m
	return &m
}

// cloneFrom makes o (a copy of src by value) a clone that shares src's messages, names and node
// channel index copy-on-write and owns its logs, reusing the storage of logs (a released world's).
func (o *worldOracle) cloneFrom(src *worldOracle, logs []chanLog) {
	o.logs = append(logs[:0], src.logs...)
	for i := range o.logs {
		o.logs[i].slots = slices.Clip(o.logs[i].slots)
	}
	src.msgsShared, o.msgsShared = true, true
	o.msgs = slices.Clip(src.msgs)
	o.ids = slices.Clip(src.ids)
	src.byNodeShared, o.byNodeShared = true, true
	o.violations = slices.Clip(src.violations)
	o.lat = latencies{} // what a run only reports is not carried over
}

// fillStats writes what the oracle counted and measured into st at the end of a run (at virtual
// time now): the deliveries, the holds released, and the virtual-time figures.
func (o *worldOracle) fillStats(st *spec.Stats, now int64) {
	st.Deliveries, st.HeldReleased, st.EndMicros = o.deliveries, o.heldReleased, now
	if now > 0 {
		st.DeliveriesPerVirtualSecond = float64(st.Deliveries) * 1e6 / float64(now)
	}
	st.HoldLatency, st.EndToEndLatency = summarise(o.lat.hold), summarise(o.lat.endToEnd)
}

// nodeChan maps a node channel to its channel index, or -1 if the world never created it. A
// small world scans its channels (faster than hashing the 20-byte key).
func (o *worldOracle) nodeChan(nc node.Channel) int32 {
	if len(o.ids) <= nodeChanScanMax {
		for i := range o.ids {
			if o.ids[i].nc == nc {
				return int32(i)
			}
		}
		return -1
	}
	if c, ok := o.byNode[nc]; ok {
		return c
	}
	return -1
}

// chanName renders a channel as topic#incarnation/partition.
func (o *worldOracle) chanName(c int32) string {
	id := &o.ids[c]
	return fmt.Sprintf("%s#%d/%d", o.topics[id.topic], id.inc, id.part)
}

// msgName renders a message as uid@topic#incarnation/partition:position.
func (o *worldOracle) msgName(uid uint64) string {
	if uid == 0 {
		return "none"
	}
	m := o.msgs[uid-1]
	return fmt.Sprintf("m%d(%s:%d)", uid, o.chanName(m.ch), m.pos)
}

// nodeChanName renders a node channel as the world names it, or as itself if the world never
// created it.
func (o *worldOracle) nodeChanName(nc node.Channel) string {
	if c := o.nodeChan(nc); c >= 0 {
		return o.chanName(c)
	}
	return nc.String()
}

// message is the oracle's record of one produced record.
type message struct {
	ch     int32
	pos    int64
	sender int32 // process index; -1 for an external producer
	kind   msgKind
	state  msgState
	// producedMicros is the virtual time of the produce call (end-to-end latency origin).
	producedMicros int64
	// past is the record's true causal past (real happened-before; never read from a header);
	// expressed is what its parsley.causes header names, as the reference decoder reads it
	// (oracle_wire.go; empty for a headerless or undecodable record). Both are shared and
	// immutable.
	past      node.Causes
	expressed node.Causes
	headerLen int
	// undecodable says the reference decoder refuses the record's headers: a receiver must fail
	// closed on it (S7), and may (OVER_REFUSAL).
	undecodable bool
	// raw holds the parsley.causes header values of a corrupt, forged or undecodable record (a nil
	// value is a null one), whose bytes are not the one spelling of expressed: what a reader's
	// decoder makes of them depends on the bytes, so the explorer tells such records apart by
	// them (msgDigest). Nil for the others, whose header is the canonical encoding of expressed.
	raw [][]byte
	// key and value are the record's payload bytes (shared, immutable): part of the explorer's
	// canonical state, since application logic forwards them.
	key, value []byte
	// digest caches the hash of the canonical encoding of past, expressed, key and value (0: not
	// computed yet; world_hash.go).
	digest uint64
}

type msgKind uint8

const (
	msgPlain msgKind = iota + 1
	msgStamped
	msgCorrupt
	msgEmission
	msgForged  // scripted record with a hand-made header
	msgSession // written by the session write tier (session_write.go)
)

type msgState uint8

const (
	msgPending msgState = iota + 1 // inside an open transaction
	msgCommitted
	msgAborted
)

// String names a message kind.
func (k msgKind) String() string {
	return nameOf(k, "plain", "stamped", "corrupt", "emission", "forged", "session")
}

// String names a message state.
func (s msgState) String() string { return nameOf(s, "pending", "committed", "aborted") }

// nameOf returns the name of the i-th constant counting from 1, or "?".
func nameOf[T ~uint8](i T, names ...string) string {
	if i == 0 || int(i) > len(names) {
		return "?"
	}
	return names[i-1]
}

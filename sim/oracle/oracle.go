package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// Oracle is the oracle's model of the world as a whole: the message truth table (every
// produced record's true past and what its header says, learnt from the produce or send event
// that wrote it) and its own model of every channel's log and topic, built from the world's
// events — a channel created (OnChannelCreated), an incarnation deleted or replaced by a
// recreation (OnIncarnationDead), a record produced (OnProduced, Add), a transaction committed
// or aborted (SetState), the log's offsets moved by a produce, a transaction's end, a truncation
// or a retention sweep (OnLogMoved) — and the violations found, the deliveries counted and the
// latencies sampled. The checkers judge from it, never from the substrate or the world's own
// channel and topic tables. A world holds it by value: a world's clone copies it and calls
// CloneFrom.
type Oracle struct {
	// msgs is the message table, by uid-1. A message shared with a clone never changes: a change
	// replaces it with a changed copy (SetState), so a clone copies and a new record appends one
	// pointer rather than every message.
	msgs       []*Message
	msgsShared bool // msgs's array is shared with a clone: ownMsgs copies it before a change
	// ownedFrom is the uid of the first message made since o was last cloned or cloned from: the
	// messages from it on are o's alone, so a change writes them in place (changeMsg).
	ownedFrom uint64
	// slab is where o makes its messages and their frontiers.
	slab slab
	// logs is the model of each channel's log, by channel index.
	logs []chanLog
	// ids names each channel (append-only: clones share it, capacity clipped).
	ids []chanID
	// byNode maps a node channel to its channel index, copied before a change while shared.
	byNode       map[node.Channel]int32
	byNodeShared bool
	// live is each topic's live incarnation (-1 or missing: deleted), by topic index, copied
	// before a change while shared with a clone.
	live       []int32
	liveShared bool
	topics     []string // the scenario's topic names
	// The settings the checks need, given at construction: the criteria not judged (tests only)
	// and the metadata budget the engines were given (0: node's default).
	disabled []spec.Criterion
	budget   int
	// What it found and measured: the violations in the order found, the committed deliveries
	// and those among them held back first, and the latency samples.
	violations               []spec.Violation
	deliveries, heldReleased int
	lat                      latencies
	// procs is the oracle's view of each process, by index (kept in the processes' shells:
	// SetProc); the end-of-run checks visit them.
	procs []*Proc
	// reporter hears of each violation as it is found, nil for none.
	reporter Reporter
}

// Reporter hears of the violations the oracle finds as it finds them (the world's trace): the
// process (-1 for none) and the criterion with its detail.
type Reporter interface {
	ReportViolation(proc int, text string)
}

// SetReporter makes r hear of every violation found from now on.
func (o *Oracle) SetReporter(r Reporter) { o.reporter = r }

// SetProc registers p as the oracle's view of process idx (a new world's process, or a clone's
// copy).
func (o *Oracle) SetProc(idx int, p *Proc) {
	for len(o.procs) <= idx {
		o.procs = append(o.procs, nil)
	}
	o.procs[idx] = p
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
	// state, sender and content) for the explorer's hasher (ShadowLog); 0: stale. Whatever
	// changes a slot or a message's state or payload clears it.
	digest uint64
	// alive says the channel's incarnation is live; logStart and end are its log start and its
	// high watermark as the last OnLogMoved reported them.
	alive         bool
	logStart, end int64
}

// New returns the oracle of a world whose topics are named topics, judging every
// criterion but disabled, of engines given the metadata budget budget.
func New(topics []string, disabled []spec.Criterion, budget int) Oracle {
	return Oracle{msgs: make([]*Message, 0, 1024), topics: topics, byNode: make(map[node.Channel]int32),
		disabled: disabled, budget: budget}
}

// Disable stops the oracle judging criterion c from now on (a disabled REFERENCE no longer runs
// its reference nodes): the restart check's fork of a run judges without them.
func (o *Oracle) Disable(c spec.Criterion) { o.disabled = append(slices.Clip(o.disabled), c) }

// Reports says whether criterion c is judged.
func (o *Oracle) Reports(c spec.Criterion) bool { return !slices.Contains(o.disabled, c) }

// OnChannelCreated notes channel c (node channel nc), partition part of incarnation inc of topic
// t, live and empty.
func (o *Oracle) OnChannelCreated(c int32, nc node.Channel, t int, inc, part int32) {
	if o.byNodeShared {
		o.byNode, o.byNodeShared = maps.Clone(o.byNode), false
	}
	o.byNode[nc] = c
	o.ids = append(o.ids, chanID{nc: nc, topic: int32(t), inc: inc, part: part})
	o.logs = append(o.logs, chanLog{alive: true})
	o.setLive(int32(t), inc)
}

// setLive notes inc as topic t's live incarnation (-1: none).
func (o *Oracle) setLive(t, inc int32) {
	if o.liveShared {
		o.live, o.liveShared = slices.Clone(o.live), false
	}
	for int(t) >= len(o.live) {
		o.live = append(o.live, -1)
	}
	o.live[t] = inc
}

// OnIncarnationDead notes that the n channels from first (one incarnation) are dead: its topic
// was deleted or recreated.
func (o *Oracle) OnIncarnationDead(first int32, n int) {
	for i := range n {
		o.logs[first+int32(i)].alive = false
	}
	if n > 0 && o.live[o.ids[first].topic] == o.ids[first].inc {
		o.setLive(o.ids[first].topic, -1)
	}
}

// OnLogMoved notes channel c's log start and high watermark after an operation that may have
// moved them (a produce, a transaction's end, a truncation, a retention sweep).
func (o *Oracle) OnLogMoved(c int32, logStart, end int64) {
	o.logs[c].logStart, o.logs[c].end = logStart, end
}

// Alive reports whether channel c's incarnation is live.
func (o *Oracle) Alive(c int32) bool { return o.logs[c].alive }

// recreated reports whether channel c's incarnation is dead and its name bound to another
// incarnation now.
func (o *Oracle) recreated(c int32) bool {
	if o.logs[c].alive {
		return false
	}
	cur := o.liveInc(c)
	return cur >= 0 && cur != o.ids[c].inc
}

// liveInc is the live incarnation of channel c's topic, -1 if it is deleted.
func (o *Oracle) liveInc(c int32) int32 { return o.live[o.ids[c].topic] }

// assignedEnd returns one past the last position assigned on channel c so far: every produced
// record has a slot, and markers may follow up to the high watermark of a live channel.
func (o *Oracle) assignedEnd(c int32) int64 {
	n := int64(len(o.logs[c].slots))
	if !o.logs[c].alive {
		return n
	}
	return max(n, o.logs[c].end)
}

// Add registers a produced record (m.ch, m.pos, produced at virtual time now) and returns its uid.
func (o *Oracle) Add(m Message, now int64) uint64 {
	m.ProducedMicros = now
	m.Digest = 0
	if len(o.msgs) == cap(o.msgs) {
		o.msgsShared = false // the append copies the table into an array of its own
	}
	o.msgs = append(o.msgs, o.slab.message(&m))
	uid := uint64(len(o.msgs))
	lg := &o.logs[m.Ch]
	if cap(lg.slots) == 0 {
		lg.slots = make([]uint64, 0, slotsRoom)
	}
	for int64(len(lg.slots)) <= m.Pos {
		lg.slots = append(lg.slots, 0)
	}
	lg.slots[m.Pos] = uid
	lg.digest = 0
	return uid
}

// slotsRoom is the room a channel's slots start with, so that a log's first records do not grow
// them one allocation at a time.
const slotsRoom = 16

// RecordAt returns the uid of the committed record at offset pos of channel c, or 0 when no
// committed record occupies it (marker, aborted or open transaction, beyond the log end).
func (o *Oracle) RecordAt(c int32, pos int64) uint64 {
	slots := o.logs[c].slots
	if pos < 0 || pos >= int64(len(slots)) {
		return 0
	}
	uid := slots[pos]
	if uid == 0 || o.msgs[uid-1].State != MsgCommitted {
		return 0
	}
	return uid
}

// FirstRecordIn returns the first committed record's position in [from, to] on channel c, or -1.
func (o *Oracle) FirstRecordIn(c int32, from, to int64) int64 {
	slots := o.logs[c].slots
	from = max(from, 0)
	to = min(to, int64(len(slots))-1)
	for p := from; p <= to; p++ {
		if uid := slots[p]; uid != 0 && o.msgs[uid-1].State == MsgCommitted {
			return p
		}
	}
	return -1
}

// ownMsgs gives o its own copy of the message table if it is shared with a clone.
func (o *Oracle) ownMsgs() {
	if o.msgsShared {
		o.msgs = append(make([]*Message, 0, len(o.msgs)+msgsHeadroom), o.msgs...)
		o.msgsShared = false
	}
}

// Produced is a produce event: an external record rec of kind kind written at (c, pos), in state
// state; stamp is what a stamped producer observed and stamped (zero for the other kinds).
type Produced struct {
	C     int32
	Pos   int64
	Kind  MsgKind
	State MsgState
	Rec   substrate.Record
	Stamp Stamp
}

// Stamp is a stamped producer's observation: the committed record it observed and the causes it
// stamped, StampOf(Observed).
type Stamp struct {
	Observed uint64
	Causes   node.Causes
}

// OnProduced registers an external record at virtual time now and returns its uid, reading its
// headers with the reference decoder. A stamped record's true past is the observed record's plus
// its coordinate. A forged or corrupt record has no writer whose causality the oracle knows: what
// its header says is both what it expresses and its true past, so a receiver is judged against
// what the bytes say and sessions see the past the projectors record (undecodable: nothing).
func (o *Oracle) OnProduced(e Produced, now int64) uint64 {
	m := Message{Ch: e.C, Pos: e.Pos, Sender: -1, Kind: e.Kind, State: e.State, Key: e.Rec.Key, Value: e.Rec.Value}
	if e.Stamp.Observed != 0 {
		obs := o.msgs[e.Stamp.Observed-1]
		m.Expressed, m.Past = e.Stamp.Causes, o.slab.withRoom(obs.Past, 1)
		m.Past.Merge(o.ids[obs.Ch].nc, node.Offset(obs.Pos))
	}
	if hs := e.Rec.Headers; len(hs) > 0 {
		unvouched := m.Kind == MsgCorrupt || m.Kind == MsgForged // what its header says is what it expresses
		var hr HeaderReading
		if unvouched {
			hr = ReadHeaders(hs)
		} else {
			hr = readHeaders(hs, false, nil)
		}
		m.HeaderLen, m.Undecodable = hr.ValueLen, hr.Undecodable
		if unvouched {
			m.Expressed, m.Past, m.Raw = hr.Expressed, hr.Expressed, make([][]byte, len(hs))
			for i := range hs {
				m.Raw[i] = hs[i].Value
			}
		}
	}
	return o.Add(m, now)
}

// StampOf is what an observer of record uid stamps: what uid's header names plus its coordinate.
func (o *Oracle) StampOf(uid uint64) node.Causes {
	m := o.msgs[uid-1]
	c := o.slab.withRoom(m.Expressed, 1)
	c.Merge(o.ids[m.Ch].nc, node.Offset(m.Pos))
	return c
}

// msgsHeadroom is the spare capacity a copied message table gets for the step's emissions.
const msgsHeadroom = 4

// SetState changes message uid's state (replacing the message if clones may share it).
func (o *Oracle) SetState(uid uint64, st MsgState) {
	if o.msgs[uid-1].State != st {
		m := o.changeMsg(uid)
		m.State = st
		o.logs[m.Ch].digest = 0
	}
}

// changeMsg returns message uid to change: the message itself when o made it since it was last
// cloned or cloned from, else (clones may share it, and it never changes) a copy that replaces
// it in o's own table.
func (o *Oracle) changeMsg(uid uint64) *Message {
	if uid >= o.ownedFrom {
		return o.msgs[uid-1]
	}
	o.ownMsgs()
	m := o.slab.message(o.msgs[uid-1])
	o.msgs[uid-1] = m
	return m
}

// CloneFrom makes o (a copy of src by value) a clone that shares src's messages, names and node
// channel index copy-on-write and owns its logs, reusing st (a released oracle's storage). It has
// no views of the processes until the clone's world registers its copies (SetProc), and its
// reporter is src's until the world registers its own (SetReporter).
func (o *Oracle) CloneFrom(src *Oracle, st Storage) {
	o.logs = append(st.logs[:0], src.logs...)
	for i := range o.logs {
		o.logs[i].slots = slices.Clip(o.logs[i].slots)
	}
	src.msgsShared, o.msgsShared = true, true
	o.msgs = slices.Clip(src.msgs)
	src.ownedFrom = uint64(len(src.msgs)) + 1
	o.ownedFrom, o.slab = src.ownedFrom, slab{}
	o.ids = slices.Clip(src.ids)
	src.byNodeShared, o.byNodeShared = true, true
	src.liveShared, o.liveShared = true, true
	o.violations = slices.Clip(src.violations)
	o.lat = latencies{} // what a run only reports is not carried over
	o.procs = st.procs[:0]
}

// FillStats writes what the oracle counted and measured into st at the end of a run (at virtual
// time now): the deliveries, the holds released, and the virtual-time figures.
func (o *Oracle) FillStats(st *spec.Stats, now int64) {
	st.Deliveries, st.HeldReleased, st.EndMicros = o.deliveries, o.heldReleased, now
	if now > 0 {
		st.DeliveriesPerVirtualSecond = float64(st.Deliveries) * 1e6 / float64(now)
	}
	st.HoldLatency, st.EndToEndLatency = summarise(o.lat.hold), summarise(o.lat.endToEnd)
}

// NodeChan maps a node channel to its channel index, or -1 if the world never created it. A
// small world scans its channels (faster than hashing the 20-byte key).
func (o *Oracle) NodeChan(nc node.Channel) int32 {
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

// ChanName renders a channel as topic#incarnation/partition.
func (o *Oracle) ChanName(c int32) string {
	id := &o.ids[c]
	return fmt.Sprintf("%s#%d/%d", o.topics[id.topic], id.inc, id.part)
}

// MsgName renders a message as uid@topic#incarnation/partition:position.
func (o *Oracle) MsgName(uid uint64) string {
	if uid == 0 {
		return "none"
	}
	m := o.msgs[uid-1]
	return fmt.Sprintf("m%d(%s:%d)", uid, o.ChanName(m.Ch), m.Pos)
}

// NodeChanName renders a node channel as the world names it, or as itself if the world never
// created it.
func (o *Oracle) NodeChanName(nc node.Channel) string {
	if c := o.NodeChan(nc); c >= 0 {
		return o.ChanName(c)
	}
	return nc.String()
}

// RefusalText renders r as node.Refusal.Error does, naming its channel as the world names it
// (NodeChanName) and every topic ID of its detail that the world created by its incarnation
// (topic#incarnation), so a trace names them as its other events do.
func (o *Oracle) RefusalText(r *node.Refusal) string {
	channel := ""
	if r.Channel != (node.Channel{}) {
		channel = o.NodeChanName(r.Channel)
	}
	d := *r
	for i := range o.ids {
		if id := &o.ids[i]; id.part == 0 && strings.Contains(d.Detail, id.nc.Topic.String()) {
			d.Detail = strings.ReplaceAll(d.Detail, id.nc.Topic.String(), fmt.Sprintf("%s#%d", o.topics[id.topic], id.inc))
		}
	}
	return d.Describe(channel)
}

// Msg returns message uid (uid >= 1). It may be shared with clones: read it only.
func (o *Oracle) Msg(uid uint64) *Message { return o.msgs[uid-1] }

// NumMsgs is the number of messages so far, the last uid.
func (o *Oracle) NumMsgs() int { return len(o.msgs) }

// Slots returns channel c's slots: the uid of the message at each offset (0: none known). Read
// it only.
func (o *Oracle) Slots(c int32) []uint64 { return o.logs[c].slots }

// ShadowLog returns channel c's slots and the explorer's cache of their canonical encoding's
// digest (0: stale), which every change to the slots or their messages clears.
func (o *Oracle) ShadowLog(c int32) ([]uint64, *uint64) { return o.logs[c].slots, &o.logs[c].digest }

// ObservedAll is the header an observer of the last committed record of every live channel
// would stamp: those records' expressed causes and their coordinates.
func (o *Oracle) ObservedAll() node.Causes {
	var out node.Causes
	for c := range o.logs {
		if !o.logs[c].alive {
			continue
		}
		slots := o.logs[c].slots
		for i := len(slots) - 1; i >= 0; i-- {
			if uid := slots[i]; uid != 0 && o.Msg(uid).State == MsgCommitted {
				out.MergeFrom(o.Msg(uid).Expressed)
				out.Merge(o.ids[c].nc, node.Offset(i))
				break
			}
		}
	}
	return out
}

// Channel is channel c's node channel.
func (o *Oracle) Channel(c int32) node.Channel { return o.ids[c].nc }

// logStart is channel c's log start as the last OnLogMoved reported it.
func (o *Oracle) logStart(c int32) int64 { return o.logs[c].logStart }

// Budget is the metadata budget the engines were given (0: node's default).
func (o *Oracle) Budget() int { return o.budget }

// report records violation v unless its criterion is not judged, and reports whether it did.
func (o *Oracle) report(v spec.Violation) bool {
	if !o.Reports(v.Criterion) {
		return false
	}
	o.violations = append(o.violations, v)
	return true
}

// Violations returns the violations found so far, in the order found.
func (o *Oracle) Violations() []spec.Violation { return o.violations }

// ClearViolations forgets the violations found so far (a world whose end the explorer runs
// reports only what the end finds).
func (o *Oracle) ClearViolations() { o.violations = nil }

// Storage is what a released oracle's clone may reuse.
type Storage struct {
	logs  []chanLog
	procs []*Proc
}

// Storage returns o's storage for a clone to reuse once o is released.
func (o *Oracle) Storage() Storage { return Storage{logs: o.logs, procs: o.procs} }

// ForgedClaim reports whether a forged or corrupt record's header names exactly this pair.
func (o *Oracle) ForgedClaim(pair node.Cause) bool {
	for _, m := range o.msgs {
		if m.Kind != MsgForged && m.Kind != MsgCorrupt {
			continue
		}
		if q, ok := m.Expressed.Lookup(pair.Channel); ok && q == pair.Position {
			return true
		}
	}
	return false
}

// nodeChanScanMax is the channel count up to which NodeChan scans instead of using a map.
const nodeChanScanMax = 16

// Message is the oracle's record of one produced record: where it was written, by whom, its
// kind and state, and what the oracle knows of it. A message in the table may be shared with
// clones, and then never changes: the oracle replaces it with a changed copy.
type Message struct {
	Ch     int32 // the channel index it was written to
	Pos    int64 // its offset there
	Sender int32 // process index; -1 for an external producer
	Kind   MsgKind
	State  MsgState
	// ProducedMicros is the virtual time of the produce call (end-to-end latency origin).
	ProducedMicros int64
	// Past is the record's true causal past (real happened-before; never read from a header);
	// Expressed is what its parsley.causes header names, as the reference decoder reads it
	// (ReadHeaders; empty for a headerless or undecodable record). Both are shared and
	// immutable.
	Past      node.Causes
	Expressed node.Causes
	HeaderLen int // the length of its parsley.causes header's value
	// Undecodable says the reference decoder refuses the record's headers: a receiver must fail
	// closed on it (S7), and may (OVER_REFUSAL).
	Undecodable bool
	// Raw holds the parsley.causes header values of a corrupt, forged or undecodable record (a nil
	// value is a null one), whose bytes are not the one spelling of Expressed: what a reader's
	// decoder makes of them depends on the bytes, so the explorer tells such records apart by
	// them. Nil for the others, whose header is the canonical encoding of Expressed.
	Raw [][]byte
	// Key and Value are the record's payload bytes (shared, immutable): part of the explorer's
	// canonical state, since application logic forwards them.
	Key, Value []byte
	// Digest caches, for the explorer's hasher, the hash of the canonical encoding of Past,
	// Expressed, Raw, Key and Value (0: not computed yet).
	Digest uint64
}

// MsgKind is who wrote a message and how.
type MsgKind uint8

const (
	MsgPlain MsgKind = iota + 1
	MsgStamped
	MsgCorrupt
	MsgEmission
	MsgForged  // scripted record with a hand-made header
	MsgSession // written by a session client's write
)

// MsgState is where a message's transaction stands.
type MsgState uint8

const (
	MsgPending MsgState = iota + 1 // inside an open transaction
	MsgCommitted
	MsgAborted
)

// String names a message kind.
func (k MsgKind) String() string {
	return nameOf(k, "plain", "stamped", "corrupt", "emission", "forged", "session")
}

// String names a message state.
func (s MsgState) String() string { return nameOf(s, "pending", "committed", "aborted") }

// nameOf returns the name of the i-th constant counting from 1, or "?".
func nameOf[T ~uint8](i T, names ...string) string {
	if i == 0 || int(i) > len(names) {
		return "?"
	}
	return names[i-1]
}

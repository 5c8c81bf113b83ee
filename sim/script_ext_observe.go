package sim

import (
	"fmt"
	"slices"
	"sort"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/substrate"
)

// Observed scripted runs: what a person reading a scenario file wants to see between actions and
// what its expectations assert — each process's state, committed deliveries and holds with their
// blockers (the engine's Status, SPEC §7.2), and every record with its parsley.causes header and
// payload. RunObserved is Run with an observer of the run's phases (runObserver) that snapshots
// the world after the initial starts, after each script action and at the end.

// Observed is an observed scripted run: the result, one snapshot after the initial starts, one
// after each script action, one at the end, and every record the run produced.
//
// Its memory is linear in the run: a snapshot lists only the processes whose view changed, a
// view is kept once per change (View finds the one in force), and a view's deliveries share one
// persistent list per process (a delivery is one node, whatever the number of snapshots).
type Observed struct {
	Result *spec.Result
	// Snapshots[0] follows the initial starts (Action -1), Snapshots[i+1] follows script action i,
	// and the last one follows the liveness phase and the end-of-run checks (Action len(Script)).
	Snapshots []Snapshot
	// Messages[uid-1] describes record uid.
	Messages []MessageView
	// Incarnations[i] names the world's incarnation i (Event.Incarn): its topic and its number
	// among that topic's incarnations (0 for the first, 1 after the first recreation, ...).
	Incarnations []IncarnationView

	// views[i] is process i's views in snapshot order, each with the snapshot it began at.
	views [][]viewAt
	// obs[i] is what the observer knows of process i's deliveries.
	obs []deliveryObserver
	// unsettled lists the records whose state or payload a later snapshot may still learn.
	unsettled []uint64
}

// viewAt is a process view and the snapshot from which it held.
type viewAt struct {
	snap int
	view ProcessView
}

// View returns process i's view at snapshot k (an index into Snapshots).
func (ob *Observed) View(k, i int) ProcessView {
	h := ob.views[i]
	j := sort.Search(len(h), func(j int) bool { return h[j].snap > k })
	return h[j-1].view
}

// IncarnationView names one incarnation of a topic.
type IncarnationView struct {
	Topic  string
	Number int
	ID     string // the topic ID as node.TopicID renders it (refusal details name channels by it)
}

// Snapshot is the world between two actions.
type Snapshot struct {
	Action int // index of the script action just performed (see Observed.Snapshots)
	Step   int // the scheduler step after it; events with Step <= this belong to it or earlier
	// Changed lists, in process order, the processes whose view differs from the previous
	// snapshot's (every process in the first snapshot).
	Changed []int
}

// ProcessView is one process between actions.
type ProcessView struct {
	Name    string
	State   string // "running", "down" or "refused"
	Refusal string // the refusal reason when State is "refused"
	// Holds lists the engine's held channels in channel order (running processes only).
	Holds []HoldView
	// delivered is the last of the process's deliveries (nil for none).
	delivered *deliveryNode
}

// Delivered returns the uids of the process's first deliveries in order: the committed ones and
// those of its open step (a crash takes those back).
func (v ProcessView) Delivered() []uint64 {
	if v.delivered == nil {
		return nil
	}
	out := make([]uint64, v.delivered.index+1)
	for d := v.delivered; d != nil; d = d.prev {
		out[d.index] = d.uid
	}
	return out
}

// deliveryNode is one delivery in a persistent list: the sequence a view holds is the path from
// its node back to the first delivery, so views share every delivery they have in common.
type deliveryNode struct {
	uid   uint64
	index int64 // the delivery's place in the sequence (0 for the first)
	prev  *deliveryNode
}

// deliveryObserver follows one process's delivery sequence between snapshots. The sequence's
// first committed entries never change (a rollback takes back only the open step's), so a
// snapshot reads only the deliveries from the last committed count seen on.
type deliveryObserver struct {
	head      *deliveryNode
	committed int64 // the process's committed delivery count at the last snapshot
}

// HoldView is one held channel: its head, how many messages it holds and the head's blockers
// (none: deliverable on the next drain).
type HoldView struct {
	Channel  string // topic/partition, or topic#incarnation/partition after a recreation
	Head     int64
	HeadMsg  uint64 // uid of the head record (0 if the world knows none there)
	Held     int
	Blockers []BlockerView
}

// BlockerView is one unsatisfied cause of a held head.
type BlockerView struct {
	Channel      string
	Required     int64
	Settled      int64
	SettledKnown bool
}

// String renders the blocker as "c1/0 required=2 settled=0" (settled=none when unknown).
func (b BlockerView) String() string {
	if !b.SettledKnown {
		return fmt.Sprintf("%s required=%d settled=none", b.Channel, b.Required)
	}
	return fmt.Sprintf("%s required=%d settled=%d", b.Channel, b.Required, b.Settled)
}

// MessageView is one record the run produced.
type MessageView struct {
	UID         uint64
	Channel     string // as in HoldView
	Topic       string
	Incarnation int // among the topic's incarnations, as in IncarnationView
	Partition   int32
	Position    int64
	Kind        string // plain, stamped, corrupt, emission, forged
	State       string // pending, committed, aborted
	Sender      string // the sending process; "" for an external producer
	// Causes is what its parsley.causes header expresses (nil when absent or undecodable).
	Causes []CauseView
	// Key, Value and TimestampMicros are read back from the substrate when the record was first
	// fetchable after an action (PayloadKnown); a record never committed has none.
	Key, Value      []byte
	TimestampMicros int64
	PayloadKnown    bool
}

// CauseView is one (channel, position) pair of a header.
type CauseView struct {
	Channel  string
	Position int64
}

// RunObserved runs scn as Run does (the same run: the observer only reads the world),
// snapshotting the world after each scripted action.
func RunObserved(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts RunOptions) *Observed {
	ob := &Observed{}
	runScenario(scn, set, ch, opts, ob)
	return ob
}

// started implements runObserver: the first snapshot.
func (ob *Observed) started(w *world) {
	ob.views, ob.obs = make([][]viewAt, len(w.procs)), make([]deliveryObserver, len(w.procs))
	ob.snapshot(w, -1)
}

// scripted implements runObserver: the snapshot after script action i.
func (ob *Observed) scripted(w *world, i int) { ob.snapshot(w, i) }

// finished implements runObserver: the result, the last snapshot and the records' final states.
func (ob *Observed) finished(w *world, res *spec.Result) {
	ob.Result = res
	ob.snapshot(w, len(w.scn.Script))
	for i := range ob.Messages {
		ob.Messages[i].State = w.or.Msg(uint64(i) + 1).State.String()
	}
}

// snapshot records the processes whose view changed and brings the message table up to date.
func (ob *Observed) snapshot(w *world, action int) {
	k := len(ob.Snapshots)
	s := Snapshot{Action: action, Step: w.step}
	for i, p := range w.procs {
		v := w.viewProcess(p, &ob.obs[i])
		if h := ob.views[i]; len(h) > 0 && sameView(&h[len(h)-1].view, &v) {
			continue
		}
		ob.views[i] = append(ob.views[i], viewAt{snap: k, view: v})
		s.Changed = append(s.Changed, i)
	}
	ob.Snapshots = append(ob.Snapshots, s)
	for len(ob.Incarnations) < len(w.incs) {
		inc := int32(len(ob.Incarnations))
		ob.Incarnations = append(ob.Incarnations, IncarnationView{Topic: w.topics[w.incs[inc].topic].spec.Name,
			Number: w.incarnationNumber(inc), ID: node.TopicID(w.incs[inc].id).String()})
	}
	for len(ob.Messages) < w.or.NumMsgs() {
		uid := uint64(len(ob.Messages) + 1)
		ob.Messages = append(ob.Messages, w.viewMessage(uid))
		ob.unsettled = append(ob.unsettled, uid)
	}
	// A record's payload is read when it is first fetchable after an action; one pending, or
	// committed but behind an open transaction, is looked at again after the next action.
	kept := ob.unsettled[:0]
	for _, uid := range ob.unsettled {
		mv, m := &ob.Messages[uid-1], w.or.Msg(uid)
		mv.State = m.State.String()
		if m.State == oracle.MsgCommitted {
			w.readPayload(mv, m)
		}
		if m.State == oracle.MsgPending || m.State == oracle.MsgCommitted && !mv.PayloadKnown && w.mayFetchLater(m) {
			kept = append(kept, uid)
		}
	}
	ob.unsettled = kept
}

// mayFetchLater reports whether a committed record not read back yet may still be: its topic's
// incarnation is alive and the record is not below the partition's log start (both only ever
// move one way).
func (w *world) mayFetchLater(m *oracle.Message) bool {
	return w.alive(m.Ch) && m.Pos >= int64(w.offsets(m.Ch).LogStart)
}

// sameView reports whether two views of one process are equal.
func sameView(a, b *ProcessView) bool {
	return a.State == b.State && a.Refusal == b.Refusal && a.delivered == b.delivered &&
		slices.EqualFunc(a.Holds, b.Holds, func(x, y HoldView) bool {
			return x.Channel == y.Channel && x.Head == y.Head && x.HeadMsg == y.HeadMsg && x.Held == y.Held &&
				slices.Equal(x.Blockers, y.Blockers)
		})
}

// viewProcess renders process p, bringing its delivery list up to date.
func (w *world) viewProcess(p *proc, d *deliveryObserver) ProcessView {
	d.update(p)
	v := ProcessView{Name: p.spec.Name, delivered: d.head}
	switch p.status {
	case procRunning:
		v.State = "running"
	case procFailed:
		v.State, v.Refusal = "refused", p.refusalWhy
	default:
		v.State = "down"
	}
	if p.status != procRunning || p.eng == nil {
		return v
	}
	for _, cs := range p.eng.Status().Channels {
		c := w.nodeChan(cs.Channel)
		h := HoldView{Channel: w.shortChan(cs.Channel), Head: int64(cs.Head), Held: cs.Held}
		if c >= 0 {
			h.HeadMsg = w.or.RecordAt(c, int64(cs.Head))
		}
		for _, b := range cs.Blockers {
			h.Blockers = append(h.Blockers, BlockerView{Channel: w.shortChan(b.Channel), Required: int64(b.Required),
				Settled: int64(b.Settled), SettledKnown: b.SettledKnown})
		}
		v.Holds = append(v.Holds, h)
	}
	return v
}

// update brings d's list to p's delivery sequence: entries below the committed count seen at the
// last snapshot stay; the rest (the open step's then, and everything since) are read and the list
// is rebuilt from the first that differs.
func (d *deliveryObserver) update(p *proc) {
	n, step := p.o.Deliveries()
	from := d.committed
	d.committed = n - int64(step)
	tail := p.o.DeliveriesSince(from)
	// The list's entries from `from` on, last first, against the tail read now.
	var kept []*deliveryNode
	for e := d.head; e != nil && e.index >= from; e = e.prev {
		kept = append(kept, e)
	}
	same := 0
	for same < len(tail) && same < len(kept) && kept[len(kept)-1-same].uid == tail[same] {
		same++
	}
	if same == len(tail) && same == len(kept) {
		return
	}
	head := d.head
	for range len(kept) - same {
		head = head.prev
	}
	for i := same; i < len(tail); i++ {
		head = &deliveryNode{uid: tail[i], index: from + int64(i), prev: head}
	}
	d.head = head
}

// viewMessage renders record uid (without its payload).
func (w *world) viewMessage(uid uint64) MessageView {
	m := w.or.Msg(uid)
	ch := &w.chans[m.Ch]
	v := MessageView{UID: uid, Channel: w.shortChan(ch.nc), Topic: w.topics[ch.topic].spec.Name,
		Incarnation: w.incarnationNumber(ch.inc), Partition: ch.part, Position: m.Pos, Kind: m.Kind.String(), State: m.State.String()}
	if m.Sender >= 0 {
		v.Sender = w.procs[m.Sender].spec.Name
	}
	for _, c := range m.Expressed.Pairs() {
		v.Causes = append(v.Causes, CauseView{Channel: w.shortChan(c.Channel), Position: int64(c.Position)})
	}
	return v
}

// readPayload reads a committed record's key, value and timestamp back from the substrate, if
// it is still there.
func (w *world) readPayload(mv *MessageView, m *oracle.Message) {
	if !w.alive(m.Ch) {
		return
	}
	recs, _, err := w.sub.Fetch(w.chans[m.Ch].tp, substrate.Offset(m.Pos), 1)
	if err != nil || len(recs) == 0 || int64(recs[0].Offset) != m.Pos {
		return
	}
	r := recs[0].Record
	mv.Key, mv.Value, mv.TimestampMicros, mv.PayloadKnown = r.Key, r.Value, r.TimestampMicros, true
}

// shortChan names a node channel as topic/partition, adding #incarnation for any incarnation but
// the first; a channel the world never created is rendered by its topic ID.
func (w *world) shortChan(nc node.Channel) string {
	c := w.nodeChan(nc)
	if c < 0 {
		return nc.String()
	}
	ch := &w.chans[c]
	name := w.topics[ch.topic].spec.Name
	if ch.inc != w.firstIncarnation(ch.topic) {
		name += fmt.Sprintf("#%d", w.incarnationNumber(ch.inc))
	}
	return fmt.Sprintf("%s/%d", name, ch.part)
}

// firstIncarnation returns the world index of topic t's first incarnation.
func (w *world) firstIncarnation(t int) int32 {
	for i := range w.incs {
		if w.incs[i].topic == t {
			return int32(i)
		}
	}
	return -1
}

// incarnationNumber counts topic t's incarnations before inc: 0 for the first, 1 for the first
// recreation, and so on (per topic, unlike the world's global incarnation index).
func (w *world) incarnationNumber(inc int32) int {
	t := w.incs[inc].topic
	n := 0
	for i := int32(0); i < inc; i++ {
		if w.incs[i].topic == t {
			n++
		}
	}
	return n
}

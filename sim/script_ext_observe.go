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
	"github.com/parsleysim/parsleysim/sim/world"
)

// Observed scripted runs: what a person reading a scenario file wants to see between actions and
// what its expectations assert — each process's state, committed deliveries and holds with their
// blockers (the engine's Status, SPEC §7.2), and every record with its parsley.causes header and
// payload. RunObserved is Run (the same skeleton, run.go) snapshotting the world
// after the initial starts, after each script action and at the end, through what the world shows
// an observer (world.View).

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
	// actions is the number of script actions (the last snapshot's Action).
	actions int
	// procs are the scenario's process names, by scenario index.
	procs []string
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
	ob := &Observed{actions: len(scn.Script)}
	for _, p := range scn.Processes {
		ob.procs = append(ob.procs, p.Name)
	}
	mustBeValid(scn)
	run(scn, set, ch, opts, ob)
	return ob
}

// started takes the first snapshot, after the initial starts. The observer's methods are
// unexported, so a caller handed the Observed cannot write into it, and sim's API names no world.
func (ob *Observed) started(w world.View) {
	ob.views, ob.obs = make([][]viewAt, len(ob.procs)), make([]deliveryObserver, len(ob.procs))
	ob.snapshot(w, -1)
}

// finished records the result, the last snapshot and the records' final states.
func (ob *Observed) finished(w world.View, res *spec.Result) {
	ob.Result = res
	ob.snapshot(w, ob.actions)
	for i := range ob.Messages {
		ob.Messages[i].State = w.Oracle().Msg(uint64(i) + 1).State.String()
	}
}

// snapshot records the processes whose view changed and brings the message table up to date.
func (ob *Observed) snapshot(w world.View, action int) {
	k := len(ob.Snapshots)
	s := Snapshot{Action: action, Step: w.Steps()}
	for i := range ob.procs {
		v := ob.viewProcess(w, i, &ob.obs[i])
		if h := ob.views[i]; len(h) > 0 && sameView(&h[len(h)-1].view, &v) {
			continue
		}
		ob.views[i] = append(ob.views[i], viewAt{snap: k, view: v})
		s.Changed = append(s.Changed, i)
	}
	ob.Snapshots = append(ob.Snapshots, s)
	for len(ob.Incarnations) < w.Incarnations() {
		topic, number, id := w.Incarnation(int32(len(ob.Incarnations)))
		ob.Incarnations = append(ob.Incarnations, IncarnationView{Topic: topic, Number: number, ID: node.TopicID(id).String()})
	}
	or := w.Oracle()
	for len(ob.Messages) < or.NumMsgs() {
		uid := uint64(len(ob.Messages) + 1)
		ob.Messages = append(ob.Messages, ob.viewMessage(w, uid))
		ob.unsettled = append(ob.unsettled, uid)
	}
	// A record's payload is read when it is first fetchable after an action; one pending, or
	// committed but behind an open transaction, is looked at again after the next action.
	kept := ob.unsettled[:0]
	for _, uid := range ob.unsettled {
		mv, m := &ob.Messages[uid-1], or.Msg(uid)
		mv.State = m.State.String()
		if m.State == oracle.MsgCommitted {
			readPayload(w, mv, m)
		}
		if m.State == oracle.MsgPending || m.State == oracle.MsgCommitted && !mv.PayloadKnown && w.Fetchable(m.Ch, m.Pos) {
			kept = append(kept, uid)
		}
	}
	ob.unsettled = kept
}

// sameView reports whether two views of one process are equal.
func sameView(a, b *ProcessView) bool {
	return a.State == b.State && a.Refusal == b.Refusal && a.delivered == b.delivered &&
		slices.EqualFunc(a.Holds, b.Holds, func(x, y HoldView) bool {
			return x.Channel == y.Channel && x.Head == y.Head && x.HeadMsg == y.HeadMsg && x.Held == y.Held &&
				slices.Equal(x.Blockers, y.Blockers)
		})
}

// viewProcess renders process i of w, bringing its delivery list up to date.
func (ob *Observed) viewProcess(w world.View, i int, d *deliveryObserver) ProcessView {
	d.update(w.ProcessOracle(i))
	v := ProcessView{Name: ob.procs[i], delivered: d.head}
	v.State, v.Refusal = w.ProcessState(i)
	st, ok := w.EngineStatus(i)
	if !ok {
		return v
	}
	or := w.Oracle()
	for _, cs := range st.Channels {
		h := HoldView{Channel: channelLabel(w, cs.Channel), Head: int64(cs.Head), Held: cs.Held}
		if c := or.NodeChan(cs.Channel); c >= 0 {
			h.HeadMsg = or.RecordAt(c, int64(cs.Head))
		}
		for _, b := range cs.Blockers {
			h.Blockers = append(h.Blockers, BlockerView{Channel: channelLabel(w, b.Channel), Required: int64(b.Required),
				Settled: int64(b.Settled), SettledKnown: b.SettledKnown})
		}
		v.Holds = append(v.Holds, h)
	}
	return v
}

// update brings d's list to the delivery sequence of the process p is the oracle's view of:
// entries below the committed count seen at the last snapshot stay; the rest (the open step's
// then, and everything since) are read and the list is rebuilt from the first that differs.
func (d *deliveryObserver) update(p *oracle.Proc) {
	n, step := p.Deliveries()
	from := d.committed
	d.committed = n - int64(step)
	tail := p.DeliveriesSince(from)
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
func (ob *Observed) viewMessage(w world.View, uid uint64) MessageView {
	m := w.Oracle().Msg(uid)
	ch := w.Channel(m.Ch)
	v := MessageView{UID: uid, Channel: channelName(ch), Topic: ch.Topic, Incarnation: ch.Incarnation, Partition: ch.Partition,
		Position: m.Pos, Kind: m.Kind.String(), State: m.State.String()}
	if m.Sender >= 0 {
		v.Sender = ob.procs[m.Sender]
	}
	for _, c := range m.Expressed.Pairs() {
		v.Causes = append(v.Causes, CauseView{Channel: channelLabel(w, c.Channel), Position: int64(c.Position)})
	}
	return v
}

// channelLabel names node channel nc of w as channelName does; a channel the world never created
// by its topic ID.
func channelLabel(w world.View, nc node.Channel) string {
	if c := w.Oracle().NodeChan(nc); c >= 0 {
		return channelName(w.Channel(c))
	}
	return nc.String()
}

// channelName names a channel as a person reads it: topic/partition, adding #incarnation for any
// incarnation but the first.
func channelName(ch world.ChannelInfo) string {
	if ch.Incarnation > 0 {
		return fmt.Sprintf("%s#%d/%d", ch.Topic, ch.Incarnation, ch.Partition)
	}
	return fmt.Sprintf("%s/%d", ch.Topic, ch.Partition)
}

// readPayload reads a committed record's key, value and timestamp back from the substrate, if
// it is still there.
func readPayload(w world.View, mv *MessageView, m *oracle.Message) {
	r, ok := w.ReadBack(m.Ch, m.Pos)
	if !ok {
		return
	}
	mv.Key, mv.Value, mv.TimestampMicros, mv.PayloadKnown = r.Key, r.Value, r.TimestampMicros, true
}

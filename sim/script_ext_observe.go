package sim

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/substrate"
)

// Observed scripted runs: what a person reading a scenario file wants to see between actions and
// what its expectations assert — each process's state, committed deliveries and holds with their
// blockers (the engine's Status, SPEC §7.2), and every record with its parsley.causes header and
// payload. Run keeps the world to itself, so RunObserved drives the same world through the same
// per-action code (runScript, one action at a time) and snapshots it after each action.
//
// RunObserved must make exactly the run Run makes. The scenario-file runner runs both and refuses
// to report when their results differ, so a change to Run that this file does not follow shows
// up at once instead of as a silently different story.

// Observed is an observed scripted run: the result, one snapshot after the initial starts, one
// after each script action, one at the end, and every record the run produced.
type Observed struct {
	Result *Result
	// Snapshots[0] follows the initial starts (Action -1), Snapshots[i+1] follows script action i,
	// and the last one follows the liveness phase and the end-of-run checks (Action len(Script)).
	Snapshots []Snapshot
	// Messages[uid-1] describes record uid.
	Messages []MessageView
	// Incarnations[i] names the world's incarnation i (Event.Incarn): its topic and its number
	// among that topic's incarnations (0 for the first, 1 after the first recreation, ...).
	Incarnations []IncarnationView
}

// IncarnationView names one incarnation of a topic.
type IncarnationView struct {
	Topic  string
	Number int
	ID     string // the topic ID as node.TopicID renders it (refusal details name channels by it)
}

// Snapshot is the world between two actions.
type Snapshot struct {
	Action    int // index of the script action just performed (see Observed.Snapshots)
	Step      int // the scheduler step after it; events with Step <= this belong to it or earlier
	Processes []ProcessView
}

// ProcessView is one process between actions.
type ProcessView struct {
	Name    string
	State   string // "running", "down" or "refused"
	Refusal string // the refusal reason when State is "refused"
	// Delivered lists the uids of the process's committed first deliveries, in order.
	Delivered []uint64
	// Holds lists the engine's held channels in channel order (running processes only).
	Holds []HoldView
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

// RunObserved runs scn exactly as Run does, snapshotting the world after each scripted action.
func RunObserved(scn *Scenario, set Settings, ch Chooser, opts RunOptions) *Observed {
	if err := scn.Validate(); err != nil {
		panic("sim: " + err.Error())
	}
	w := newWorld(scn, &set, ch, &opts)
	w.hooks = opts.hooks
	ob := &Observed{}
	for _, p := range w.procs {
		w.step++
		w.action = ActStart
		p.start(true)
	}
	ob.snapshot(w, -1)
	if len(scn.Script) == 0 {
		w.safetyPhase()
	}
	for i := range scn.Script {
		w.runScript(scn.Script[i : i+1])
		ob.snapshot(w, i)
	}
	w.stats.SafetySteps = w.step
	if set.LivenessStepsMax > 0 {
		w.livenessPhase()
		w.checkLiveness()
	}
	w.checkCausalOrderLifetime()
	ob.Result = w.result()
	ob.snapshot(w, len(scn.Script))
	return ob
}

// snapshot records the processes and brings the message table up to date.
func (ob *Observed) snapshot(w *world, action int) {
	s := Snapshot{Action: action, Step: w.step, Processes: make([]ProcessView, len(w.procs))}
	for i, p := range w.procs {
		s.Processes[i] = w.viewProcess(p)
	}
	ob.Snapshots = append(ob.Snapshots, s)
	for len(ob.Incarnations) < len(w.incs) {
		inc := int32(len(ob.Incarnations))
		ob.Incarnations = append(ob.Incarnations, IncarnationView{Topic: w.topics[w.incs[inc].topic].spec.Name,
			Number: w.incarnationNumber(inc), ID: node.TopicID(w.incs[inc].id).String()})
	}
	for len(ob.Messages) < len(w.msgs) {
		ob.Messages = append(ob.Messages, w.viewMessage(uint64(len(ob.Messages)+1)))
	}
	for i := range ob.Messages {
		mv := &ob.Messages[i]
		m := w.msgs[i]
		mv.State = m.state.String()
		if !mv.PayloadKnown && m.state == msgCommitted {
			w.readPayload(mv, m)
		}
	}
}

// viewProcess renders process p.
func (w *world) viewProcess(p *proc) ProcessView {
	v := ProcessView{Name: p.spec.Name, Delivered: p.deliverySequence()}
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
			h.HeadMsg = w.recordAt(c, int64(cs.Head))
		}
		for _, b := range cs.Blockers {
			h.Blockers = append(h.Blockers, BlockerView{Channel: w.shortChan(b.Channel), Required: int64(b.Required),
				Settled: int64(b.Settled), SettledKnown: b.SettledKnown})
		}
		v.Holds = append(v.Holds, h)
	}
	return v
}

// viewMessage renders record uid (without its payload).
func (w *world) viewMessage(uid uint64) MessageView {
	m := w.msgs[uid-1]
	ch := &w.chans[m.ch]
	v := MessageView{UID: uid, Channel: w.shortChan(ch.nc), Topic: w.topics[ch.topic].spec.Name,
		Incarnation: w.incarnationNumber(ch.inc), Partition: ch.part, Position: m.pos, Kind: m.kind.String(), State: m.state.String()}
	if m.sender >= 0 {
		v.Sender = w.procs[m.sender].spec.Name
	}
	for _, c := range m.expressed.Pairs() {
		v.Causes = append(v.Causes, CauseView{Channel: w.shortChan(c.Channel), Position: int64(c.Position)})
	}
	return v
}

// readPayload reads a committed record's key, value and timestamp back from the substrate, if
// it is still there.
func (w *world) readPayload(mv *MessageView, m *message) {
	if !w.alive(m.ch) {
		return
	}
	recs, _, err := w.sub.Fetch(w.chans[m.ch].tp, substrate.Offset(m.pos), 1)
	if err != nil || len(recs) == 0 || int64(recs[0].Offset) != m.pos {
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

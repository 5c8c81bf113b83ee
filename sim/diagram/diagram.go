// Package diagram draws the space-time diagram of a run, in SVG or a self-contained HTML page,
// from its trace events.
//
// Sink is a trace.Sink: it keeps what the picture needs while the run goes (lanes,
// messages, receipts, holds, deliveries, lifecycle and world events) and WriteSVG / WriteHTML
// draw it afterwards. The horizontal axis is the step index, compressed: steps that emitted no
// drawable event take no room, and a step with several events on one lane is widened so they
// stand side by side in trace order. Virtual time (microseconds) is in every hover title and
// under the step ticks. There is one lane per process and one lane on top for the outside
// world: external producers and topic-level faults (truncation, retention, deletion,
// recreation, external transactions).
//
// Steps are rolled back as the host rolls them back: a process's feeds, deliveries and sends
// since its last commit are marked rolled back when it crashes, refuses, migrates, is fenced as
// a zombie or starts again, and a hold whose receipt was committed continues past a rolled-back
// delivery. Nothing iterates a map: the same events give the same bytes.
package diagram

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Sink collects a run's events for a space-time diagram. The zero value works (lanes are
// named p0, p1, ...); NewSink names them after the scenario's processes.
type Sink struct {
	// Title heads the picture (NewSink sets the scenario name).
	Title string
	// MaxColumns caps the drawn step columns (0: DefaultColumns). A longer run is drawn as
	// a window around its first violation (or its start), with a note saying so.
	MaxColumns int

	names  []string
	cols   []diagCol
	marks  []diagMark
	msgs   []diagMsg
	msgIdx map[uint64]int
	feeds  []diagFeed
	holds  []diagHold
	delivs []diagDeliv
	vios   []spec.Violation
	txns   []diagTxn
	lanes  []diagLane
	curSub []int // per lane: events placed in the current column
}

// DefaultColumns is the default cap on drawn step columns: enough for runs of a few
// hundred steps with room for busy steps, small enough that a browser still renders it briskly.
const DefaultColumns = 1200

// NewSink returns a sink whose lanes carry the process names of scn (nil: p0, p1, ...).
func NewSink(scn *spec.Scenario) *Sink {
	d := &Sink{}
	if scn != nil {
		d.Title = "scenario " + scn.Name
		for _, p := range scn.Processes {
			d.names = append(d.names, p.Name)
		}
		d.ensureLane(len(scn.Processes))
	}
	return d
}

// diagPos is a place on the horizontal axis: a column and a slot inside it.
type diagPos struct{ col, sub int }

// diagCol is one drawn step.
type diagCol struct {
	step       int
	timeMicros int64
	slots      int // widest lane's event count in this step
}

// diagMark is one glyph on a lane: a lifecycle event, a world event or a commit.
type diagMark struct {
	lane   int // 0: world; process i: i+1
	at     diagPos
	kind   string
	title  string
	reason string // a refusal's reason (its first word), shown beside the sign
}

// diagMsg is one record that appeared in the trace.
type diagMsg struct {
	uid        uint64
	channel    string // topic#incarnation/partition:position
	kind       string // plain, stamped, corrupt, emission, forged; "" when never seen produced
	from       int    // sending lane (0: world)
	at         diagPos
	known      bool // the produce or send was traced (else at is a guess)
	aborted    bool // sent in a rolled-back step
	timeMicros int64
}

// diagFeed is one receipt: an arrow from the message's send to its receiver.
type diagFeed struct {
	msg        int // index into msgs
	lane       int
	at         diagPos
	timeMicros int64
	duplicate  bool
	rolledBack bool
	// again: the message was fed to this lane before (a re-feed after a rollback, restart or
	// rewind, or a duplicate); drawn as a short stub, not a second arrow across the picture.
	again bool
}

// diagHold is one held interval on a lane, from receipt (or a resumption) to its end.
type diagHold struct {
	msg      int
	lane     int
	from, to diagPos
	open     bool   // not ended yet: drawn to the end of the run
	end      string // "delivered", "rolled back"; "" while open
	feed     int    // index into feeds (-1 for a resumption after a rolled-back delivery)
	resumed  bool
	track    int
	fromTime int64
	toTime   int64
}

// diagDeliv is one delivery dot.
type diagDeliv struct {
	msg        int
	lane       int
	at         diagPos
	timeMicros int64
	rolledBack bool
	hold       int // the hold it ended, -1 for none
}

// diagTxn is an external transaction's span of positions on one channel, to place records that
// were produced inside it (their produce is not traced one by one).
type diagTxn struct {
	channel  string // topic#incarnation/partition
	from, to int64  // positions [from, to)
	at       diagPos
}

// diagLane is one lane's running state while collecting, and its lifecycle for drawing.
type diagLane struct {
	pending []diagItem // this lane's feeds, holds opened and deliveries since its last commit
	status  []diagStatus
	open    map[int]int  // msg index → open hold index
	fed     map[int]bool // msg indexes ever fed to this lane
}

// diagItem is one uncommitted thing a rollback undoes.
type diagItem struct {
	kind byte // 'f' feed, 'd' delivery, 's' send
	idx  int
}

// diagStatus is a lane's lifecycle from a position on: "up", "down", "failed".
type diagStatus struct {
	at    diagPos
	state string
}

// ensureLane makes lanes 0..n (world plus n processes) exist.
func (d *Sink) ensureLane(n int) {
	for len(d.lanes) <= n {
		d.lanes = append(d.lanes, diagLane{open: map[int]int{}, fed: map[int]bool{}})
		d.curSub = append(d.curSub, 0)
	}
}

// place returns the next position on lane at step ev.Step, opening a new column on a new step.
func (d *Sink) place(lane int, ev *trace.Event) diagPos {
	d.ensureLane(lane)
	n := len(d.cols)
	if n == 0 || d.cols[n-1].step != ev.Step {
		d.cols = append(d.cols, diagCol{step: ev.Step, timeMicros: ev.TimeMicros})
		n++
		clear(d.curSub)
	}
	sub := d.curSub[lane]
	d.curSub[lane]++
	if d.curSub[lane] > d.cols[n-1].slots {
		d.cols[n-1].slots = d.curSub[lane]
	}
	return diagPos{col: n - 1, sub: sub}
}

// laneOf maps an event's process to its lane (world is 0).
func laneOf(ev *trace.Event) int { return ev.Process + 1 }

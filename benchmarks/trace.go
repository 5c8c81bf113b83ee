package benchmarks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/trace"
)

// latencySink is a trace.Sink that rebuilds, from a run's trace alone, every committed
// delivery's hold latency (receipt → delivery) and end-to-end latency (produce → delivery) in
// virtual microseconds, and the deepest hold-back buffer any process reached. spec.Stats only
// keeps summaries; the raw samples give the quantiles and the plotted distributions.
//
// It follows the oracle's staging: what a process does is provisional until its "committed"
// event, and a "crashed", "refused", "migrated", "zombie-fenced" or "started" event rolls back
// what was not committed. Summary checks in Measure compare the rebuilt samples with spec.Stats,
// so a change in the simulator's semantics that this sink does not follow fails loudly.
type latencySink struct {
	producedMicros map[uint64]int64 // message uid → virtual time of its produce
	lastUID        uint64           // highest uid seen: uids are allocated 1, 2, 3, ...
	procs          []procTrace
	hold, endToEnd []int64 // committed samples, in commit order
	depthMax       int
	err            error // first inconsistency met (an event the sink cannot place)
}

// procTrace is one process's view: its pending receipts (uid → receipt time), the uids it has
// delivered, its hold-back depth, and the undo log and samples of its uncommitted step.
type procTrace struct {
	pending        map[uint64]int64
	delivered      map[uint64]bool
	depth          int
	committedDepth int
	undo           []traceUndo
	stepHold       []int64
	stepEndToEnd   []int64
}

// traceUndo reverses one provisional change: a pending receipt added (fedMicros < 0) or removed,
// or a delivery recorded.
type traceUndo struct {
	uid       uint64
	fedMicros int64
	kind      byte // 'a' pending added, 'r' pending removed, 'd' delivered
}

func newLatencySink() *latencySink {
	return &latencySink{producedMicros: map[uint64]int64{}}
}

// Record folds one event into the sink.
func (s *latencySink) Record(ev *trace.Event) {
	switch ev.Kind {
	case "produced", "sent":
		s.produced(ev.Msg, ev.TimeMicros)
	case "txn-opened":
		s.txnOpened(ev)
	case "held", "duplicate":
		s.fed(s.proc(ev.Process), ev.Msg, ev.TimeMicros, ev.Kind == "held")
	case "delivered":
		s.deliver(s.proc(ev.Process), ev.Msg, ev.TimeMicros)
	case "committed":
		s.commit(s.proc(ev.Process))
	case "crashed", "refused", "migrated", "zombie-fenced", "started":
		s.rollback(s.proc(ev.Process))
	}
}

// produced notes a record's produce time.
func (s *latencySink) produced(uid uint64, timeMicros int64) {
	s.producedMicros[uid] = timeMicros
	s.lastUID = max(s.lastUID, uid)
}

// txnOpened notes the produce time of the records an external transaction left open: the event
// names how many ("3 records"), and they took the next uids.
func (s *latencySink) txnOpened(ev *trace.Event) {
	n, err := strconv.Atoi(strings.TrimSuffix(ev.Detail, " records"))
	if err != nil {
		s.fail(fmt.Errorf("step %d: txn-opened detail %q names no record count", ev.Step, ev.Detail))
		return
	}
	for range n {
		s.produced(s.lastUID+1, ev.TimeMicros)
	}
}

// proc returns process i's view, growing the table on first sight.
func (s *latencySink) proc(i int) *procTrace {
	for len(s.procs) <= i {
		s.procs = append(s.procs, procTrace{pending: map[uint64]int64{}, delivered: map[uint64]bool{}})
	}
	if i < 0 {
		s.fail(fmt.Errorf("process event without a process"))
		return &procTrace{pending: map[uint64]int64{}, delivered: map[uint64]bool{}}
	}
	return &s.procs[i]
}

// fed records a receipt: the record becomes pending unless it was delivered or is pending
// already (the first receipt's time counts); a held record deepens the hold-back buffer.
func (s *latencySink) fed(p *procTrace, uid uint64, timeMicros int64, held bool) {
	if held {
		p.depth++
		s.depthMax = max(s.depthMax, p.depth)
	}
	if _, pending := p.pending[uid]; pending || p.delivered[uid] {
		return
	}
	p.pending[uid] = timeMicros
	p.undo = append(p.undo, traceUndo{uid: uid, kind: 'a'})
}

// deliver stages a delivery's samples.
func (s *latencySink) deliver(p *procTrace, uid uint64, timeMicros int64) {
	p.depth--
	produced, ok := s.producedMicros[uid]
	if !ok {
		s.fail(fmt.Errorf("delivery of message %d, whose produce the trace never showed", uid))
	}
	p.stepEndToEnd = append(p.stepEndToEnd, timeMicros-produced)
	if fed, ok := p.pending[uid]; ok {
		p.stepHold = append(p.stepHold, timeMicros-fed)
		delete(p.pending, uid)
		p.undo = append(p.undo, traceUndo{uid: uid, fedMicros: fed, kind: 'r'})
	}
	p.delivered[uid] = true
	p.undo = append(p.undo, traceUndo{uid: uid, kind: 'd'})
}

// commit makes the process's step real.
func (s *latencySink) commit(p *procTrace) {
	s.hold = append(s.hold, p.stepHold...)
	s.endToEnd = append(s.endToEnd, p.stepEndToEnd...)
	p.committedDepth = p.depth
	p.clearStep()
}

// rollback forgets the process's uncommitted step.
func (s *latencySink) rollback(p *procTrace) {
	for i := len(p.undo) - 1; i >= 0; i-- {
		u := p.undo[i]
		switch u.kind {
		case 'a':
			delete(p.pending, u.uid)
		case 'r':
			p.pending[u.uid] = u.fedMicros
		case 'd':
			delete(p.delivered, u.uid)
		}
	}
	p.depth = p.committedDepth
	p.clearStep()
}

func (p *procTrace) clearStep() {
	p.undo, p.stepHold, p.stepEndToEnd = p.undo[:0], p.stepHold[:0], p.stepEndToEnd[:0]
}

func (s *latencySink) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

package diagram

import (
	"fmt"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Record takes one trace event into the diagram.
func (d *Sink) Record(ev *trace.Event) {
	if d.msgIdx == nil {
		d.msgIdx = map[uint64]int{}
	}
	lane := laneOf(ev)
	d.ensureLane(max(lane, 0))
	switch ev.Kind {
	case "produced":
		d.addMsg(ev, 0, ev.Detail)
	case "sent":
		m := d.addMsg(ev, lane, "emission")
		d.lanes[lane].pending = append(d.lanes[lane].pending, diagItem{'s', m})
	case "held", "duplicate":
		d.recordFeed(ev, lane)
	case "delivered":
		d.recordDelivery(ev, lane)
	case "committed":
		d.lanes[lane].pending = d.lanes[lane].pending[:0]
		d.addMark(lane, ev, "committed", "committed its step")
	case "crashed", "refused", "migrated", "zombie-fenced", "started", "stopped":
		d.recordLifecycle(ev, lane)
	case "rewound":
		d.addMark(lane, ev, ev.Kind, fmt.Sprintf("operator rewound the committed position on %s to %d", chanOf(ev), ev.Position))
	case "redeclared":
		d.addMark(lane, ev, ev.Kind, "redeclared: "+ev.Detail)
	case "violation":
		crit, detail, _ := strings.Cut(ev.Detail, ": ")
		d.vios = append(d.vios, spec.Violation{Criterion: spec.Criterion(crit), Step: ev.Step, Process: ev.Process, Detail: detail})
	case "txn-opened":
		d.recordTxn(ev)
	default:
		if lane == 0 {
			d.addMark(0, ev, ev.Kind, worldTitle(ev))
		}
	}
}

// addMsg registers a message produced (lane 0) or sent (a process lane) by ev and returns its
// index.
func (d *Sink) addMsg(ev *trace.Event, lane int, kind string) int {
	m := diagMsg{uid: ev.Msg, channel: posOf(ev), kind: kind, from: lane, at: d.place(lane, ev),
		known: true, timeMicros: ev.TimeMicros}
	d.msgs = append(d.msgs, m)
	d.msgIdx[ev.Msg] = len(d.msgs) - 1
	return len(d.msgs) - 1
}

// msgOf returns the index of ev's message, registering one whose produce was not traced (a
// record of an external transaction is placed at the transaction; anything else at the world
// lane just before its receipt).
func (d *Sink) msgOf(ev *trace.Event) int {
	if i, ok := d.msgIdx[ev.Msg]; ok {
		return i
	}
	m := diagMsg{uid: ev.Msg, channel: posOf(ev), kind: "", from: 0, timeMicros: -1}
	ch := chanOf(ev)
	for i := len(d.txns) - 1; i >= 0; i-- {
		t := &d.txns[i]
		if t.channel == ch && ev.Position >= t.from && ev.Position < t.to {
			m.at, m.known, m.kind = t.at, true, "transactional"
			break
		}
	}
	if !m.known {
		m.at = diagPos{col: -1} // set to the receipt's column by the caller
	}
	d.msgs = append(d.msgs, m)
	d.msgIdx[ev.Msg] = len(d.msgs) - 1
	return len(d.msgs) - 1
}

// recordFeed draws a receipt and, unless it is a duplicate or the message is held already,
// opens a hold.
func (d *Sink) recordFeed(ev *trace.Event, lane int) {
	m := d.msgOf(ev)
	f := diagFeed{msg: m, lane: lane, at: d.place(lane, ev), timeMicros: ev.TimeMicros, duplicate: ev.Kind == "duplicate"}
	if d.msgs[m].at.col < 0 {
		d.msgs[m].at = diagPos{col: f.at.col}
	}
	l := &d.lanes[lane]
	f.again = l.fed[m]
	l.fed[m] = true
	d.feeds = append(d.feeds, f)
	fi := len(d.feeds) - 1
	l.pending = append(l.pending, diagItem{'f', fi})
	if _, held := l.open[m]; f.duplicate || held {
		return
	}
	d.holds = append(d.holds, diagHold{msg: m, lane: lane, from: f.at, open: true, feed: fi, fromTime: ev.TimeMicros})
	l.open[m] = len(d.holds) - 1
}

// recordDelivery draws a delivery and ends the message's hold on that lane.
func (d *Sink) recordDelivery(ev *trace.Event, lane int) {
	m := d.msgOf(ev)
	at := d.place(lane, ev)
	l := &d.lanes[lane]
	dl := diagDeliv{msg: m, lane: lane, at: at, timeMicros: ev.TimeMicros, hold: -1}
	if d.msgs[m].at.col < 0 {
		d.msgs[m].at = diagPos{col: at.col}
	}
	if h, ok := l.open[m]; ok {
		d.endHold(h, at, ev.TimeMicros, "delivered")
		delete(l.open, m)
		dl.hold = h
	}
	d.delivs = append(d.delivs, dl)
	l.pending = append(l.pending, diagItem{'d', len(d.delivs) - 1})
}

// endHold closes hold h at position at.
func (d *Sink) endHold(h int, at diagPos, timeMicros int64, end string) {
	d.holds[h].open, d.holds[h].to, d.holds[h].toTime, d.holds[h].end = false, at, timeMicros, end
}

// recordLifecycle rolls back what the lane had not committed (a stop commits first, so it finds
// nothing), marks the event and notes the lane's new state.
func (d *Sink) recordLifecycle(ev *trace.Event, lane int) {
	at := d.addMark(lane, ev, ev.Kind, lifecycleTitle(ev))
	if ev.Kind == "refused" {
		d.marks[len(d.marks)-1].reason, _, _ = strings.Cut(ev.Detail, " ")
	}
	d.rollback(lane, at, ev.TimeMicros)
	state := ""
	switch ev.Kind {
	case "crashed", "stopped":
		state = "down"
	case "refused":
		state = "failed"
	case "started":
		state = "up"
	}
	if state != "" {
		d.lanes[lane].status = append(d.lanes[lane].status, diagStatus{at: at, state: state})
	}
}

// rollback undoes lane's uncommitted feeds, deliveries and sends at position at: a hold its
// feed opened ends there, a hold a rolled-back delivery had ended resumes there (its receipt was
// committed), and a rolled-back send is an aborted record.
func (d *Sink) rollback(lane int, at diagPos, timeMicros int64) {
	l := &d.lanes[lane]
	for _, it := range l.pending {
		switch it.kind {
		case 'f':
			f := &d.feeds[it.idx]
			f.rolledBack = true
			if h, ok := l.open[f.msg]; ok && d.holds[h].feed == it.idx {
				d.endHold(h, at, timeMicros, "rolled back")
				delete(l.open, f.msg)
			}
		case 'd':
			dl := &d.delivs[it.idx]
			dl.rolledBack = true
			if dl.hold < 0 {
				continue
			}
			if fi := d.holds[dl.hold].feed; fi >= 0 && d.feeds[fi].rolledBack {
				continue
			}
			if _, ok := l.open[dl.msg]; !ok {
				d.holds = append(d.holds, diagHold{msg: dl.msg, lane: lane, from: at, open: true, feed: d.holds[dl.hold].feed,
					resumed: true, fromTime: timeMicros})
				l.open[dl.msg] = len(d.holds) - 1
			}
		case 's':
			d.msgs[it.idx].aborted = true
		}
	}
	l.pending = l.pending[:0]
}

// recordTxn remembers an open external transaction's positions and marks it on the world lane.
func (d *Sink) recordTxn(ev *trace.Event) {
	at := d.addMark(0, ev, ev.Kind, worldTitle(ev))
	var n int64
	fmt.Sscanf(ev.Detail, "%d records", &n)
	d.txns = append(d.txns, diagTxn{channel: chanOf(ev), from: ev.Position, to: ev.Position + n, at: at})
}

// addMark places a glyph on lane and returns its position.
func (d *Sink) addMark(lane int, ev *trace.Event, kind, title string) diagPos {
	at := d.place(lane, ev)
	d.marks = append(d.marks, diagMark{lane: lane, at: at, kind: kind,
		title: fmt.Sprintf("step %d, t=%dus: %s", ev.Step, ev.TimeMicros, title)})
	return at
}

// chanOf renders ev's channel as topic#incarnation/partition ("" when it names none).
func chanOf(ev *trace.Event) string {
	if ev.Topic == "" {
		return ""
	}
	return fmt.Sprintf("%s#%d/%d", ev.Topic, ev.Incarn, ev.Partition)
}

// posOf renders ev's record coordinate as topic#incarnation/partition:position.
func posOf(ev *trace.Event) string {
	return fmt.Sprintf("%s:%d", chanOf(ev), ev.Position)
}

// lifecycleTitle says what a lifecycle event did.
func lifecycleTitle(ev *trace.Event) string {
	switch ev.Kind {
	case "crashed":
		return "crashed: the uncommitted step is rolled back"
	case "refused":
		return "REFUSED (failed closed, stays down): " + ev.Detail
	case "migrated":
		return "migrated to another instance (uncommitted step dropped)"
	case "zombie-fenced":
		return "a superseded execution tried to commit and was fenced: " + ev.Detail
	case "started":
		return "started: " + ev.Detail
	case "stopped":
		return "stopped cleanly"
	}
	return ev.Kind
}

// worldTitle says what a world-lane event did.
func worldTitle(ev *trace.Event) string {
	var b strings.Builder
	b.WriteString(ev.Kind)
	if c := chanOf(ev); c != "" {
		fmt.Fprintf(&b, " %s at %d", c, ev.Position)
	}
	if ev.Detail != "" {
		b.WriteString(": " + ev.Detail)
	}
	return b.String()
}

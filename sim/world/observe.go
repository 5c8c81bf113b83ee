package world

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/substrate"
)

// What an observer of a run (an Observer: package sim's snapshots of a scripted run) reads of a
// world between actions. Each of these only reads; processes are named by scenario index,
// channels by world index (oracle.Message.Ch), incarnations by creation order (trace.Event's
// Incarn).

// Steps is the number of scheduler steps taken so far (the step of the last event).
func (w *World) Steps() int { return w.step }

// Oracle is the world's oracle, for reading its model: the message table and the records at
// each channel's positions.
func (w *World) Oracle() *oracle.Oracle { return &w.or }

// ProcessState is process i's state as a person reads it: "running", "down" or "refused", with
// the refusal's reason.
func (w *World) ProcessState(i int) (state, refusal string) {
	switch p := w.procs[i]; p.status {
	case procRunning:
		return "running", ""
	case procFailed:
		return "refused", p.refusalWhy
	default:
		return "down", ""
	}
}

// EngineStatus is the status of process i's engine (SPEC §7.2: its held channels and their
// blockers); false when the process is not running.
func (w *World) EngineStatus(i int) (node.Status, bool) {
	p := w.procs[i]
	if p.status != procRunning || p.eng == nil {
		return node.Status{}, false
	}
	return p.eng.Status(), true
}

// ProcessOracle is the oracle's view of process i: its deliveries, committed and in the open step.
func (w *World) ProcessOracle(i int) *oracle.Proc { return &w.procs[i].o }

// Incarnations is the number of topic incarnations the world has created.
func (w *World) Incarnations() int { return len(w.incs) }

// Incarnation is incarnation inc's topic, its number among that topic's incarnations (0 for the
// first, 1 after the first recreation, ...) and its topic ID.
func (w *World) Incarnation(inc int32) (topic string, number int, id substrate.TopicID) {
	in := &w.incs[inc]
	return w.topics[in.topic].spec.Name, w.incarnationNumber(inc), in.id
}

// ChannelInfo is one channel of the world as a person reads it.
type ChannelInfo struct {
	Label       string // as ChannelLabel renders it
	Topic       string
	Incarnation int // among the topic's incarnations, as Incarnation numbers them
	Partition   int32
}

// Channel describes channel c.
func (w *World) Channel(c int32) ChannelInfo {
	ch := &w.chans[c]
	return ChannelInfo{Label: w.ChannelLabel(ch.nc), Topic: w.topics[ch.topic].spec.Name,
		Incarnation: w.incarnationNumber(ch.inc), Partition: ch.part}
}

// ChannelLabel names a node channel as topic/partition, adding #incarnation for any incarnation
// but the first; a channel the world never created is rendered by its topic ID.
func (w *World) ChannelLabel(nc node.Channel) string {
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

// ReadBack reads the record at position pos of channel c back from the substrate; false when
// the channel's incarnation is dead or the record is not (or no longer) there.
func (w *World) ReadBack(c int32, pos int64) (substrate.Record, bool) {
	if !w.alive(c) {
		return substrate.Record{}, false
	}
	recs, _, err := w.sub.Fetch(w.chans[c].tp, substrate.Offset(pos), 1)
	if err != nil || len(recs) == 0 || int64(recs[0].Offset) != pos {
		return substrate.Record{}, false
	}
	return recs[0].Record, true
}

// Fetchable reports whether a record at position pos of channel c may still be read back: its
// incarnation is alive and pos is not below the partition's log start (both only ever move one
// way).
func (w *World) Fetchable(c int32, pos int64) bool {
	return w.alive(c) && pos >= int64(w.offsets(c).LogStart)
}

// firstIncarnation returns the world index of topic t's first incarnation.
func (w *World) firstIncarnation(t int) int32 {
	for i := range w.incs {
		if w.incs[i].topic == t {
			return int32(i)
		}
	}
	return -1
}

// incarnationNumber counts topic t's incarnations before inc: 0 for the first, 1 for the first
// recreation, and so on (per topic, unlike the world's global incarnation index).
func (w *World) incarnationNumber(inc int32) int {
	t := w.incs[inc].topic
	n := 0
	for i := int32(0); i < inc; i++ {
		if w.incs[i].topic == t {
			n++
		}
	}
	return n
}

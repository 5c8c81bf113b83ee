package world

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/substrate"
)

// View is what an observer (package sim's snapshots of a run) reads of a world between actions:
// queries only, so that it cannot step or restart the world. Processes are named by scenario
// index, channels by world index (oracle.Message.Ch), incarnations by creation order.
type View struct{ w *World }

// Steps is the number of scheduler steps taken so far (the step of the last event).
func (v View) Steps() int { return v.w.step }

// Oracle is the world's oracle, for reading its model: the message table and the records at
// each channel's positions.
func (v View) Oracle() *oracle.Oracle { return &v.w.or }

// ProcessState is process i's state as a person reads it: "running", "down" or "refused", with
// the refusal's reason.
func (v View) ProcessState(i int) (state, refusal string) {
	switch p := v.w.procs[i]; p.status {
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
func (v View) EngineStatus(i int) (node.Status, bool) {
	p := v.w.procs[i]
	if p.status != procRunning || p.eng == nil {
		return node.Status{}, false
	}
	return p.eng.Status(), true
}

// ProcessOracle is the oracle's view of process i: its deliveries, committed and in the open step.
func (v View) ProcessOracle(i int) *oracle.Proc { return &v.w.procs[i].o }

// Incarnations is the number of topic incarnations the world has created.
func (v View) Incarnations() int { return len(v.w.incs) }

// Incarnation is incarnation inc's topic, its number among that topic's incarnations (0 for the
// first, 1 after the first recreation, ...) and its topic ID.
func (v View) Incarnation(inc int32) (topic string, number int, id substrate.TopicID) {
	in := &v.w.incs[inc]
	return v.w.topics[in.topic].spec.Name, v.w.incarnationNumber(inc), in.id
}

// ChannelInfo is what an observer names one channel of the world by.
type ChannelInfo struct {
	Topic       string
	Incarnation int // among the topic's incarnations, as Incarnation numbers them
	Partition   int32
}

// Channel describes channel c.
func (v View) Channel(c int32) ChannelInfo {
	ch := &v.w.chans[c]
	return ChannelInfo{Topic: v.w.topics[ch.topic].spec.Name, Incarnation: v.w.incarnationNumber(ch.inc), Partition: ch.part}
}

// ReadBack reads the record at position pos of channel c back from the substrate; false when
// the channel's incarnation is dead or the record is not (or no longer) there.
func (v View) ReadBack(c int32, pos int64) (substrate.Record, bool) {
	if !v.w.alive(c) {
		return substrate.Record{}, false
	}
	recs, _, err := v.w.sub.Fetch(v.w.chans[c].tp, substrate.Offset(pos), 1)
	if err != nil || len(recs) == 0 || int64(recs[0].Offset) != pos {
		return substrate.Record{}, false
	}
	return recs[0].Record, true
}

// Fetchable reports whether a record at position pos of channel c may still be read back: its
// incarnation is alive and pos is not below the partition's log start (both only ever move one
// way).
func (v View) Fetchable(c int32, pos int64) bool {
	return v.w.alive(c) && pos >= int64(v.w.offsets(c).LogStart)
}

// incarnationNumber counts the incarnations of inc's topic created before inc: 0 for the first,
// 1 for the first recreation, and so on (per topic, unlike the world's global incarnation index).
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

package world

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/targets"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// shapeView is the world as the scheduling rules read it (shape.World): a type of its own, so
// that its answers are no part of World's exported API; each method answers as shape.World
// documents it. (*shapeView)(w) costs nothing.
type shapeView World

var _ shape.World = (*shapeView)(nil)

// shapeRun is the run as the rules read it at the step being chosen (shape.Run).
func (w *World) shapeRun() *shape.Run {
	return &shape.Run{Step: w.step, Procs: len(w.procs), Settings: w.set, Stats: &w.stats, Explored: w.opts.explored, World: (*shapeView)(w)}
}

func (v *shapeView) FaultHasTarget(k spec.ActionKind) bool { return (*World)(v).faultHasTarget(k) }
func (v *shapeView) AimableReceivers() int                 { return (*World)(v).aimableReceivers() }
func (v *shapeView) AnyRemovableHolds() bool               { return (*World)(v).anyRemovableHolds() }
func (v *shapeView) DeletionOnlyHeld() bool                { return (*World)(v).deletionOnlyHeld() }
func (v *shapeView) AgedDeletionTarget(since int) bool {
	return (*World)(v).agedDeletionTarget(since)
}

func (v *shapeView) Topic(t int) *spec.TopicSpec            { return v.topics[t].spec }
func (v *shapeView) TopicLive(t int) bool                   { return v.topics[t].inc >= 0 }
func (v *shapeView) Declarers(t int) []int32                { return v.declarers.Of(t) }
func (v *shapeView) Readers(c int32) []int32                { return v.readers.Of(int(c)) }
func (v *shapeView) ChannelTopic(c int32) int               { return v.chans[c].topic }
func (v *shapeView) SparesDoomed(t int) bool                { return (*World)(v).sparesDoomed(t, (*proc).doomed) }
func (v *shapeView) TopicDisturbed(t int) bool              { return (*World)(v).topicDisturbed(t) }
func (v *shapeView) UnreadCorrupt(t int) bool               { return (*World)(v).unreadCorrupt(t) }
func (v *shapeView) TopicBlocked(t int) bool                { return (*World)(v).topicBlocked(t) }
func (v *shapeView) RemovedWithHolds() bool                 { return (*World)(v).removedWithHolds() }
func (v *shapeView) Status(p int) shape.Status              { return shape.Status(v.procs[p].status) }
func (v *shapeView) Doomed(p int) bool                      { return v.procs[p].doomed() }
func (v *shapeView) Declares(p, t int) bool                 { return v.procs[p].declares(t) }
func (v *shapeView) DeclaredTopics(p int) []int             { return v.procs[p].declared }
func (v *shapeView) ReceivesNow(p int, c int32) bool        { return v.procs[p].receivesNow(c) }
func (v *shapeView) ReceivesTopic(p, t int) bool            { return v.procs[p].receivesTopic(t) }
func (v *shapeView) UnfedAt(p int, c int32, pos int64) bool { return v.procs[p].unfedAt(c, pos) }
func (v *shapeView) BlockedOnTopic(p, t int) bool           { return v.procs[p].blockedOnTopic(t) }
func (v *shapeView) HeldBackOnTopic(p, t int) bool          { return v.procs[p].heldBackOnTopic(t) }
func (v *shapeView) HoldsOnTopic(p, t int) bool             { return v.procs[p].holdsOnTopic(t) }
func (v *shapeView) RemovableHolds(p int) bool              { return v.procs[p].removableHolds() }
func (v *shapeView) HeldOnDead(p int) bool                  { return v.procs[p].heldOnDead() }
func (v *shapeView) ReadsDeletionOnly(p int) bool           { return v.procs[p].readsDeletionOnly() }
func (v *shapeView) LSO(c int32) int64                      { return v.chans[c].lso }
func (v *shapeView) Alive(c int32) bool                     { return (*World)(v).alive(c) }
func (v *shapeView) RecordAt(c int32, pos int64) uint64     { return v.or.RecordAt(c, pos) }
func (v *shapeView) FedHigh(p int, c int32) int64           { return v.procs[p].o.FedHigh(c) }
func (v *shapeView) Received(p int) int                     { return len(v.procs[p].recv) }
func (v *shapeView) ReceivedChannel(p, i int) int32         { return v.procs[p].recv[i].ch }

func (v *shapeView) CommittedPosition(p int, c int32) int64 {
	return v.procs[p].pcs.At(c).committedPos
}

func (v *shapeView) PendingHead(p int, c int32) (int64, bool) {
	if head := v.procs[p].o.PendingHead(c); head != nil {
		return head.Pos, true
	}
	return 0, false
}

func (v *shapeView) Bounds(c int32) (logStart, lastStable, highWatermark int64) {
	offs := (*World)(v).offsets(c)
	return int64(offs.LogStart), int64(offs.LastStable), int64(offs.HighWatermark)
}

func (v *shapeView) HighWatermark(c int32) int64 {
	return int64((*World)(v).offsets(c).HighWatermark)
}

func (v *shapeView) Declared() *targets.Declarers { return (*World)(v).memo().Declarers() }

func (v *shapeView) Message(uid uint64) (int32, int64, bool) {
	if uid == 0 {
		return 0, 0, false
	}
	m := v.or.Msg(uid)
	return m.Ch, m.Pos, true
}

func (v *shapeView) ReadPosition(p int, c int32) int64 {
	q := v.procs[p]
	return q.readPosition(q.pcs.At(c))
}

func (v *shapeView) BlockedHead(p int, c int32) bool {
	q := v.procs[p]
	return q.blockedHead(q.pcs.At(c))
}

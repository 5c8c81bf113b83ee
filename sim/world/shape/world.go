package shape

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
)

// Run is what the rules read of a run at the step being chosen: where it stands, its settings
// and counts, and the facts of its world. The world fills one for each question; a rule changes
// nothing in it but the answers it keeps of what it asked the world.
type Run struct {
	// Step is the number of world steps taken so far; the action being chosen runs at Step+1.
	Step int
	// Procs is the number of processes: the safety phase starts at that step, after every
	// process has started.
	Procs int
	// Settings are the run's swarm settings.
	Settings *swarm.Settings
	// Stats are the run's counts so far.
	Stats *spec.Stats
	// Explored says an exploration runs the world: its chooser enumerates every candidate whatever
	// its weight (it tells a zero weight only from a non-zero one), so the target rules, which
	// never turn a weight to or from zero, skip their bias and weigh every candidate 1.
	Explored bool
	// World answers what the rules ask of the world's state.
	World World

	// aimable is World.AimableReceivers plus one once a rule asked it (0: not yet): the world
	// does not change while one question is asked, and several rules of one choice ask it.
	aimable int
}

// aimableReceivers is World.AimableReceivers, asked of the world once per Run.
func (r *Run) aimableReceivers() int {
	if r.aimable == 0 {
		r.aimable = r.World.AimableReceivers() + 1
	}
	return r.aimable - 1
}

// Status is a process's lifecycle state as the rules read it: 0 for a process that is down
// (never started, stopped or crashed), Running or Failed.
type Status uint8

const (
	// Running: an execution is live.
	Running Status = 1 + iota
	// Failed: failed closed, never to start again.
	Failed
)

// World is what the rules read of a run's world: facts about its state, never which sabotage
// mode is on, and nothing a rule could change the world with. The world answers from its own
// tables (package world implements it); a rule decides from the answers what to prefer, how much
// and when.
type World interface {
	// FaultHasTarget reports whether fail-closed kind k has an interesting target now: a receiver
	// it would stop that no earlier fault already stops.
	FaultHasTarget(k spec.ActionKind) bool
	// AimableReceivers counts the processes that have not failed closed, are not doomed by an
	// earlier fault, read no deletion-only topic, and receive a channel of a live external topic.
	AimableReceivers() int
	// AnyRemovableHolds reports whether a down process that is not doomed holds messages on a
	// channel a redeclaration can remove, while no redeclaration has removed a channel with
	// holds yet.
	AnyRemovableHolds() bool
	// DeletionOnlyHeld reports whether a live deletion-only topic has a blocked head a rollback
	// keeps, at a receiver that is neither failed nor doomed.
	DeletionOnlyHeld() bool
	// AgedDeletionTarget reports whether a deletion has a target whose blocked head was fed at
	// world step since or earlier.
	AgedDeletionTarget(since int) bool

	// Topic is topic t's scenario declaration.
	Topic(t int) *spec.TopicSpec
	// TopicLive reports whether topic t has a live incarnation.
	TopicLive(t int) bool
	// Declarers are the processes declaring topic t, in process order (read-only).
	Declarers(t int) []int32
	// Declared is the memo's count, per topic, of the declarers that have not failed closed and of
	// those with a blocked head there (targets.Declarers), brought up to date.
	Declared() *targets.Declarers
	// Readers are the processes that ever received channel c, in process order (read-only).
	Readers(c int32) []int32
	// ChannelTopic is the topic channel c is a partition of.
	ChannelTopic(c int32) int
	// HighWatermark is live channel c's high watermark.
	HighWatermark(c int32) int64
	// Bounds are live channel c's log start, last stable offset and high watermark, as the
	// substrate has them now.
	Bounds(c int32) (logStart, lastStable, highWatermark int64)
	// LSO is channel c's last stable offset as the host last read it: a feed fetches below it.
	LSO(c int32) int64
	// Alive reports whether channel c belongs to a live incarnation of its topic.
	Alive(c int32) bool
	// RecordAt is the committed record at position pos of channel c, or 0 for none.
	RecordAt(c int32, pos int64) uint64
	// Message is the channel and position of the record with uid, or false for uid 0.
	Message(uid uint64) (c int32, pos int64, ok bool)
	// SparesDoomed reports whether no doomed process receives a channel of topic t.
	SparesDoomed(t int) bool
	// TopicDisturbed reports whether topic t was deleted, recreated or truncated.
	TopicDisturbed(t int) bool
	// UnreadCorrupt reports whether a channel of topic t's current incarnation has an
	// undecodable record a receiver that has not failed closed is still to read.
	UnreadCorrupt(t int) bool
	// TopicBlocked reports whether a process neither failed nor doomed holds a blocked head a
	// rollback keeps on topic t.
	TopicBlocked(t int) bool
	// RemovedWithHolds reports whether a redeclaration has removed a channel some process held
	// messages on.
	RemovedWithHolds() bool

	// Status is process p's lifecycle state.
	Status(p int) Status
	// Doomed reports whether live process p is entitled to fail closed by an earlier fault.
	Doomed(p int) bool
	// Declares reports whether topic t is in process p's declaration.
	Declares(p, t int) bool
	// DeclaredTopics are the topics process p declares, sorted (read-only).
	DeclaredTopics(p int) []int
	// ReceivesNow reports whether channel c is in p's current (or, when down, last) received set.
	ReceivesNow(p int, c int32) bool
	// ReceivesTopic reports whether p's received set has a channel of topic t.
	ReceivesTopic(p, t int) bool
	// ReadPosition is where p would read channel c next (c one p ever received): the working read
	// position of a running execution, the committed one of a down process.
	ReadPosition(p int, c int32) int64
	// CommittedPosition is p's committed read position on channel c (one p ever received), -1
	// for none.
	CommittedPosition(p int, c int32) int64
	// PendingHead is the position of p's first fed, undelivered message on channel c, if any.
	PendingHead(p int, c int32) (pos int64, ok bool)
	// FedHigh is the highest position of channel c that p has been fed, -1 for none.
	FedHigh(p int, c int32) int64
	// Received is the number of channels in p's current (or, when down, last) received set.
	Received(p int) int
	// ReceivedChannel is the i-th channel of p's received set, in channel order.
	ReceivedChannel(p, i int) int32
	// UnfedAt reports whether p receives channel c now and has not been fed position pos of it.
	UnfedAt(p int, c int32, pos int64) bool
	// BlockedHead reports whether p's first fed, undelivered message on channel c (one p ever
	// received) waits for a cause on another channel that p has not been fed yet.
	BlockedHead(p int, c int32) bool
	// BlockedOnTopic reports whether p has a blocked head a rollback keeps on a received channel
	// of topic t's current incarnation.
	BlockedOnTopic(p, t int) bool
	// HeldBackOnTopic reports whether p holds a message a drain held back on a received channel
	// of topic t's current incarnation.
	HeldBackOnTopic(p, t int) bool
	// HoldsOnTopic reports whether p has fed, undelivered messages on a received channel of
	// topic t's current incarnation.
	HoldsOnTopic(p, t int) bool
	// HeldOnDead reports whether p is running while it holds fed, undelivered messages on a
	// received channel that no longer exists (a deleted topic's, or a recreated topic's old
	// incarnation).
	HeldOnDead(p int) bool
	// ReadsDeletionOnly reports whether p declares a deletion-only topic.
	ReadsDeletionOnly(p int) bool
	// RemovableHolds reports whether p holds messages on a declared topic it does not send to.
	RemovableHolds(p int) bool
}

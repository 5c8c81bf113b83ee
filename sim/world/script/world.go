package script

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Status is a process's lifecycle state as a script reads it: Down, Running, or a third value
// for a process that failed closed and never starts again, which no scripted action applies to.
type Status uint8

const (
	// Down is a process that was never started, or stopped or crashed: it may start.
	Down Status = iota
	// Running is a process with a live execution.
	Running
)

// World is the world as a script reads and drives it, in the world's own indices: p a process,
// t a topic, c a channel (one partition of one incarnation of a topic). Its facts are read-only;
// each of its operations is the step a scheduled action of the same kind takes, with the target
// given instead of chosen, and is called only once the script has found that it applies (the
// condition each names), so the world checks nothing again.
type World interface {
	// BeginStep starts the world step of a scripted action of kind k: the step count, the action
	// counts and the clock move as for a scheduled action.
	BeginStep(k spec.ActionKind)
	// Skipped records in the trace that the step's action does not apply (a "skipped" event).
	Skipped(detail string)

	// Process is the index of the process the scenario calls name (Scenario.Validate
	// guarantees it exists).
	Process(name string) (p int)
	// Topic is the index of the topic the scenario calls name, or false (and 0) for none.
	Topic(name string) (t int, ok bool)
	// External reports whether topic t is external: written by the world's producers, not by a
	// process.
	External(t int) bool
	// Channel is partition part of topic t's n-th incarnation (counted from 1, live or deleted),
	// or of its live incarnation for n 0; -1 when there is no such incarnation or partition.
	Channel(t, n, part int) (c int32)
	// ChannelTopic is the topic channel c is a partition of.
	ChannelTopic(c int32) (t int)
	// NodeChannel is channel c as the engines name it (in a parsley.causes header).
	NodeChannel(c int32) node.Channel
	// Alive reports whether channel c belongs to its topic's live incarnation.
	Alive(c int32) bool
	// HighWatermark is channel c's high watermark: the offset its next record gets.
	HighWatermark(c int32) int64
	// RecordAt is the oracle's ID of the committed record at offset pos of channel c, or 0 when
	// none occupies it (a marker, an aborted or open transaction's record, beyond the log end).
	RecordAt(c int32, pos int64) uint64
	// TxnOpen reports whether the world's external producers have a transaction open.
	TxnOpen() bool

	// Status is process p's lifecycle state.
	Status(p int) Status
	// Received is the number of channels in p's received set: its current execution's, or its
	// last one's while it is down.
	Received(p int) int
	// ReceivedChannel is the i-th channel of p's received set, in channel order.
	ReceivedChannel(p, i int) int32
	// Feedable reports whether p's received channel c is alive and p's read position on it is
	// below its last stable offset: a feed would fetch something.
	Feedable(p int, c int32) bool
	// Declares reports whether topic t is in process p's declared received topics.
	Declares(p, t int) bool

	// Feed fetches the next record of running p's feedable channel c and feeds it to p's engine.
	Feed(p int, c int32)
	// Rewind sets down p's committed read position on live channel c to offset to, as an
	// operator's offset reset does (not clamped to the log start).
	Rewind(p int, c int32, to int64)
	// Redeclare adds topic t to down p's declaration, or removes it when it is declared.
	Redeclare(p, t int)
	// CommitCrash crashes running p inside its commit, after calls of the commit's substrate
	// calls (at least 1).
	CommitCrash(p, calls int)
	// Lifecycle performs process action k, which names no other target: start (p down), or
	// drain, commit, crash, stop, migrate or zombie (p running).
	Lifecycle(k spec.ActionKind, p int)

	// ProducePlain writes a headerless record to channel c of a live incarnation. Here and in
	// the other produces, a nil key and value are drawn from the payload stream.
	ProducePlain(c int32, key, value []byte)
	// ProduceCorrupt writes a record whose parsley.causes header values are headers.
	ProduceCorrupt(c int32, headers [][]byte, key, value []byte)
	// ProduceForged writes a record whose one parsley.causes header is header, or, when header
	// is nil, causes encoded; its true past is what the header says.
	ProduceForged(c int32, causes node.Causes, header []byte, key, value []byte)
	// ProduceStamped writes a record stamped as an observer of committed record observed (a
	// RecordAt ID) would stamp it.
	ProduceStamped(c int32, observed uint64)
	// OpenTxn opens the external producers' transaction (none open) with records records on c.
	OpenTxn(c int32, records int)
	// CloseTxn commits, or aborts, the external producers' open transaction.
	CloseTxn(commit bool)
	// AbortTxn writes records records to channel c in a transaction that aborts.
	AbortTxn(c int32, records int)
	// DrawRecordCount draws a record count from 1 to maxRecords from the payload stream, as a
	// scheduled transaction does, and discards it.
	DrawRecordCount(maxRecords int)
	// DeleteRecords raises live channel c's log start to offset before (at most its high
	// watermark).
	DeleteRecords(c int32, before int64)
	// NothingToTruncate is a delete-records step that found nothing to truncate.
	NothingToTruncate()
	// DeleteTopic deletes external topic t's live incarnation.
	DeleteTopic(t int)
	// RecreateTopic deletes external topic t (when live) and creates it again under a new ID.
	RecreateTopic(t int)
	// Retention advances the substrate's clock to the world's, which enforces every retention
	// policy.
	Retention()
	// Session performs a session action (Kind.Session) through the session tiers, which resolve
	// its names themselves, and reports whether it applied.
	Session(a *spec.ScriptedAction) bool
}

// Package substrate is the Kafka that Parsley nodes run on, behind one interface the simulator's
// host uses.
//
// Two implementations satisfy Substrate:
//
//   - Model (NewModel): the deterministic in-memory reference, the default. No goroutines, no wall
//     clock, no global randomness; topic IDs come from a caller-supplied source. It can be cloned
//     and canonically encoded, so the exhaustive explorer can snapshot and deduplicate worlds.
//   - Kafka (NewKafka, NewKfake): the same contract over franz-go (kgo + kadm), against an
//     in-process kfake cluster or real brokers. A differential test holds the two to each other
//     operation by operation. Retention is the adapter's own, computed from the run's virtual
//     time (kafka_retention.go), so a run over it never depends on broker time.
//
// Package comparison (comparison.New) drives a model and a live substrate with the same calls in
// the same order, answering with the model's results and keeping the first call on which the two
// disagree (the call, its arguments and both results); its model adopts the topic IDs the live
// substrate assigns. Agreement is defined once, here in agreement.go, which also lists every
// disagreement found between the model and kfake and how it was settled.
//
// The simulator's world holds a Substrate (the model by default); simrun's --substrate kfake|kafka
// runs a seed, a scenario file, a sweep or a replay on the adapter, and --compare on a comparison.
//
// Against a real, shared cluster (kafka_cluster.go), KafkaOptions carry TLS (TLSFromFiles) and
// SASL (SASLFromEnv, which reads the credentials from the environment variables
// PARSLEY_KAFKA_SASL_USERNAME and PARSLEY_KAFKA_SASL_PASSWORD; a command line never carries one)
// and a TopicPrefix (DefaultTopicPrefix: the run's seed and a random suffix) that every topic,
// consumer group and transactional ID gets on the cluster while the run keeps its own names. The
// adapter only works on topics it created (ErrForeignTopic otherwise) and deletes them by ID.
// What a real cluster does asynchronously the adapter waits out, so that the contract holds when
// a call returns: CreateTopic returns once the cluster lists the topic with its partitions led,
// DeleteTopic once it no longer lists it (bounded by KafkaOptions.DeletionTimeout), and ending a
// transaction once its markers are written. Cleanup deletes every topic it created and every
// consumer group it committed offsets to, and is safe to call from a Ctrl-C handler.
//
// Vocabulary. A topic is named; each incarnation of a name has a fresh, non-zero 16-byte topic ID
// that is never reused. Every partition is a log in which every offset is exactly one of: a
// committed record, a transaction marker (commit or abort), an aborted record, or a record of a
// still-open transaction. For each partition:
//
//	LogStart <= LastStable <= HighWatermark
//
// where HighWatermark is the offset the next write will get, LastStable (the LSO) is the first
// offset of the oldest still-open transaction on the partition (HighWatermark if none is open), and
// LogStart is the first offset still retained. All offset ranges are half-open: [LogStart,
// HighWatermark) is what the log holds, [LogStart, LastStable) is what a read_committed reader may
// be served.
//
// Every fetch is read_committed: only committed records below the LSO are returned; markers and
// aborted records occupy offsets but are never returned.
//
// Ownership: byte slices passed in (keys, values, header values) belong to the substrate after the
// call and must not be modified; byte slices returned by Fetch share storage with the substrate
// and must not be modified either. Nothing is copied on the hot path.
//
// Determinism: every method that returns several items returns them in a documented sorted order;
// no return value is a map.
package substrate

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// Sentinel errors. Implementations wrap them with the input that caused them (use errors.Is).
var (
	// ErrUnknownTopic: the topic name is not bound, or the topic ID is not alive (deleted,
	// recreated under its name, or never seen).
	ErrUnknownTopic = errors.New("substrate: unknown topic")
	// ErrUnknownPartition: the topic is alive but has no such partition.
	ErrUnknownPartition = errors.New("substrate: unknown partition")
	// ErrTopicExists: CreateTopic on a name that is already bound to a live topic.
	ErrTopicExists = errors.New("substrate: topic already exists")
	// ErrOffsetOutOfRange: a fetch from an offset below LogStart or above HighWatermark, or a
	// DeleteRecords beyond HighWatermark.
	ErrOffsetOutOfRange = errors.New("substrate: offset out of range")
	// ErrFenced: a transactional producer whose epoch was superseded by a later InitTransactions
	// with the same transactional ID (a zombie). Nothing it does after fencing takes effect.
	ErrFenced = errors.New("substrate: producer fenced")
	// ErrTxnState: a transactional call out of order (ProduceTx, SendOffsetsToTransaction,
	// CommitTransaction or AbortTransaction without BeginTransaction; BeginTransaction twice).
	ErrTxnState = errors.New("substrate: invalid transaction state")
	// ErrInvalidArgument: a malformed input (empty or illegal topic name, partitions < 1,
	// negative offset, empty group or transactional ID, zero TxnProducer).
	ErrInvalidArgument = errors.New("substrate: invalid argument")
	// ErrUnsupported: the implementation cannot do this (for example the adapter on a broker
	// that lacks a required API).
	ErrUnsupported = errors.New("substrate: unsupported")
)

// TopicID is a topic incarnation's 16-byte identifier (Kafka's topic UUID). The zero value means
// "no topic" and is never assigned.
type TopicID [16]byte

// IsZero reports whether id is the zero ("no topic") ID.
func (id TopicID) IsZero() bool { return id == TopicID{} }

// String formats id as a lowercase canonical UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func (id TopicID) String() string {
	var buf [36]byte
	hex.Encode(buf[0:8], id[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], id[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], id[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], id[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:36], id[10:16])
	return string(buf[:])
}

// Compare orders topic IDs bytewise: -1 if id < other, 0 if equal, +1 if id > other.
func (id TopicID) Compare(other TopicID) int {
	// Big-endian words order as their bytes do, so two word comparisons do the bytewise one.
	if a, b := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(other[:8]); a != b {
		return cmp.Compare(a, b)
	}
	return cmp.Compare(binary.BigEndian.Uint64(id[8:]), binary.BigEndian.Uint64(other[8:]))
}

// Partition is a partition number within a topic, in [0, partitions).
type Partition int32

// Offset is a position in a partition's log. The first offset of a new partition is 0.
type Offset int64

// TopicPartition names one partition of one topic incarnation.
type TopicPartition struct {
	Topic     TopicID
	Partition Partition
}

// Compare orders by Topic (bytewise), then Partition.
func (tp TopicPartition) Compare(other TopicPartition) int {
	if c := tp.Topic.Compare(other.Topic); c != 0 {
		return c
	}
	switch {
	case tp.Partition < other.Partition:
		return -1
	case tp.Partition > other.Partition:
		return 1
	}
	return 0
}

// Header is one record header. A nil Value is a null header value, distinct from an empty one.
type Header struct {
	Key   string
	Value []byte
}

// Record is what a producer writes. A nil Key or Value is null, distinct from empty. Headers keep
// their order and may repeat keys. TimestampMicros is the record's create time in microseconds of
// the run's virtual clock, stored as given (the adapter rounds down to whole milliseconds, Kafka's
// resolution).
type Record struct {
	Key             []byte
	Value           []byte
	Headers         []Header
	TimestampMicros int64
}

// FetchedRecord is a committed record as served to a read_committed reader, with its offset.
type FetchedRecord struct {
	Offset Offset
	Record
}

// Offsets are a partition's three watermarks; LogStart <= LastStable <= HighWatermark.
type Offsets struct {
	// LogStart is the first offset still retained.
	LogStart Offset
	// LastStable (LSO) is the first offset of the oldest still-open transaction on the partition,
	// or HighWatermark if none is open. A read_committed fetch never returns anything at or above it.
	LastStable Offset
	// HighWatermark is the offset the next write will receive (one past the last offset).
	HighWatermark Offset
}

// TopicState is what became of a topic ID.
type TopicState uint8

const (
	// TopicAlive: the ID is the current incarnation of its name.
	TopicAlive TopicState = iota + 1
	// TopicDeleted: the ID's topic was deleted and its name is not bound to any live topic now.
	TopicDeleted
	// TopicRecreated: the ID's topic was deleted and its name is now bound to another (newer) ID.
	TopicRecreated
)

// String returns "alive", "deleted" or "recreated".
func (s TopicState) String() string {
	switch s {
	case TopicAlive:
		return "alive"
	case TopicDeleted:
		return "deleted"
	case TopicRecreated:
		return "recreated"
	}
	return "unknown"
}

// TopicDescription says what a topic ID is now.
type TopicDescription struct {
	ID         TopicID
	Name       string
	State      TopicState
	Partitions int // partition count of this incarnation (kept after deletion)
	// CurrentID is the ID the name is bound to now: ID itself when Alive, the newer incarnation
	// when Recreated, zero when Deleted.
	CurrentID TopicID
}

// ProduceMode selects the non-transactional producer flavour.
type ProduceMode uint8

const (
	// ProducePlain is a producer without idempotence (acks=all, no producer ID).
	ProducePlain ProduceMode = iota + 1
	// ProduceIdempotent is an idempotent producer (producer ID + sequence numbers). Without
	// network faults it behaves exactly like ProducePlain.
	ProduceIdempotent
)

// TxnProducer is a value handle on one epoch of a transactional producer, returned by
// InitTransactions. It is comparable and holds no pointers, so it stays valid across Model.Clone
// (a clone and its original accept the same handles). The zero value is not a producer.
type TxnProducer struct {
	TransactionalID string
	// Epoch increases by one on every InitTransactions of the same TransactionalID; a handle with
	// an older epoch is fenced.
	Epoch int32
	// slot identifies the transactional ID inside the implementation that issued the handle.
	slot int32
}

// GroupOffset is a consumer group's committed position on one partition: the offset of the next
// record the group will read.
type GroupOffset struct {
	TopicPartition
	Offset Offset
}

// RetentionPolicy bounds how much of each partition of a topic is kept. Zero fields mean unlimited.
// Retention only ever raises LogStart, never beyond HighWatermark, and is enforced only by
// AdvanceClock (modelling the broker's periodic retention check).
type RetentionPolicy struct {
	// TimeMicros: drop the longest prefix of the log whose offsets all have a timestamp older than
	// now - TimeMicros (markers carry the clock reading at which they were written).
	TimeMicros int64
	// MaxOffsets: keep at most this many offsets (records, markers and aborted records alike)
	// per partition, dropping the oldest.
	MaxOffsets int64
}

// Substrate is the Kafka the host drives. Implementations are not safe for concurrent use: the
// simulator calls them from one goroutine.
type Substrate interface {
	// CreateTopic binds name to a new incarnation with the given partition count (>= 1) and a
	// fresh, never-used ID whose partitions start at offset 0. ErrTopicExists if name is bound to
	// a live topic; ErrInvalidArgument for an empty/illegal name (Kafka's [a-zA-Z0-9._-]{1,249})
	// or partitions < 1.
	CreateTopic(name string, partitions int) (TopicID, error)
	// DeleteTopic deletes the live topic bound to name: its ID describes as TopicDeleted, its
	// partitions, retention policy and consumer-group offsets (committed or staged in open
	// transactions) are gone. An open transaction that wrote there still ends with a marker on the
	// partition of the same name and number if the name is recreated by then (Kafka's coordinator
	// tracks transaction partitions by name). ErrUnknownTopic if name is not bound.
	DeleteTopic(name string) error
	// RecreateTopic deletes the live topic bound to name and creates it again with the same
	// partition count and a new ID. The old ID then describes as TopicRecreated.
	RecreateTopic(name string) (TopicID, error)
	// LookupTopic returns the live ID and partition count bound to name, or ErrUnknownTopic.
	LookupTopic(name string) (TopicID, int, error)
	// DescribeTopic says whether id is alive, deleted, or recreated under its name.
	// ErrUnknownTopic if this substrate never issued or saw id.
	DescribeTopic(id TopicID) (TopicDescription, error)
	// Topics lists the live topics sorted by name.
	Topics() []TopicDescription

	// Produce appends rec non-transactionally and returns its offset (the old HighWatermark).
	// ErrUnknownTopic if tp.Topic is not alive, ErrUnknownPartition if the partition does not exist.
	Produce(tp TopicPartition, rec Record, mode ProduceMode) (Offset, error)

	// InitTransactions registers (or re-registers) transactionalID and returns a handle with a
	// new epoch (0 the first time). Re-registering fences every older handle of the same ID (their
	// calls fail with ErrFenced) and aborts the transaction they left open, writing abort markers.
	InitTransactions(transactionalID string) (TxnProducer, error)
	// BeginTransaction starts a transaction. ErrTxnState if one is already open on p;
	// ErrFenced if p is a zombie.
	BeginTransaction(p TxnProducer) error
	// ProduceTx appends rec inside p's open transaction and returns its offset. The record is
	// invisible to read_committed readers until commit and the partition's LSO is held at the
	// transaction's first offset there until it ends.
	ProduceTx(p TxnProducer, tp TopicPartition, rec Record) (Offset, error)
	// SendOffsetsToTransaction stages consumer-group offsets in p's open transaction: they become
	// visible in CommittedOffsets(group) exactly when the transaction commits, and never if it
	// aborts. Later offsets for the same partition in the same transaction replace earlier ones.
	SendOffsetsToTransaction(p TxnProducer, group string, offsets []GroupOffset) error
	// CommitTransaction commits p's open transaction: one commit marker on every partition it
	// wrote to, its records become visible, its staged group offsets
	// are committed. ErrFenced for a zombie (nothing is committed); ErrTxnState if none is open.
	CommitTransaction(p TxnProducer) error
	// AbortTransaction aborts p's open transaction: one abort marker on every partition it wrote
	// to, its records become aborted (never served), its staged offsets are dropped.
	AbortTransaction(p TxnProducer) error

	// Fetch is FetchInto(nil, tp, from, maxRecords).
	Fetch(tp TopicPartition, from Offset, maxRecords int) ([]FetchedRecord, Offset, error)
	// FetchInto reads read_committed from offset from and appends up to maxRecords committed
	// records (maxRecords <= 0 means no limit) to dst, in offset order, returning the extended
	// slice. Markers, aborted records and anything at or above the LSO are never returned.
	//
	// next is where to fetch from next time: one past the last returned record if maxRecords
	// were returned, otherwise max(from, LastStable) — that is, the reader moves past markers and
	// aborted records that are below the LSO, and never past the LSO.
	//
	// ErrOffsetOutOfRange if from < LogStart or from > HighWatermark (from == HighWatermark is
	// fine and returns nothing); ErrUnknownTopic if tp.Topic is not alive.
	FetchInto(dst []FetchedRecord, tp TopicPartition, from Offset, maxRecords int) (records []FetchedRecord, next Offset, err error)
	// ListOffsets returns the partition's LogStart, LastStable and HighWatermark.
	ListOffsets(tp TopicPartition) (Offsets, error)

	// DeleteRecords raises the partition's LogStart to before (a no-op if before <= LogStart).
	// ErrOffsetOutOfRange if before > HighWatermark or before < 0.
	DeleteRecords(tp TopicPartition, before Offset) error
	// SetRetention sets the retention policy of the live topic bound to name (all partitions).
	// It takes effect at the next AdvanceClock.
	SetRetention(name string, policy RetentionPolicy) error
	// AdvanceClock moves the substrate's clock to nowMicros (virtual time; never the wall clock)
	// and enforces every topic's retention policy. A nowMicros below the current clock leaves the
	// clock unchanged but still enforces retention.
	AdvanceClock(nowMicros int64) error

	// CommitOffsets commits group offsets non-transactionally (a plain consumer's commit).
	// ErrUnknownTopic/ErrUnknownPartition if an offset names a partition that is not alive.
	CommitOffsets(group string, offsets []GroupOffset) error
	// CommittedOffsets returns the group's committed offsets on live partitions, sorted by
	// TopicPartition. An unknown group has no offsets (nil, nil).
	CommittedOffsets(group string) ([]GroupOffset, error)

	// Close releases resources (network clients, an embedded cluster). The Model's is a no-op.
	Close() error
}

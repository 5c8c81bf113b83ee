package substrate

// When the model and a live substrate agree: the one definition of agreement, shared by the
// operation-by-operation differential test and the run-level comparison (package comparison).
// Errors agree when they wrap the same sentinel (their texts name different things); records
// agree field by field with null and empty kept apart and timestamps at Kafka's millisecond
// resolution; topic descriptions agree field by field, topic IDs by a caller-given relation
// (equal, for a comparison whose model adopts the live IDs; the same incarnation, for the
// differential test's independent IDs).
//
// Disagreements found between the model and kfake, and how each was settled (Kafka's documented
// or implemented behaviour decides):
//
//  1. DeleteRecords below the log start. kfake answers OFFSET_OUT_OF_RANGE; Kafka
//     (UnifiedLog.maybeIncrementLogStartOffset) only raises the log start and succeeds. Settled
//     for Kafka: the model treats it as a no-op and the adapter answers it without asking kfake.
//  2. LSO below the log start after DeleteRecords past an open transaction's first offset.
//     kfake keeps LSO at the transaction's first offset; Kafka clamps the first unstable offset to
//     the log start (UnifiedLog.maybeIncrementFirstUnstableOffset). Settled for Kafka: the model
//     reports max(first open offset, log start) and the adapter clamps kfake's answer.
//  3. Group offsets of a deleted topic. kfake keeps them under the topic name, so a recreated
//     topic inherits them; Kafka's group coordinator deletes the offsets of deleted partitions.
//     Settled for Kafka: the model drops them at deletion, the adapter issues OffsetDelete for
//     its groups before deleting a topic.
//  4. Timestamps. Kafka has millisecond timestamps; the model keeps microseconds. Not a
//     semantic disagreement: the contract says the adapter rounds down to milliseconds, so
//     records compare with their timestamps rounded down to milliseconds (sameRecord).
//  5. Ending a transaction that wrote nothing. Kafka answers EndTxn for a transaction that never
//     registered a partition or group with INVALID_TXN_STATE (there is no transaction on the
//     coordinator); every Kafka client ends it locally instead. Settled as the clients do: the
//     model ends it without markers, the adapter does not send EndTxn.
//  6. End markers after a topic is recreated mid-transaction. The first model dropped the
//     deleted partitions from the transaction; kfake writes the commit/abort marker into the
//     recreated topic, because the coordinator tracks a transaction's partitions by name. Kafka's
//     coordinator does the same (TransactionMarkerChannelManager resolves partitions by name and
//     only drops those whose topic no longer exists). Settled for Kafka: the model writes one
//     marker to the name's current incarnation if it has that partition.
//  7. Transactional offsets staged on a topic deleted before the commit. kfake applies them by
//     name at commit, so the recreated topic inherits them; Kafka's group coordinator removes
//     pending transactional offsets of deleted partitions (GroupMetadata.removeOffsets). Settled
//     for Kafka: the model drops them at deletion; the adapter, after such a commit, restores the
//     offset it last committed for the live incarnation or deletes the stray one.
//  8. Time retention. Brokers apply retention.ms against the wall clock and their stored
//     millisecond timestamps, which a run's virtual timestamps are decades away from. Settled for
//     the contract: the adapter disables broker retention and deletes records itself at
//     AdvanceClock from the run's virtual times, as the model does (kafka_retention.go).
//
// A disagreement that was a bug in the adapter (kgo's cached metadata remembering that a name did
// not exist, partition checks on deleted IDs) was fixed, not listed.

import (
	"bytes"
	"errors"
)

// sentinels are the contract's errors, in the order ErrorClass tries them.
var sentinels = []error{ErrUnknownTopic, ErrUnknownPartition, ErrTopicExists, ErrOffsetOutOfRange,
	ErrFenced, ErrTxnState, ErrInvalidArgument, ErrUnsupported, ErrForeignTopic}

// ErrorClass names the sentinel err wraps ("ok" for nil), so that errors compare across
// implementations; an error that wraps none is its own class, by its text.
func ErrorClass(err error) string {
	if err == nil {
		return "ok"
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "unexpected: " + err.Error()
}

// sameRecord reports whether two fetched records agree: offset, key, value and headers (null
// apart from empty), and timestamps rounded down to milliseconds (disagreement 4).
func sameRecord(a, b FetchedRecord) bool {
	if a.Offset != b.Offset || floorDiv(a.TimestampMicros, 1000) != floorDiv(b.TimestampMicros, 1000) ||
		!nullableEqual(a.Key, b.Key) || !nullableEqual(a.Value, b.Value) || len(a.Headers) != len(b.Headers) {
		return false
	}
	for j := range a.Headers {
		if a.Headers[j].Key != b.Headers[j].Key || !nullableEqual(a.Headers[j].Value, b.Headers[j].Value) {
			return false
		}
	}
	return true
}

// FirstRecordDifference returns the index of the first record where a and b disagree (the
// shorter length if one is a prefix of the other), or -1 if they agree.
func FirstRecordDifference(a, b []FetchedRecord) int {
	for i := range min(len(a), len(b)) {
		if !sameRecord(a[i], b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func nullableEqual(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// SameDescription reports whether two topic descriptions agree, with sameID relating their IDs.
func SameDescription(a, b TopicDescription, sameID func(a, b TopicID) bool) bool {
	return a.Name == b.Name && a.State == b.State && a.Partitions == b.Partitions &&
		sameID(a.ID, b.ID) && sameID(a.CurrentID, b.CurrentID)
}

// Package node is the Parsley node: the pure, deterministic core that decides when a received
// Kafka record may be delivered, what every emission must carry as its causes, and when the
// process must fail closed.
//
// The package has no clock, no randomness, no I/O and no goroutines (a test enforces its
// imports). A host drives it: it feeds records, asks what to deliver, stamps emissions with the
// frontier, and commits the ordering state the engine hands back. docs/PROTOCOL.md §1–§4 (cited
// as SPEC §N) define the parsley.causes header and the semantics implemented here.
package node

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// TopicID is a Kafka topic ID: 16 bytes, the UUID's 8 most significant bytes then its 8 least.
// A channel is named by its topic ID, never its name, so a deleted and recreated topic is a new
// channel. The all-zero ID is reserved by Kafka and is never a channel.
type TopicID [16]byte

// IsZero reports whether id is the reserved all-zero topic ID.
func (id TopicID) IsZero() bool { return id == TopicID{} }

// String renders the ID as a canonical lowercase UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
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

// Partition is a Kafka partition number. Valid partitions are 0 to 2^31−1.
type Partition int32

// Offset is a position on a channel: a Kafka offset. Valid positions on the wire are 0 to
// 2^63−2; MaxOffset (2^63−1) is reserved as the engine's deleted-channel marker.
type Offset int64

// MaxOffset is 2^63−1, the in-band marker meaning "this channel was deleted: every position is
// settled". No header may carry it (wire constraint 7), so no sender can plant it.
const MaxOffset Offset = 1<<63 - 1

// Channel is a Kafka topic-partition named by its topic ID.
//
// Invariant (for any Channel accepted at a gateway): Topic is not all-zero and Partition ≥ 0.
type Channel struct {
	Topic     TopicID
	Partition Partition
}

// Compare orders channels as the wire format does (constraint 4): by the unsigned bytes of the
// topic ID, then by partition. It returns -1, 0 or +1.
func (c Channel) Compare(d Channel) int {
	if c.Topic != d.Topic {
		return compareTopicIDs(&c.Topic, &d.Topic)
	}
	return cmp.Compare(c.Partition, d.Partition)
}

// compareTopicIDs orders two different topic IDs by their unsigned bytes: it compares the
// big-endian halves as integers, the same order as bytes.Compare at a fraction of the cost on the
// gate's and the codec's hot paths.
func compareTopicIDs(a, b *TopicID) int {
	ah, bh := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])
	if ah == bh {
		ah, bh = binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:])
	}
	if ah < bh {
		return -1
	}
	if ah > bh {
		return 1
	}
	return 0
}

// String renders the channel as topicID/partition.
func (c Channel) String() string { return fmt.Sprintf("%s/%d", c.Topic, c.Partition) }

// valid reports whether c may appear in a frontier: a non-zero topic ID and a non-negative
// partition.
func (c Channel) valid() bool { return !c.Topic.IsZero() && c.Partition >= 0 }

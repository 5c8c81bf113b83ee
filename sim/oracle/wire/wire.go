// Package wire is the oracle's reference implementation of the version-1 parsley.causes wire
// format (SPEC §4: docs/PROTOCOL.md): a strict decoder of a record's header list and
// a canonical encoder.
//
// It is a second implementation, written independently of the node's codec and sharing no code
// or types with it, so that a bug in the node's codec is judged instead of shared: the simulator
// decides what a header means with this package, and the node under test must agree. It is
// written for obviousness, byte by byte in the order of the grammar, with no fast path. It
// imports only the standard library (a test enforces it).
package wire

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"fmt"
)

// HeaderKey is the key of the one Kafka record header that carries a message's causes.
const HeaderKey = "parsley.causes"

// Version is the only version byte of the grammar.
const Version = 0x01

// PositionMax is the largest position a value may carry: 2^63−2. The next one, 2^63−1, is
// reserved (constraint 7).
const PositionMax = 1<<63 - 2

// TopicID is a Kafka topic ID: the 8 most significant bytes of the UUID, then its 8 least. The
// all-zero ID names no channel (constraint 5).
type TopicID [16]byte

// String renders the ID as a lowercase UUID.
func (id TopicID) String() string {
	h := hex.EncodeToString(id[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Channel is a topic-partition named by its topic ID.
type Channel struct {
	Topic     TopicID
	Partition int32
}

// compare orders channels as the wire lists them (constraint 4): by the unsigned bytes of the
// topic ID, then by partition. It returns -1, 0 or +1.
func (c Channel) compare(d Channel) int {
	if r := bytes.Compare(c.Topic[:], d.Topic[:]); r != 0 {
		return r
	}
	return cmp.Compare(c.Partition, d.Partition)
}

// Cause is one entry of a value: every cause on Channel at or below Position.
type Cause struct {
	Channel  Channel
	Position int64
}

// String renders the cause as TOPIC/PARTITION@POSITION.
func (c Cause) String() string {
	return fmt.Sprintf("%s/%d@%d", c.Channel.Topic, c.Channel.Partition, c.Position)
}

// Header is one Kafka record header. A nil Value is a null header value, which Kafka tells apart
// from an empty one; for parsley.causes both are undecodable.
type Header struct {
	Key   string
	Value []byte
}

// Family names the rule an undecodable value breaks. The names are those `simrun decode`
// prints.
type Family string

// The families of undecodable input. When a value breaks several rules, its family is that of
// the first rule a left-to-right read meets.
const (
	NullValue              Family = "null-value"
	Truncated              Family = "truncated"
	TrailingBytes          Family = "trailing-bytes"
	UnknownVersion         Family = "unknown-version"
	NegativePosition       Family = "negative-position"
	ReservedPosition       Family = "reserved-position"
	ZeroTopicID            Family = "zero-topic-id"
	TopicsNotAscending     Family = "topics-not-ascending"
	PartitionsNotAscending Family = "partitions-not-ascending"
	ZeroPartitions         Family = "zero-partitions"
	NonMinimalVarint       Family = "non-minimal-varint"
	VarintOverflow         Family = "varint-overflow"
	DuplicateHeader        Family = "duplicate-header"
)

// Families lists every family, in the order above.
var Families = []Family{NullValue, Truncated, TrailingBytes, UnknownVersion, NegativePosition,
	ReservedPosition, ZeroTopicID, TopicsNotAscending, PartitionsNotAscending, ZeroPartitions,
	NonMinimalVarint, VarintOverflow, DuplicateHeader}

// Refusal says why a header is undecodable: the family of the rule broken, the offset in the
// value of the first byte of the field that breaks it (for trailing bytes, the first surplus
// byte; for a null value or a duplicated header, 0), and a detail naming the offending value.
type Refusal struct {
	Family Family
	Offset int
	Detail string
}

// Error renders the refusal as "family at byte N: detail".
func (r *Refusal) Error() string {
	return fmt.Sprintf("%s at byte %d: %s", r.Family, r.Offset, r.Detail)
}

func refuse(f Family, offset int, format string, args ...any) *Refusal {
	return &Refusal{Family: f, Offset: offset, Detail: fmt.Sprintf(format, args...)}
}

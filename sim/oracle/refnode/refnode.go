// Package refnode is the oracle's reference node: an executable model of SPEC §1–§3 and §7 (the
// ordering state, the §2.3 reference algorithm, stamping, the metadata budget and the refusals),
// written for obviousness, not speed. The simulator runs one beside every process's engine, feeds
// it the same inputs within each step and judges the engine by whether the two agree.
//
// It shares nothing with the engine under test: it has its own types, keeps its state in plain
// channel-ordered maps (Positions) and lists, decides with the §2.1 rule written out, and reads
// and writes parsley.causes through the oracle's own wire codec (sim/oracle/wire), never node's.
// It must not import node/ (its tests may, to drive both).
//
// A Node is one execution: Start builds it from a committed State, Identity applies the identity
// report, Receive feeds a record, Next delivers, Emit stamps an emission, Commit returns the
// committed State of the step. Once it has refused, every call returns that refusal (Next
// delivers nothing), as SPEC §7.1 asks of a process that failed closed.
package refnode

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// TopicID is a topic's 16-byte ID. The all-zero ID is never a channel (SPEC §1.1, D83).
type TopicID [16]byte

// String renders the ID as a UUID.
func (id TopicID) String() string {
	h := hex.EncodeToString(id[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Channel is a topic-partition named by topic ID.
type Channel struct {
	Topic     TopicID
	Partition int32
}

// String renders the channel as topic-ID/partition.
func (c Channel) String() string { return fmt.Sprintf("%s/%d", c.Topic, c.Partition) }

// valid reports whether c can name a channel: a non-zero topic ID and a partition ≥ 0.
func (c Channel) valid() bool { return c.Topic != TopicID{} && c.Partition >= 0 }

// compareChannels is channel order (SPEC §2.2, wire constraint 4): the topic ID's bytes
// unsigned, then the partition.
func compareChannels(a, b Channel) int {
	x, y := keyOf(a), keyOf(b)
	if r := cmp.Compare(x.hi, y.hi); r != 0 {
		return r
	}
	if r := cmp.Compare(x.lo, y.lo); r != 0 {
		return r
	}
	return cmp.Compare(x.part, y.part)
}

// chanKey is a channel's place in channel order: the topic ID as two big-endian 64-bit halves,
// which order as its bytes unsigned do, then the partition.
type chanKey struct {
	hi, lo uint64
	part   int32
}

// keyOf returns c's key.
func keyOf(c Channel) chanKey {
	return chanKey{binary.BigEndian.Uint64(c.Topic[:8]), binary.BigEndian.Uint64(c.Topic[8:]), c.Partition}
}

// less reports whether k comes before l in channel order.
func (k chanKey) less(l chanKey) bool {
	if k.hi != l.hi {
		return k.hi < l.hi
	}
	if k.lo != l.lo {
		return k.lo < l.lo
	}
	return k.part < l.part
}

// Position is an offset on a channel.
type Position int64

// End is 2^63−1, the deleted-channel marker a fedUpTo may hold (SPEC §2.5): every position of a
// deleted channel is settled. No header may carry it.
const End Position = 1<<63 - 1

// Header is one record header; a nil Value is a null value (distinct from an empty one).
type Header struct {
	Key   string
	Value []byte
}

// Record is a record's payload as the application sees it.
type Record struct {
	Key, Value      []byte
	Headers         []Header
	TimestampMicros int64
}

// CausesKey is the header that carries causes (SPEC §4.1); ReservedPrefix is the prefix reserved
// for Parsley, whose headers the application never sees and may never attach.
const (
	CausesKey      = "parsley.causes"
	ReservedPrefix = "parsley."
)

// Message is a held (received, undelivered) message: where it was received, the record as the
// application will see it (parsley.* headers removed, D56) and the causes its header carried.
type Message struct {
	Channel  Channel
	Position Position
	Record   Record
	Causes   Positions
}

// Delivery is what Next hands the application.
type Delivery struct {
	Channel  Channel
	Position Position
	Record   Record
}

// Binding is a declared received topic's name and the topic ID it resolves to.
type Binding struct {
	Name  string
	Topic TopicID
}

// Reason names a refusal (SPEC §7.1), spelled as the project documents it.
type Reason string

// The reasons a node can refuse with. POSITIONS_DISCARDED_UNREAD and the other host-only reasons
// are not the node's: no engine check raises them.
const (
	UndecodableMetadata           Reason = "UNDECODABLE_METADATA"
	MetadataBudgetExceeded        Reason = "METADATA_BUDGET_EXCEEDED"
	OutOfOrderFeed                Reason = "OUT_OF_ORDER_FEED"
	CoveredPositionFed            Reason = "COVERED_POSITION_FED"
	ChannelRemovedWithHeld        Reason = "CHANNEL_REMOVED_WITH_HELD_MESSAGES"
	ChannelIdentityChanged        Reason = "CHANNEL_IDENTITY_CHANGED"
	ChannelDeletedWithUndelivered Reason = "CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES"
	UnknownOrderingStateFormat    Reason = "UNKNOWN_ORDERING_STATE_FORMAT"
	ReservedHeaderUsed            Reason = "RESERVED_HEADER_USED"
	EmissionToUndeclaredChannel   Reason = "EMISSION_TO_UNDECLARED_CHANNEL"
)

// Refusal is a fail-closed stop: the reason and a detail naming what caused it.
type Refusal struct {
	Reason Reason
	Detail string
}

// Error renders the refusal as "REASON: detail".
func (r *Refusal) Error() string { return string(r.Reason) + ": " + r.Detail }

func refuse(reason Reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Outcome is what Receive did with a record it did not refuse.
type Outcome uint8

const (
	// Held: the record joined its channel's hold-back buffer.
	Held Outcome = iota + 1
	// Duplicate: a replay of committed past, dropped (its causes were still merged).
	Duplicate
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Held:
		return "held"
	case Duplicate:
		return "duplicate"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// visible returns rec without its parsley.* headers (D56); nil headers when none remain.
func visible(rec Record) Record {
	var hs []Header
	for _, h := range rec.Headers {
		if !strings.HasPrefix(h.Key, ReservedPrefix) {
			hs = append(hs, h)
		}
	}
	rec.Headers = hs
	return rec
}

// Package statecodec is the stored form of a node's committed ordering state (node.State) and of
// a step's change to it (node.Delta): a strict binary format, the changelog encoding a host
// persists or ships the state in. The node itself never reads or writes these bytes; it hands the
// host a State and Deltas, and a host that stores them encodes them here.
//
// The committed ordering state and its deltas have their own strict binary format (version 1).
// Every integer field is a minimal unsigned LEB128 varint except positions and timestamps, which
// are 8-byte big-endian two's complement. Lists are a count followed by the items; optional byte
// strings are a varint of length+1 (0 = null) then the bytes. A channel is 16 topic-ID bytes then
// its partition as a varint (≤ 2^31−1). Held causes are a length-prefixed parsley.causes value,
// decoded as strictly as a received header.
//
//	state = "PS" 0x01 bindings fed frontier past holds
//	delta = "PD" 0x01 flags bindings fed frontierRemoved frontier pastRemoved past removedHolds newHolds
//	binding = len name topicId                       (names strictly ascending)
//	fed = count (channel int64)*                     (channels strictly ascending; 0..2^63−1)
//	frontier, past = count (channel int64)*          (strictly ascending; 0..2^63−2)
//	holds = count (channel count≥1 hold*)*           (channels ascending; positions ascending)
//	hold = int64 record causes
//	record = optbytes key, optbytes value, int64 timestampMicros, count (string optbytes)*
//
// Decoding refuses (UNKNOWN_ORDERING_STATE_FORMAT) truncated, trailing, non-minimal, out-of-range
// or out-of-order input, never panics, and allocates only in proportion to the input: every count
// is checked against the bytes left before anything is allocated for it.
package statecodec

import (
	"encoding/binary"
	"slices"

	"github.com/parsleysim/parsleysim/node"
)

// formatVersion is the format's version byte; a state may say 0 instead (no state yet).
const formatVersion = 1

// Field sizes of the format.
const (
	topicIDBytes  = 16
	positionBytes = 8
)

// Minimum encoded sizes used to bound counts before allocating.
const (
	minChannelBytes = topicIDBytes + 1
	minPairBytes    = minChannelBytes + positionBytes
	minBindingBytes = 1 + 1 + topicIDBytes
	minHoldBytes    = positionBytes + 1 + 1 + positionBytes + 1 + 1 + 2
	minHeaderBytes  = 1 + 1
	maxPartition    = 1<<31 - 1
)

var (
	stateMagic = [3]byte{'P', 'S', formatVersion}
	deltaMagic = [3]byte{'P', 'D', formatVersion}
)

// EncodeState returns the binary form of the state.
func EncodeState(s *node.State) []byte {
	b := append([]byte(nil), stateMagic[:]...)
	if s.Version() == 0 {
		b[2] = 0 // a state without version entry keeps saying so
	}
	b = appendBindings(b, s.Bindings())
	b = appendFed(b, s.FedPositions())
	b = appendPairs(b, s.Frontier().Pairs())
	b = appendPairs(b, s.DeliveredPast().Pairs())
	chans := s.HeldChannels()
	b = binaryUvarint(b, uint64(len(chans)))
	for _, ch := range chans {
		live := s.Held(ch)
		b = appendChannel(b, ch)
		b = binaryUvarint(b, uint64(len(live)))
		for _, m := range live {
			b = appendHold(b, m)
		}
	}
	return b
}

// DecodeState strictly decodes a committed ordering state; failures are *node.Refusal with
// reason UNKNOWN_ORDERING_STATE_FORMAT naming the byte offset and the bad field (or, for bytes
// that read but break an invariant of node.State, the breach).
func DecodeState(b []byte) (*node.State, error) {
	r := codecReader{b: append([]byte(nil), b...)}
	r.magic(stateMagic, true)
	p := node.StateParts{Version: formatVersion}
	if len(r.b) >= 3 && r.b[2] == 0 {
		p.Version = 0
	}
	p.Bindings = r.bindings()
	p.Fed = r.fed()
	p.Frontier = r.pairs("frontier")
	p.Past = r.pairs("delivered past")
	n := r.count("held channels", minChannelBytes+1+minHoldBytes)
	var prev node.Channel
	for i := 0; i < n && r.err == nil; i++ {
		ch := r.channel()
		if r.err == nil && i > 0 && prev.Compare(ch) >= 0 {
			r.fail("held channel %v out of order", ch)
		}
		prev = ch
		m := r.count("holds", minHoldBytes)
		if r.err == nil && m == 0 {
			r.fail("held channel %v with zero holds", ch)
		}
		p.Holds = slices.Grow(p.Holds, m)
		for j := 0; j < m && r.err == nil; j++ {
			p.Holds = append(p.Holds, r.hold(ch))
		}
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}
	return node.NewState(p)
}

// appendBindings appends a binding list.
func appendBindings(b []byte, bs []node.Binding) []byte {
	b = binaryUvarint(b, uint64(len(bs)))
	for _, x := range bs {
		b = binaryUvarint(b, uint64(len(x.Name)))
		b = append(b, x.Name...)
		b = append(b, x.Topic[:]...)
	}
	return b
}

// appendFed appends a fedUpTo list.
func appendFed(b []byte, fed []node.FedPosition) []byte {
	b = binaryUvarint(b, uint64(len(fed)))
	for _, f := range fed {
		b = appendChannel(b, f.Channel)
		b = binary.BigEndian.AppendUint64(b, uint64(f.FedUpTo))
	}
	return b
}

// appendPairs appends a frontier-like list of pairs.
func appendPairs(b []byte, pairs []node.Cause) []byte {
	b = binaryUvarint(b, uint64(len(pairs)))
	for _, p := range pairs {
		b = appendChannel(b, p.Channel)
		b = binary.BigEndian.AppendUint64(b, uint64(p.Position))
	}
	return b
}

// appendChannels appends a channel list.
func appendChannels(b []byte, chans []node.Channel) []byte {
	b = binaryUvarint(b, uint64(len(chans)))
	for _, ch := range chans {
		b = appendChannel(b, ch)
	}
	return b
}

// appendChannel appends topic ID and partition.
func appendChannel(b []byte, ch node.Channel) []byte {
	b = append(b, ch.Topic[:]...)
	return binaryUvarint(b, uint64(ch.Partition))
}

// appendHold appends one held message without its channel.
func appendHold(b []byte, m node.HeldMessage) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(m.Position))
	b = appendOptBytes(b, m.Record.Key)
	b = appendOptBytes(b, m.Record.Value)
	b = binary.BigEndian.AppendUint64(b, uint64(m.Record.TimestampMicros))
	b = binaryUvarint(b, uint64(len(m.Record.Headers)))
	for _, h := range m.Record.Headers {
		b = binaryUvarint(b, uint64(len(h.Key)))
		b = append(b, h.Key...)
		b = appendOptBytes(b, h.Value)
	}
	b = binaryUvarint(b, uint64(node.EncodedLen(m.Causes)))
	return node.AppendEncode(b, m.Causes)
}

// appendOptBytes appends a nullable byte string.
func appendOptBytes(b, v []byte) []byte {
	if v == nil {
		return binaryUvarint(b, 0)
	}
	b = binaryUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

// binaryUvarint appends the minimal unsigned LEB128 spelling of v.
func binaryUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

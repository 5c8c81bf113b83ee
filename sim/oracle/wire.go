package oracle

import (
	"bytes"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"github.com/parsleysim/parsleysim/substrate"
)

// What a header means, to the oracle, is what the reference decoder (package wire) reads in it,
// never what the node's codec reads: a bug in the node's codec is then judged rather than
// shared. The world reads every record it produces (ReadHeaders) and every emission a
// process stamps (onSend) this way, and writes the headers of its own stamped and forged records
// with the reference encoder.

// HeaderReading is what the reference decoder reads in a record's headers.
type HeaderReading struct {
	Expressed   node.Causes   // the causes named; empty when undecodable or absent
	Present     bool          // some parsley.causes header is there
	Undecodable bool          // a receiver must refuse the record (UNDECODABLE_METADATA)
	Refusal     *wire.Refusal // why, when undecodable
	ValueLen    int           // the length of the first parsley.causes value, for the metadata budget
	Values      [][]byte      // the parsley.causes values, when undecodable
}

// ReadHeaders reads a header list with the reference decoder: a produced record's headers as the
// substrate keeps them, or an emission's as the engine stamped them.
func ReadHeaders[H substrate.Header | node.Header](hs []H) HeaderReading {
	var buf [4]wire.Header
	return ReadWireHeaders(appendWireHeaders(buf[:0], hs))
}

// readHeaders is ReadHeaders, with Expressed carved from s; without expressed it leaves
// Expressed empty, for a caller that knows what the record expresses and reads its headers only
// for the rest.
func readHeaders[H substrate.Header | node.Header](hs []H, expressed bool, s *slab) HeaderReading {
	var buf [4]wire.Header
	return readWireHeaders(appendWireHeaders(buf[:0], hs), expressed, s)
}

// appendWireHeaders appends hs, as the reference codec's headers, to ws.
func appendWireHeaders[H substrate.Header | node.Header](ws []wire.Header, hs []H) []wire.Header {
	for _, h := range hs {
		ws = append(ws, wire.Header(h))
	}
	return ws
}

// ReadWireHeaders reads a header list with the reference decoder.
func ReadWireHeaders(ws []wire.Header) HeaderReading { return readWireHeaders(ws, true, nil) }

// readWireHeaders is ReadWireHeaders, with Expressed carved from s (nil: allocated), or left
// empty without expressed (readHeaders).
func readWireHeaders(ws []wire.Header, expressed bool, s *slab) HeaderReading {
	var buf [16]wire.Cause // the decoded causes live only until converted
	causes, present, r := wire.DecodeHeaders(buf[:0], ws)
	hr := HeaderReading{Present: present, Undecodable: r != nil, Refusal: r}
	first := true
	for _, h := range ws {
		if h.Key != wire.HeaderKey {
			continue
		}
		if first {
			hr.ValueLen, first = len(h.Value), false
		}
		if r != nil {
			hr.Values = append(hr.Values, h.Value)
		}
	}
	if r == nil && expressed {
		hr.Expressed = causesFromWire(causes, s)
	}
	return hr
}

// CausesFromWire converts the reference decoder's causes (in channel order, distinct channels)
// to the oracle's frontier type.
func CausesFromWire(causes []wire.Cause) node.Causes { return causesFromWire(causes, nil) }

// causesFromWire is CausesFromWire, the frontier carved from s (nil: allocated).
func causesFromWire(causes []wire.Cause, s *slab) node.Causes {
	if len(causes) == 0 {
		return node.Causes{}
	}
	// An empty frontier with room for every cause: merged in channel order, each one appends in
	// place, so the frontier is built in storage of its final size.
	var room []node.Cause
	if s != nil {
		room = s.room(len(causes))
	} else {
		room = make([]node.Cause, 0, len(causes))
	}
	out := node.Causes{}.CloneInto(room)
	for _, c := range causes {
		out.Merge(node.Channel{Topic: node.TopicID(c.Channel.Topic), Partition: node.Partition(c.Channel.Partition)}, node.Offset(c.Position))
	}
	return out
}

// WireCauses converts a frontier to the reference codec's causes.
func WireCauses(c node.Causes) []wire.Cause {
	return appendWireCauses(make([]wire.Cause, 0, c.Len()), c)
}

// appendWireCauses appends frontier c's causes, converted to the reference codec's, to out.
func appendWireCauses(out []wire.Cause, c node.Causes) []wire.Cause {
	for _, p := range c.Pairs() {
		out = append(out, wire.Cause{Channel: wire.Channel{Topic: wire.TopicID(p.Channel.Topic), Partition: int32(p.Channel.Partition)},
			Position: int64(p.Position)})
	}
	return out
}

// EncodeCauses is the reference encoder's canonical value for a frontier.
func EncodeCauses(c node.Causes) []byte {
	var buf [16]wire.Cause // the causes live only until encoded
	return wire.Encode(appendWireCauses(buf[:0], c))
}

// StampReader reads an emission's headers with the reference decoder (ReadHeaders), reusing
// the reading of the previous emission when its one header holds the same bytes: a fan-out
// stamps one frontier on every emission of a delivery, and the reading is a function of the
// bytes. The bytes kept are a copy, never changed afterwards, so copies of a reader may share
// them.
type StampReader struct {
	value   []byte
	reading HeaderReading
	read    bool
}

// Read returns what hs mean as the reference decoder reads them, the causes carved from s.
func (r *StampReader) Read(hs []node.Header, s *slab) HeaderReading {
	one := len(hs) == 1 && hs[0].Key == node.HeaderKey
	if one && r.read && bytes.Equal(hs[0].Value, r.value) {
		return r.reading
	}
	hr := readHeaders(hs, true, s)
	if one && hs[0].Value != nil {
		r.value, r.reading, r.read = slices.Clone(hs[0].Value), hr, true
	}
	return hr
}

package statecodec

import (
	"encoding/binary"
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// codecReader decodes the committed-state format with a sticky error: after the first failure
// every read returns a zero value and the error names the first bad field and its byte offset.
// b is a private copy of the input, so decoded byte strings may alias it.
type codecReader struct {
	b   []byte
	off int
	err *node.Refusal
}

// fail records the first failure.
func (r *codecReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = &node.Refusal{Reason: node.ReasonUnknownOrderingStateFormat, Position: -1, // not about a position
			Detail: fmt.Sprintf("byte %d: %s", r.off, fmt.Sprintf(format, args...))}
	}
}

func (r *codecReader) remaining() int { return len(r.b) - r.off }

// magic checks the 3-byte header; a state may say version 0 (no version entry) when allowZero.
func (r *codecReader) magic(want [3]byte, allowZero bool) {
	if r.remaining() < 3 {
		r.fail("truncated header (%d bytes)", r.remaining())
		return
	}
	if r.b[0] != want[0] || r.b[1] != want[1] {
		r.fail("not an ordering %s: magic %q", map[byte]string{'S': "state", 'D': "delta"}[want[1]], r.b[:2])
		return
	}
	if v := r.b[2]; v != want[2] && !(allowZero && v == 0) {
		r.fail("unknown ordering state format version %d", v)
		return
	}
	r.off = 3
}

// end refuses trailing bytes.
func (r *codecReader) end() {
	if r.err == nil && r.remaining() > 0 {
		r.fail("%d trailing byte(s)", r.remaining())
	}
}

// uvarint reads a minimal unsigned varint.
func (r *codecReader) uvarint(what string) uint64 { return r.uvarintOf(what, "") }

// uvarintOf is uvarint for the field named what+suffix. The name is only joined on failure: a
// joined name would be a string allocated for every length and count of a decode.
func (r *codecReader) uvarintOf(what, suffix string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("%s%s: truncated or overlong varint", what, suffix)
		return 0
	}
	if n > 1 && r.b[r.off+n-1] == 0 {
		r.fail("%s%s: non-minimal varint", what, suffix)
		return 0
	}
	r.off += n
	return v
}

// count reads a list length and refuses one the remaining bytes cannot hold at minSize bytes per
// item, so nothing is allocated beyond what the input justifies.
func (r *codecReader) count(what string, minSize int) int {
	v := r.uvarintOf(what, " count")
	if r.err != nil {
		return 0
	}
	if v > uint64(r.remaining()/minSize) {
		r.fail("%s count %d exceeds what %d remaining bytes can hold", what, v, r.remaining())
		return 0
	}
	return int(v)
}

// int64 reads an 8-byte big-endian signed integer.
func (r *codecReader) int64(what string) int64 {
	if r.err != nil {
		return 0
	}
	if r.remaining() < positionBytes {
		r.fail("%s: truncated (%d of 8 bytes)", what, r.remaining())
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b[r.off:]))
	r.off += positionBytes
	return v
}

// bytes reads n raw bytes (aliasing the private copy).
func (r *codecReader) bytes(what string, n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(r.remaining()) {
		r.fail("%s: %d bytes announced, %d left", what, n, r.remaining())
		return nil
	}
	v := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return v
}

// optBytes reads a nullable byte string.
func (r *codecReader) optBytes(what string) []byte {
	n := r.uvarintOf(what, " length")
	if n == 0 || r.err != nil {
		return nil
	}
	return r.bytes(what, n-1)
}

// channel reads a channel; the zero topic ID and partitions above 2^31−1 are refused.
func (r *codecReader) channel() node.Channel {
	var ch node.Channel
	id := r.bytes("topic ID", topicIDBytes)
	if r.err != nil {
		return ch
	}
	copy(ch.Topic[:], id)
	if ch.Topic.IsZero() {
		r.fail("zero topic ID")
		return ch
	}
	p := r.uvarint("partition")
	if p > maxPartition {
		r.fail("partition %d out of range", p)
	}
	ch.Partition = node.Partition(p)
	return ch
}

// position reads a position in 0..limit.
func (r *codecReader) position(what string, limit node.Offset) node.Offset {
	return r.positionOf(what, "", limit)
}

// positionOf is position for the field named what+suffix, joined only on failure (uvarintOf).
func (r *codecReader) positionOf(what, suffix string, limit node.Offset) node.Offset {
	start := r.off
	if r.err != nil {
		return 0
	}
	if r.remaining() < positionBytes {
		r.fail("%s%s: truncated (%d of 8 bytes)", what, suffix, r.remaining())
		return 0
	}
	v := node.Offset(binary.BigEndian.Uint64(r.b[r.off:]))
	r.off += positionBytes
	if v < 0 || v > limit {
		r.off = start
		r.fail("%s%s %d out of range 0..%d", what, suffix, v, limit)
	}
	return v
}

// bindings reads a binding list (names strictly ascending, IDs non-zero).
func (r *codecReader) bindings() []node.Binding {
	n := r.count("bindings", minBindingBytes)
	var out []node.Binding
	if n > 0 {
		out = make([]node.Binding, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		name := string(r.bytes("binding name", r.uvarint("binding name length")))
		var b node.Binding
		copy(b.Topic[:], r.bytes("binding topic ID", topicIDBytes))
		b.Name = name
		if r.err == nil && (name == "" || b.Topic.IsZero() || (i > 0 && out[i-1].Name >= name)) {
			r.fail("binding %q -> %s is empty, zero or out of order", name, b.Topic)
		}
		out = append(out, b)
	}
	return out
}

// fed reads a fedUpTo list (channels strictly ascending; MaxOffset allowed: the deleted marker).
func (r *codecReader) fed() []node.FedPosition {
	n := r.count("fedUpTo", minPairBytes)
	var out []node.FedPosition
	if n > 0 {
		out = make([]node.FedPosition, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		f := node.FedPosition{Channel: r.channel()}
		f.FedUpTo = r.position("fedUpTo", node.MaxOffset)
		if r.err == nil && i > 0 && out[i-1].Channel.Compare(f.Channel) >= 0 {
			r.fail("fedUpTo channel %v out of order", f.Channel)
		}
		out = append(out, f)
	}
	return out
}

// pairs reads a frontier-like list; MaxOffset is refused (D105).
func (r *codecReader) pairs(what string) []node.Cause {
	n := r.count(what, minPairBytes)
	var out []node.Cause
	if n > 0 {
		out = make([]node.Cause, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		p := node.Cause{Channel: r.channel()}
		p.Position = r.positionOf(what, " position", node.MaxOffset-1)
		if r.err == nil && i > 0 && out[i-1].Channel.Compare(p.Channel) >= 0 {
			r.fail("%s channel %v out of order", what, p.Channel)
		}
		out = append(out, p)
	}
	return out
}

// channels reads a strictly ascending channel list.
func (r *codecReader) channels(what string) []node.Channel {
	n := r.count(what, minChannelBytes)
	var out []node.Channel
	if n > 0 {
		out = make([]node.Channel, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		ch := r.channel()
		if r.err == nil && i > 0 && out[i-1].Compare(ch) >= 0 {
			r.fail("%s channel %v out of order", what, ch)
		}
		out = append(out, ch)
	}
	return out
}

// hold reads one held message of channel ch.
func (r *codecReader) hold(ch node.Channel) node.HeldMessage {
	m := node.HeldMessage{Channel: ch}
	m.Position = r.position("hold position", node.MaxOffset-1)
	m.Record.Key = r.optBytes("key")
	m.Record.Value = r.optBytes("value")
	m.Record.TimestampMicros = r.int64("timestamp")
	n := r.count("headers", minHeaderBytes)
	if n > 0 {
		m.Record.Headers = make([]node.Header, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		key := string(r.bytes("header key", r.uvarint("header key length")))
		m.Record.Headers = append(m.Record.Headers, node.Header{Key: key, Value: r.optBytes("header value")})
	}
	start := r.off
	raw := r.bytes("held causes", r.uvarint("held causes length"))
	if r.err != nil {
		return m
	}
	causes, err := node.Decode(raw)
	if err != nil {
		r.off = start
		r.fail("held causes of %v@%d undecodable: %v", ch, m.Position, err)
	}
	m.Causes = causes
	return m
}

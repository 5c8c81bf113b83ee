package tiers

import (
	"encoding/binary"
	"errors"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// damageToken returns a copy of an encoded token damaged by d. It panics if the reference decoder
// (a token is a parsley.causes value) would still accept the result: the simulator must know every
// damaged token it sent, and whether a tier's own decoder refuses it is what SESSION_DAMAGED judges.
func damageToken(d spec.TokenDamage, token []byte) []byte {
	out := append([]byte(nil), token...)
	switch d {
	case spec.TokenTruncated:
		out = out[:len(out)-(1+(len(out)-1)/2)]
	case spec.TokenTrailing:
		out = append(out, 0x00)
	case spec.TokenBadVersion:
		out[0] = 0x63
	default:
		return out
	}
	if _, r := wire.Decode(out); r == nil {
		panic("tiers: a damaged token still decodes: " + d.String())
	}
	return out
}

// salvage is the sabotaged tiers' lenient token parser: it ignores the version byte and keeps the
// pairs read before the first malformation (truncation, a zero topic ID, a bad position, a bad
// varint), ignoring trailing bytes — the partial frontier a salvaging parser would trust.
func salvage(b []byte) node.Causes {
	var out node.Causes
	topics, off, ok := lenientVarint(b, 1)
	for g := uint32(0); ok && g < topics; g++ {
		if len(b)-off < 16 {
			break
		}
		var id node.TopicID
		copy(id[:], b[off:off+16])
		var count uint32
		count, off, ok = lenientVarint(b, off+16)
		for i := uint32(0); ok && i < count; i++ {
			var part uint32
			part, off, ok = lenientVarint(b, off)
			if !ok || len(b)-off < 8 || id.IsZero() {
				return out
			}
			pos := int64(binary.BigEndian.Uint64(b[off : off+8]))
			off += 8
			if pos < 0 || node.Offset(pos) == node.MaxOffset || part > 1<<30 {
				return out
			}
			out.Merge(node.Channel{Topic: id, Partition: node.Partition(part)}, node.Offset(pos))
		}
	}
	return out
}

// lenientVarint reads a base-128 varint of at most five bytes at off.
func lenientVarint(b []byte, off int) (uint32, int, bool) {
	var v uint32
	for i := 0; i < 5; i++ {
		if off >= len(b) {
			return 0, off, false
		}
		c := b[off]
		off++
		v |= uint32(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			return v, off, true
		}
	}
	return 0, off, false
}

// tierDecode is both tiers' gateway for an inbound token: a strict, bounded decode
// (session.DecodeBounded). Under TOKEN_SALVAGE a token that does not decode is salvaged instead.
func (s *Actors) tierDecode(encoded []byte) (session.CausalPast, error) {
	token, err := session.DecodeBounded(encoded, s.entriesMax, s.bytesMax)
	var de *node.DecodeError
	if err != nil && s.mode == spec.SessionTokenSalvage && errors.As(err, &de) {
		return session.Of(salvage(encoded)), nil
	}
	return token, err
}

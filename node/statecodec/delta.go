package statecodec

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/node"
)

// deltaFlagVersion is the flags bit of Delta.SetVersion; every other bit must be clear.
const deltaFlagVersion = 0x01

// EncodeDelta returns the binary form of the delta (format in the package comment).
func EncodeDelta(d node.Delta) []byte {
	b := append([]byte(nil), deltaMagic[:]...)
	var flags byte
	if d.SetVersion {
		flags |= deltaFlagVersion
	}
	b = append(b, flags)
	b = appendBindings(b, d.Bindings)
	b = appendFed(b, d.Fed)
	b = appendChannels(b, d.FrontierRemoved)
	b = appendPairs(b, d.Frontier)
	b = appendChannels(b, d.PastRemoved)
	b = appendPairs(b, d.Past)
	b = binaryUvarint(b, uint64(len(d.RemovedHolds)))
	for _, h := range d.RemovedHolds {
		b = appendChannel(b, h.Channel)
		b = binary.BigEndian.AppendUint64(b, uint64(h.Position))
	}
	b = binaryUvarint(b, uint64(len(d.NewHolds)))
	for _, m := range d.NewHolds {
		b = appendChannel(b, m.Channel)
		b = appendHold(b, m)
	}
	return b
}

// DecodeDelta strictly decodes a delta; failures are *node.Refusal with reason
// UNKNOWN_ORDERING_STATE_FORMAT. Removed and new holds must be strictly ascending by channel then
// position. Whether the delta fits a state is State.Apply's to judge.
func DecodeDelta(b []byte) (node.Delta, error) {
	r := codecReader{b: append([]byte(nil), b...)}
	r.magic(deltaMagic, false)
	var d node.Delta
	if r.err == nil {
		if r.remaining() < 1 {
			r.fail("truncated flags")
		} else if f := r.b[r.off]; f&^deltaFlagVersion != 0 {
			r.fail("unknown flags 0x%02x", f)
		} else {
			d.SetVersion = f&deltaFlagVersion != 0
			r.off++
		}
	}
	d.Bindings = r.bindings()
	d.Fed = r.fed()
	d.FrontierRemoved = r.channels("frontier removal")
	d.Frontier = r.pairs("frontier")
	d.PastRemoved = r.channels("delivered past removal")
	d.Past = r.pairs("delivered past")
	n := r.count("removed holds", minPairBytes)
	for i := 0; i < n && r.err == nil; i++ {
		h := node.HoldRef{Channel: r.channel()}
		h.Position = r.position("removed hold position", node.MaxOffset-1)
		if r.err == nil && i > 0 && !holdRefLess(d.RemovedHolds[i-1], h) {
			r.fail("removed hold %v@%d out of order", h.Channel, h.Position)
		}
		d.RemovedHolds = append(d.RemovedHolds, h)
	}
	n = r.count("new holds", minChannelBytes+minHoldBytes)
	for i := 0; i < n && r.err == nil; i++ {
		m := r.hold(r.channel())
		if r.err == nil && i > 0 && !holdRefLess(node.HoldRef{Channel: d.NewHolds[i-1].Channel, Position: d.NewHolds[i-1].Position}, node.HoldRef{Channel: m.Channel, Position: m.Position}) {
			r.fail("new hold %v@%d out of order", m.Channel, m.Position)
		}
		d.NewHolds = append(d.NewHolds, m)
	}
	r.end()
	if r.err != nil {
		return node.Delta{}, r.err
	}
	return d, nil
}

// holdRefLess orders hold references by channel, then position.
func holdRefLess(a, b node.HoldRef) bool {
	if r := a.Channel.Compare(b.Channel); r != 0 {
		return r < 0
	}
	return a.Position < b.Position
}

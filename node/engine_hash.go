package node

import "encoding/binary"

// Canonical encodings of an ordering state, for the simulator's exhaustive explorer, which hashes
// every state it reaches to deduplicate them. The explorer encodes the state of the one engine a
// transition changed; building a Snapshot for that allocated a copy of the whole state, so an
// engine encodes itself directly, byte for byte as its Snapshot would.

// CanonicalEncoder appends channels and topic IDs in the caller's canonical form (the explorer
// names them by creation order, so the encoding does not depend on the ID values).
type CanonicalEncoder interface {
	AppendChannel(b []byte, ch Channel) []byte
	AppendTopic(b []byte, id TopicID) []byte
}

// AppendCanonical appends a canonical encoding of s: its version, bindings, fedUpTo positions,
// frontier, delivered past and held messages (position, key, value, header count and causes),
// with channels and topics written by enc. Two states with equal encodings are equal up to the
// encoder's naming and the held records' headers other than their count.
func (s *State) AppendCanonical(b []byte, enc CanonicalEncoder) []byte {
	b = binary.AppendUvarint(b, uint64(s.version))
	b = appendCanonicalBindings(b, s.bindings, enc)
	for _, f := range s.fed {
		b = appendCanonicalFed(b, f, enc)
	}
	b = append(b, 0)
	b = appendCanonicalCauses(b, s.frontier, enc)
	b = appendCanonicalCauses(b, s.past, enc)
	for i := range s.holds {
		h := &s.holds[i]
		live := h.queue.live()
		b = enc.AppendChannel(b, h.ch)
		b = binary.AppendUvarint(b, uint64(len(live)))
		for j := range live {
			b = appendCanonicalHeld(b, &live[j], enc)
		}
	}
	return append(b, 0)
}

// AppendCanonical appends exactly what e.Snapshot().AppendCanonical(b, enc) appends, without
// building the snapshot: fedUpTo merges the received channels with the retained ones (both in
// channel order), and under SabotageDropHeld holds not yet flushed are left out as Snapshot
// leaves them out.
func (e *Engine) AppendCanonical(b []byte, enc CanonicalEncoder) []byte {
	b = binary.AppendUvarint(b, stateVersion)
	b = appendCanonicalBindings(b, e.bindings, enc)
	r := 0
	for i := range e.chans {
		c := &e.chans[i]
		if !c.fedKnown {
			continue
		}
		for ; r < len(e.retained) && compareChannels(e.retained[r].Channel, c.ch) < 0; r++ {
			b = appendCanonicalFed(b, e.retained[r], enc)
		}
		b = appendCanonicalFed(b, FedPosition{Channel: c.ch, FedUpTo: c.fed}, enc)
	}
	for ; r < len(e.retained); r++ {
		b = appendCanonicalFed(b, e.retained[r], enc)
	}
	b = append(b, 0)
	b = appendCanonicalCauses(b, e.frontier, enc)
	b = appendCanonicalCauses(b, e.past, enc)
	for i := range e.chans {
		c := &e.chans[i]
		n := len(c.held.restored) // flushed: always in the snapshot
		for _, h := range c.held.own.live() {
			if e.keepsInSnapshot(h.state) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		b = enc.AppendChannel(b, c.ch)
		b = binary.AppendUvarint(b, uint64(n))
		for j := range c.held.restored {
			b = appendCanonicalHeld(b, &c.held.restored[j], enc)
		}
		own := c.held.own.live()
		for j := range own {
			if e.keepsInSnapshot(own[j].state) {
				b = appendCanonicalHeld(b, &own[j].msg, enc)
			}
		}
	}
	return append(b, 0)
}

// AppendCanonicalFloors appends, per received channel in channel order, whether its session
// floor is known and the floor.
func (e *Engine) AppendCanonicalFloors(b []byte) []byte {
	for i := range e.chans {
		c := &e.chans[i]
		if c.floorKnown {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendVarint(b, int64(c.floor))
	}
	return b
}

// keepsInSnapshot reports whether Snapshot includes a hold in state st.
func (e *Engine) keepsInSnapshot(st holdState) bool {
	return e.opts.Sabotage != SabotageDropHeld || st == holdFlushed
}

func appendCanonicalBindings(b []byte, bindings []Binding, enc CanonicalEncoder) []byte {
	for _, bd := range bindings {
		b = binary.AppendUvarint(b, uint64(len(bd.Name)))
		b = append(b, bd.Name...)
		b = enc.AppendTopic(b, bd.Topic)
	}
	return append(b, 0)
}

func appendCanonicalFed(b []byte, f FedPosition, enc CanonicalEncoder) []byte {
	b = enc.AppendChannel(b, f.Channel)
	return binary.AppendVarint(b, int64(f.FedUpTo))
}

func appendCanonicalCauses(b []byte, c Causes, enc CanonicalEncoder) []byte {
	b = binary.AppendUvarint(b, uint64(len(c.pairs)))
	for _, p := range c.pairs {
		b = enc.AppendChannel(b, p.Channel)
		b = binary.AppendVarint(b, int64(p.Position))
	}
	return b
}

func appendCanonicalHeld(b []byte, m *HeldMessage, enc CanonicalEncoder) []byte {
	b = binary.AppendVarint(b, int64(m.Position))
	b = binary.AppendUvarint(b, uint64(len(m.Record.Key)))
	b = append(b, m.Record.Key...)
	b = binary.AppendUvarint(b, uint64(len(m.Record.Value)))
	b = append(b, m.Record.Value...)
	b = binary.AppendUvarint(b, uint64(len(m.Record.Headers)))
	return appendCanonicalCauses(b, m.Causes, enc)
}

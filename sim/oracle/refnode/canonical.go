package refnode

import "encoding/binary"

// Canonical encodings of the model's state, for the simulator's explorer, whose state hash must
// tell apart worlds whose reference nodes differ. Channels and topic IDs are written by the
// caller's Encoder (the explorer names them by creation order); every list is in its own order.

// Encoder appends a channel or a topic ID in the caller's canonical form.
type Encoder interface {
	AppendChannel(b []byte, c Channel) []byte
	AppendTopic(b []byte, t TopicID) []byte
}

// AppendCanonical appends a canonical encoding of s (nil: the empty state). Held records are
// written as key, value, header count and causes.
func (s *State) AppendCanonical(b []byte, enc Encoder) []byte {
	if s == nil {
		s = &State{}
	}
	b = binary.AppendUvarint(b, uint64(s.Version))
	return appendPersisted(b, s.Bindings, s.Fed, s.Held, s.Frontier, s.Past, enc)
}

// AppendCanonical appends a canonical encoding of the execution n: its received set, send
// topics, budget, the state it would commit but its version entry (0 exactly until the
// execution's first commit, which the committed state beside it tells, and read by nothing but a
// commit), its floors, last fed positions, whether its identity report came, and its refusal's
// reason.
func (n *Node) AppendCanonical(b []byte, enc Encoder) []byte {
	b = binary.AppendUvarint(b, uint64(len(n.received)))
	for _, c := range n.received {
		b = enc.AppendChannel(b, c)
	}
	b = binary.AppendUvarint(b, uint64(len(n.sends)))
	for _, t := range n.sends {
		b = enc.AppendTopic(b, t)
	}
	b = binary.AppendUvarint(b, uint64(n.budget))
	b = appendPersisted(b, n.bindings, n.fed, n.held, n.frontier, n.past, enc)
	b = appendPositions(b, n.floor, enc)
	b = appendPositions(b, n.lastFed, enc)
	if n.identityDone {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	if n.refusal != nil {
		b = append(b, n.refusal.Reason...)
	}
	return append(b, 0)
}

func appendPersisted(b []byte, bindings []Binding, fed Positions, held []Buffer, frontier, past Positions, enc Encoder) []byte {
	b = binary.AppendUvarint(b, uint64(len(bindings)))
	for _, bd := range bindings {
		b = binary.AppendUvarint(b, uint64(len(bd.Name)))
		b = append(b, bd.Name...)
		b = enc.AppendTopic(b, bd.Topic)
	}
	b = appendPositions(b, fed, enc)
	b = appendPositions(b, frontier, enc)
	b = appendPositions(b, past, enc)
	b = binary.AppendUvarint(b, uint64(len(held)))
	for _, buf := range held {
		b = enc.AppendChannel(b, buf.Channel)
		b = binary.AppendUvarint(b, uint64(len(buf.Messages)))
		for _, m := range buf.Messages {
			b = binary.AppendVarint(b, int64(m.Position))
			b = binary.AppendUvarint(b, uint64(len(m.Record.Key)))
			b = append(b, m.Record.Key...)
			b = binary.AppendUvarint(b, uint64(len(m.Record.Value)))
			b = append(b, m.Record.Value...)
			b = binary.AppendUvarint(b, uint64(len(m.Record.Headers)))
			b = appendPositions(b, m.Causes, enc)
		}
	}
	return b
}

func appendPositions(b []byte, p Positions, enc Encoder) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	for _, e := range p {
		b = enc.AppendChannel(b, e.Channel)
		b = binary.AppendVarint(b, int64(e.Position))
	}
	return b
}

package oracle

import "github.com/parsleysim/parsleysim/node"

// slab is the storage an oracle makes its messages and their frontiers in (a record's true past,
// the causes its header expresses, a stamp): it carves them from blocks, so that a record costs
// an allocation per block rather than one for the message and one per frontier. What it carves
// may be shared with clones, and is never changed in place then (Oracle.changeMsg); the room left
// in a block is the oracle's own, so a clone starts on blocks of its own (Oracle.CloneFrom).
type slab struct {
	msgs   []Message    // the current block of messages: the carved ones, then room up to its capacity
	causes []node.Cause // the current block of frontier entries, likewise
}

// The length of a slab's blocks: each twice its predecessor's (the first just what is carved
// from it), up to a most. An explored transition's clone, which starts a slab of its own, makes
// a message or two, so its blocks stay small; a run's soon reach the most.
const (
	slabMsgsMax   = 64
	slabCausesMax = 1024
)

// message carves a copy of m.
func (s *slab) message(m *Message) *Message {
	if len(s.msgs) == cap(s.msgs) {
		s.msgs = make([]Message, 0, min(max(2*cap(s.msgs), 1), slabMsgsMax))
	}
	s.msgs = append(s.msgs, *m)
	return &s.msgs[len(s.msgs)-1]
}

// room carves room for a frontier of n entries, whose capacity ends where the next carving begins.
func (s *slab) room(n int) []node.Cause {
	if cap(s.causes)-len(s.causes) < n {
		s.causes = make([]node.Cause, 0, max(n, min(2*cap(s.causes), slabCausesMax)))
	}
	at := len(s.causes)
	s.causes = s.causes[:at+n]
	return s.causes[at : at : at+n]
}

// withRoom returns a copy of c, carved from the slab, with room for extra more channels, so that
// merging them into the copy does not allocate again.
func (s *slab) withRoom(c node.Causes, extra int) node.Causes {
	return c.CloneInto(s.room(c.Len() + extra))
}

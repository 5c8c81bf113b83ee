package tiers

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/node/session"
)

// The session actors' part of the world's canonical state: per client its session number,
// flags, pending damage and token, then the oracle's truth of its session
// (oracle.AppendSessionClient); per projector its projection (recorded past, then the oracle's
// rows and true past, oracle.AppendProjection, then the row count and staged rows); the session
// and operation counters. Like the rest of the world's encoding it names channels by world
// channel index (a token's topic IDs included) and messages by coordinate, never by uid, through
// the oracle's encoders. The spec, the read models and the tier's transactional producer are
// fixed after construction (a session write opens and closes its transaction within its step),
// so they are out.

// AppendCanonical appends the canonical encoding of the session actors to b (a marker alone for a
// nil Actors: a run without sessions).
func (s *Actors) AppendCanonical(b []byte) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(s.nextSession))
	b = binary.AppendUvarint(b, uint64(s.ops))
	for i := range s.clients {
		b = s.appendClient(b, i)
	}
	for i, pr := range s.projections {
		b = s.appendProjection(b, i, pr)
	}
	return b
}

// appendClient appends one client. Its token is minted by a tier and so always decodes; it is
// encoded as the frontier it carries.
func (s *Actors) appendClient(b []byte, c int) []byte {
	cl := &s.clients[c]
	b = binary.AppendUvarint(b, uint64(cl.session))
	b = append(b, byte(cl.damage))
	b = appendBool(b, cl.reading)
	b = binary.AppendUvarint(b, uint64(cl.waiting))
	token, err := session.Decode(cl.token)
	if err != nil {
		panic("tiers: a client holds a token that does not decode: " + err.Error())
	}
	b = s.or.AppendCauses(b, token.Causes())
	return s.or.AppendSessionClient(b, &s.truth, c)
}

// appendProjection appends one process's projection (a marker for a process that projects
// nothing).
func (s *Actors) appendProjection(b []byte, p int, pr *projection) []byte {
	if pr == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = s.or.AppendCauses(b, pr.recorded)
	b = s.or.AppendProjection(b, &s.truth, p)
	b = binary.AppendUvarint(b, uint64(pr.rows))
	b = binary.AppendUvarint(b, uint64(len(pr.staged)))
	for _, uid := range pr.staged {
		b = s.or.AppendMsgRef(b, uid)
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

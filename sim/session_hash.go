package sim

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/node/session"
)

// The session actors' part of the canonical state (world_hash.go): per client its session
// number, flags, pending damage, token, true past and the committed writes and served reads of
// its session; per projector its projection (recorded past, rows, true past, staged rows); the
// session and operation counters. Like the rest of the encoding it names channels by world
// channel index (a token's topic IDs included) and messages by coordinate, never by uid. The
// spec, the read models and the tier's transactional producer are fixed after construction (a
// session write opens and closes its transaction within its step), so they are out.

// appendSession appends the canonical encoding of the session actors (nothing without sessions).
func appendSession(b []byte, s *sessionWorld) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(s.nextSession))
	b = binary.AppendUvarint(b, uint64(s.ops))
	for i := range s.clients {
		b = s.appendClient(b, &s.clients[i])
	}
	for _, pr := range s.projections {
		b = s.appendProjection(b, pr)
	}
	return b
}

// appendClient appends one client. Its token is minted by a tier and so always decodes; it is
// encoded as the frontier it carries.
func (s *sessionWorld) appendClient(b []byte, cl *sessionClient) []byte {
	w := s.w
	b = binary.AppendUvarint(b, uint64(cl.session))
	b = append(b, byte(cl.damage))
	b = appendBool(b, cl.reading)
	b = binary.AppendUvarint(b, uint64(cl.waiting))
	token, err := session.Decode(cl.token)
	if err != nil {
		panic("sim: a client holds a token that does not decode: " + err.Error())
	}
	b = appendCauses(b, w, token.Causes())
	b = appendCauses(b, w, cl.truth)
	b = binary.AppendUvarint(b, uint64(len(cl.writes)))
	for _, wr := range cl.writes {
		b = binary.AppendUvarint(b, uint64(wr.op))
		b = appendMsgRef(b, w, wr.uid)
	}
	b = binary.AppendUvarint(b, uint64(len(cl.reads)))
	for _, r := range cl.reads {
		b = binary.AppendUvarint(b, uint64(r.op))
		b = appendBytes(b, []byte(r.model))
		b = appendCauses(b, w, r.rows)
	}
	return b
}

// appendProjection appends one process's projection (a marker for a process that projects
// nothing).
func (s *sessionWorld) appendProjection(b []byte, pr *projection) []byte {
	if pr == nil {
		return append(b, 0)
	}
	w := s.w
	b = append(b, 1)
	b = appendCauses(b, w, pr.recorded)
	b = appendCauses(b, w, pr.own)
	b = appendCauses(b, w, pr.truth)
	b = binary.AppendUvarint(b, uint64(pr.rows))
	b = binary.AppendUvarint(b, uint64(len(pr.staged)))
	for _, uid := range pr.staged {
		b = appendMsgRef(b, w, uid)
	}
	return b
}

package sim

// Session guarantees (SPEC §5.4), judged against the oracle's ground truth — the
// true past of each served projection and the coordinates of the session's committed writes and
// of the rows each read served — never against a recorded past or a token a tier computed:
//
//   - SESSION_RYW: a served read reflects every committed, acknowledged write of its session.
//   - SESSION_MR: a served read reflects every row an earlier read of its session served.
//   - SESSION_WFR: a write carries in its parsley.causes every row its session read before; the
//     ordinary S1 check then judges every process that delivers both, since the oracle gives the
//     write the session's true past.
//   - SESSION_COVERAGE: a served read's true past covers the token the client presented.
//   - SESSION_TOKEN: a token handed to a client names only acknowledged committed records, or
//     a position a forged or corrupted header named (its writer's breach of constraint 8, which
//     a projector records and a tier cannot tell from a true one).
//   - SESSION_DAMAGED: no tier acts on the contents of a token the simulator damaged in flight.
//
// Each violation names the client, its session, the operations and the positions. A read the
// tier refuses or answers "retry" is never a violation: failing closed is always allowed (a read
// model that never receives a written channel must refuse forever, by design).

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// violate records a session violation about client c.
func (s *sessionWorld) violate(crit spec.Criterion, c int, detail string, msgs ...uint64) {
	prefix := fmt.Sprintf("client %d session %d: ", c, s.clients[c].session)
	s.w.violate(crit, -1, prefix+detail, msgs...)
}

// checkServed runs the read-time checks on a served read.
func (s *sessionWorld) checkServed(c, op int, m *readModel, served []int, presented []byte) {
	s.checkCoverage(c, op, m, served, presented)
	s.checkRYW(c, op, m, served)
	s.checkMR(c, op, m, served)
}

// checkCoverage: every served partition's true past covers the token the client presented. The
// token is read with the reference decoder (its bytes are a parsley.causes value) and compared
// pair by pair, so neither the tiers' token codec nor their coverage check judges itself; a token
// the reference refuses, handed back by an earlier operation, breaks SESSION_TOKEN.
func (s *sessionWorld) checkCoverage(c, op int, m *readModel, served []int, presented []byte) {
	pairs, r := wire.Decode(presented)
	if r != nil {
		s.violate(spec.CritSessionToken, c, fmt.Sprintf("read op %d of %s presented a token a tier handed back, which does not decode: %v", op, m.spec.Name, r))
		return
	}
	token := oracle.CausesFromWire(pairs)
	for _, p := range served {
		truth := s.projections[p].truth
		if ch, pos, ok := oracle.FirstUncovered(truth, token); ok {
			s.violate(spec.CritSessionCoverage, c, fmt.Sprintf("read op %d of %s served by %s, whose true past does not cover the token %s: %s needs %d, true past has %s",
				op, m.spec.Name, s.w.procs[p].spec.Name, session.Of(token), s.w.or.NodeChanName(ch), pos, oracle.TruePos(truth, ch)))
			return
		}
	}
}

// checkRYW: every served partition's true past reflects each committed write of the session.
func (s *sessionWorld) checkRYW(c, op int, m *readModel, served []int) {
	for _, wr := range s.clients[c].writes {
		msg := s.w.or.Msg(wr.uid)
		nc := s.w.or.Channel(msg.Ch)
		for _, p := range served {
			if got, ok := s.projections[p].truth.Lookup(nc); !ok || int64(got) < msg.Pos {
				s.violate(spec.CritSessionRYW, c, fmt.Sprintf("read op %d of %s served by %s reflects %s only up to %s, but write op %d was acknowledged at %s:%d (%s)",
					op, m.spec.Name, s.w.procs[p].spec.Name, s.w.or.ChanName(msg.Ch), oracle.TruePos(s.projections[p].truth, nc),
					wr.op, s.w.or.ChanName(msg.Ch), msg.Pos, s.w.or.MsgName(wr.uid)), wr.uid)
				return
			}
		}
	}
}

// checkMR: every served partition's true past reflects every row an earlier read served.
func (s *sessionWorld) checkMR(c, op int, m *readModel, served []int) {
	for _, r := range s.clients[c].reads {
		for _, p := range served {
			truth := s.projections[p].truth
			if ch, pos, ok := oracle.FirstUncovered(truth, r.rows); ok {
				s.violate(spec.CritSessionMR, c, fmt.Sprintf("read op %d of %s served by %s reflects %s only up to %s, but the earlier read op %d of %s served the row at %d",
					op, m.spec.Name, s.w.procs[p].spec.Name, s.w.or.NodeChanName(ch), oracle.TruePos(truth, ch), r.op, r.model, pos))
				return
			}
		}
	}
}

// checkWFR: committed write uid carries every row its session read before.
func (s *sessionWorld) checkWFR(c, op int, uid uint64) {
	msg := s.w.or.Msg(uid)
	for _, r := range s.clients[c].reads {
		if ch, pos, ok := oracle.FirstUncovered(msg.Expressed, r.rows); ok {
			s.violate(spec.CritSessionWFR, c, fmt.Sprintf("write op %d (%s) carries %s only up to %s, but the earlier read op %d of %s served the row at %d",
				op, s.w.or.MsgName(uid), s.w.or.NodeChanName(ch), oracle.TruePos(msg.Expressed, ch), r.op, r.model, pos), uid)
			return
		}
	}
}

// checkToken: every pair of a token a tier minted names an acknowledged committed record.
func (s *sessionWorld) checkToken(c, op int, what string, minted session.CausalPast) {
	for _, pair := range minted.Causes().Pairs() {
		ch := s.w.or.NodeChan(pair.Channel)
		if ch >= 0 && s.w.or.RecordAt(ch, int64(pair.Position)) != 0 || s.w.or.ForgedClaim(pair) {
			continue
		}
		state := "no record"
		if ch >= 0 && int64(pair.Position) < int64(len(s.w.or.Slots(ch))) {
			if uid := s.w.or.Slots(ch)[pair.Position]; uid != 0 {
				state = "a " + s.w.or.Msg(uid).State.String() + " record"
			}
		}
		s.violate(spec.CritSessionToken, c, fmt.Sprintf("%s op %d handed back a token naming %s:%d, which is %s, not an acknowledged committed record (token %s)",
			what, op, s.w.or.NodeChanName(pair.Channel), pair.Position, state, minted))
		return
	}
}

// checkDamaged: a tier that accepted a token the simulator damaged acted on its contents.
func (s *sessionWorld) checkDamaged(c, op int, damage spec.TokenDamage, did string) {
	if damage == spec.TokenIntact {
		return
	}
	s.violate(spec.CritSessionDamaged, c, fmt.Sprintf("op %d: the tier accepted a token damaged in flight (%s) instead of refusing it: %s", op, damage, did))
}

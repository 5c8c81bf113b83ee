package sim

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// The write tier (SPEC §5.3 write path): decode and bound the inbound token (an undecodable or
// oversized token is refused and the client starts a new session — never salvaged), produce the
// record with the token's pairs as its parsley.causes, and merge into the token only the
// coordinate the broker acknowledged; for a transactional write only after the commit, and not at
// all when the transaction aborts (the write failed; the client keeps its token).

// sessionWrite is one write by client c to live channel ch.
type sessionWrite struct {
	client  int
	op      int
	ch      int32
	txn     bool
	commit  bool
	damaged spec.TokenDamage
	uid     uint64
	pos     int64
	minted  session.CausalPast
	refusal string
}

// write performs one session write.
func (s *sessionWorld) write(c int, ch int32, txn, commit bool) {
	w := s.w
	cl := &s.clients[c]
	wr := sessionWrite{client: c, op: s.nextOp(), ch: ch, txn: txn, commit: commit, damaged: cl.damage}
	sent := s.inFlight(cl)
	token, err := s.tierDecode(sent)
	if err != nil {
		wr.refusal = err.Error()
		s.refused(c, &wr.op, "write", wr.refusal)
		return
	}
	header := token.Encode()
	key, value := w.payload()
	rec := substrate.Record{Key: key, Value: value, TimestampMicros: w.clock.Now(),
		Headers: []substrate.Header{{Key: node.HeaderKey, Value: header}}}
	m := oracle.Message{Ch: ch, Sender: -1, Kind: oracle.MsgSession, Expressed: token.Causes(), HeaderLen: len(header)}
	if txn {
		wr.minted = s.produceTxn(&wr, token, rec, m)
	} else {
		off, perr := w.sub.Produce(w.chans[ch].tp, rec, substrate.ProduceIdempotent)
		must(perr)
		m.Pos, m.State = int64(off), oracle.MsgCommitted
		wr.uid, wr.pos = w.or.OnSessionProduced(&s.truth, c, m, w.clock.Now()), int64(off)
		w.noteCommitted(wr.uid)
		wr.minted = s.mergeAck(token, ch, wr.pos)
	}
	w.refreshLSO(ch)
	w.stats.Produced++
	s.count("writes")
	committed := w.or.Msg(wr.uid).State == oracle.MsgCommitted
	if committed && w.tracing {
		w.emitChan("produced", nil, ch, wr.pos, wr.uid, oracle.MsgSession.String())
	}
	s.traceWrite(&wr, committed)
	w.or.OnTokenAccepted(w.at(), &s.truth, c, wr.op, wr.damaged, fmt.Sprintf("write op %d produced %s", wr.op, w.or.MsgName(wr.uid)))
	w.or.OnSessionWrite(w.at(), &s.truth, c, wr.op, wr.uid, committed, wr.minted.Causes())
	cl.token, cl.reading = wr.minted.Encode(), true
}

// produceTxn writes the record through the tier's transactional producer and commits or aborts
// the transaction, returning the token to hand back.
func (s *sessionWorld) produceTxn(wr *sessionWrite, token session.CausalPast, rec substrate.Record, m oracle.Message) session.CausalPast {
	w := s.w
	must(w.sub.BeginTransaction(s.txn))
	off, err := w.sub.ProduceTx(s.txn, w.chans[wr.ch].tp, rec)
	must(err)
	m.Pos, m.State = int64(off), oracle.MsgPending
	wr.uid, wr.pos = w.or.OnSessionProduced(&s.truth, wr.client, m, w.clock.Now()), int64(off)
	if s.mode == spec.SessionWriteMergesBeforeCommit {
		token = mergeCoordinate(token, w.chans[wr.ch].nc, wr.pos)
	}
	if !wr.commit {
		must(w.sub.AbortTransaction(s.txn))
		w.or.SetState(wr.uid, oracle.MsgAborted)
		s.count("writes_aborted")
		return token
	}
	must(w.sub.CommitTransaction(s.txn))
	w.or.SetState(wr.uid, oracle.MsgCommitted)
	w.noteCommitted(wr.uid)
	return s.mergeAck(token, wr.ch, wr.pos)
}

// mergeAck merges the coordinate a produce acknowledgement (or a commit) confirmed: the
// acknowledged offset, or under WRITE_MERGES_LOG_END the high watermark read after it.
func (s *sessionWorld) mergeAck(token session.CausalPast, ch int32, acked int64) session.CausalPast {
	pos := acked
	if s.mode == spec.SessionWriteMergesLogEnd {
		pos = int64(s.w.offsets(ch).HighWatermark)
	}
	return mergeCoordinate(token, s.w.chans[ch].nc, pos)
}

// mergeCoordinate merges one real coordinate into a token.
func mergeCoordinate(token session.CausalPast, nc node.Channel, pos int64) session.CausalPast {
	out, err := token.Merge(nc, node.Offset(pos))
	if err != nil {
		panic("sim: merging a produced coordinate: " + err.Error())
	}
	return out
}

// inFlight returns the bytes client cl's request carries: its token, damaged if the simulator
// damaged it in flight. The damage is consumed.
func (s *sessionWorld) inFlight(cl *sessionClient) []byte {
	d := cl.damage
	cl.damage = spec.TokenIntact
	if d == spec.TokenIntact {
		return cl.token
	}
	s.count("damaged_sent")
	return damageToken(d, cl.token)
}

// refused handles a tier's refusal of an inbound token: the client starts a new session.
func (s *sessionWorld) refused(c int, op *int, what, why string) {
	s.count("token_refused")
	if s.w.tracing {
		s.w.emitRaw("session-refused", -1, fmt.Sprintf("client %d session %d %s op %d: token refused: %s",
			c, s.clients[c].session, what, *op, why))
	}
	s.newSession(c)
}

// traceWrite emits the write's event.
func (s *sessionWorld) traceWrite(wr *sessionWrite, committed bool) {
	if !s.w.tracing {
		return
	}
	state := "committed"
	switch {
	case wr.txn && !committed:
		state = "txn aborted"
	case wr.txn:
		state = "txn committed"
	}
	s.w.emitChan("session-write", nil, wr.ch, wr.pos, wr.uid, fmt.Sprintf("client %d session %d op %d %s; token now %s",
		wr.client, s.clients[wr.client].session, wr.op, state, wr.minted))
}

// nextOp numbers the next session operation.
func (s *sessionWorld) nextOp() int {
	s.ops++
	return s.ops
}

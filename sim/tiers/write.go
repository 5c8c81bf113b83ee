package tiers

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
func (s *Actors) write(c int, ch int32, txn, commit bool) {
	h := s.host
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
	key, value := h.Payload()
	now := h.At().Micros
	rec := substrate.Record{Key: key, Value: value, TimestampMicros: now,
		Headers: []substrate.Header{{Key: node.HeaderKey, Value: header}}}
	m := oracle.Message{Ch: ch, Sender: -1, Kind: oracle.MsgSession, Expressed: token.Causes(), HeaderLen: len(header)}
	if txn {
		wr.minted = s.produceTxn(&wr, token, rec, m)
	} else {
		off, perr := s.sub.Produce(s.partition(ch), rec, substrate.ProduceIdempotent)
		must(perr)
		m.Pos, m.State = int64(off), oracle.MsgCommitted
		wr.uid, wr.pos = s.or.OnSessionProduced(&s.truth, c, m, now), int64(off)
		wr.minted = s.mergeAck(token, ch, wr.pos)
	}
	committed := s.or.Msg(wr.uid).State == oracle.MsgCommitted
	h.Produced(ch, wr.pos, wr.uid, committed)
	h.Count("writes")
	s.traceWrite(&wr, committed)
	s.or.OnTokenAccepted(h.At(), &s.truth, c, wr.op, wr.damaged, func() string {
		return fmt.Sprintf("write op %d produced %s", wr.op, s.or.MsgName(wr.uid))
	})
	s.or.OnSessionWrite(h.At(), &s.truth, c, wr.op, wr.uid, committed, wr.minted.Causes())
	cl.token, cl.reading = wr.minted.Encode(), true
}

// partition returns channel ch as the substrate names it.
func (s *Actors) partition(ch int32) substrate.TopicPartition {
	nc := s.or.Channel(ch)
	return substrate.TopicPartition{Topic: substrate.TopicID(nc.Topic), Partition: substrate.Partition(nc.Partition)}
}

// produceTxn writes the record through the tier's transactional producer and commits or aborts
// the transaction, returning the token to hand back.
func (s *Actors) produceTxn(wr *sessionWrite, token session.CausalPast, rec substrate.Record, m oracle.Message) session.CausalPast {
	must(s.sub.BeginTransaction(s.txn))
	off, err := s.sub.ProduceTx(s.txn, s.partition(wr.ch), rec)
	must(err)
	m.Pos, m.State = int64(off), oracle.MsgPending
	wr.uid, wr.pos = s.or.OnSessionProduced(&s.truth, wr.client, m, rec.TimestampMicros), int64(off)
	if s.mode == spec.SessionWriteMergesBeforeCommit {
		token = mergeCoordinate(token, s.or.Channel(wr.ch), wr.pos)
	}
	if !wr.commit {
		must(s.sub.AbortTransaction(s.txn))
		s.or.SetState(wr.uid, oracle.MsgAborted)
		s.host.Count("writes_aborted")
		return token
	}
	must(s.sub.CommitTransaction(s.txn))
	s.or.SetState(wr.uid, oracle.MsgCommitted)
	return s.mergeAck(token, wr.ch, wr.pos)
}

// mergeAck merges the coordinate a produce acknowledgement (or a commit) confirmed: the
// acknowledged offset, or under WRITE_MERGES_LOG_END the high watermark read after it.
func (s *Actors) mergeAck(token session.CausalPast, ch int32, acked int64) session.CausalPast {
	pos := acked
	if s.mode == spec.SessionWriteMergesLogEnd {
		pos = s.host.HighWatermark(ch)
	}
	return mergeCoordinate(token, s.or.Channel(ch), pos)
}

// mergeCoordinate merges one real coordinate into a token.
func mergeCoordinate(token session.CausalPast, nc node.Channel, pos int64) session.CausalPast {
	out, err := token.Merge(nc, node.Offset(pos))
	if err != nil {
		panic("tiers: merging a produced coordinate: " + err.Error())
	}
	return out
}

// inFlight returns the bytes client cl's request carries: its token, damaged if the simulator
// damaged it in flight. The damage is consumed.
func (s *Actors) inFlight(cl *client) []byte {
	d := cl.damage
	cl.damage = spec.TokenIntact
	if d == spec.TokenIntact {
		return cl.token
	}
	s.host.Count("damaged_sent")
	return damageToken(d, cl.token)
}

// refused handles a tier's refusal of an inbound token: the client starts a new session.
func (s *Actors) refused(c int, op *int, what, why string) {
	s.host.Count("token_refused")
	if s.host.Tracing() {
		s.host.Emit("session-refused", -1, fmt.Sprintf("client %d session %d %s op %d: token refused: %s",
			c, s.clients[c].session, what, *op, why))
	}
	s.newSession(c)
}

// traceWrite emits the write's event.
func (s *Actors) traceWrite(wr *sessionWrite, committed bool) {
	if !s.host.Tracing() {
		return
	}
	state := "committed"
	switch {
	case wr.txn && !committed:
		state = "txn aborted"
	case wr.txn:
		state = "txn committed"
	}
	s.host.EmitChan("session-write", wr.ch, wr.pos, wr.uid, fmt.Sprintf("client %d session %d op %d %s; token now %s",
		wr.client, s.clients[wr.client].session, wr.op, state, wr.minted))
}

// nextOp numbers the next session operation.
func (s *Actors) nextOp() int {
	s.ops++
	return s.ops
}

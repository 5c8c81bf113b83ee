package tiers

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Projections: the read models' replicas. A projector is a Parsley process; each of its
// deliveries becomes a row of its projection when the step that delivered it commits (the store
// commits atomically with the step, like a Kafka Streams state store), and a rolled-back step's
// rows never existed.
//
// The tier side keeps the recorded past: per row the delivered message's own coordinate plus its
// carried causes (the header a raw projector reads; only the own coordinate behind the handler
// seam), merged over every row. Under PROJECTOR_RECORDS_FRONTIER the rows record the engine's
// frontier snapshot as the step writes them to the store instead, which advances at receipt and so
// names effects the engine still holds back (SPEC §5.3). The oracle keeps the truth
// (oracle.Sessions), fed by the projector's deliveries, commits and rollbacks.

// projection is one replica's projection.
type projection struct {
	ownOnly bool // rows record their own coordinate only (a projector behind the handler seam)
	// recorded is the tier's recorded past of the projection.
	recorded node.Causes
	// own are the coordinates of the rows projected (a fact the oracle knows too).
	own node.Causes
	// rows counts the rows projected.
	rows int
	// staged are the uids of the rows of the projector's open step, applied when it commits.
	staged []uint64
}

// projectionOf returns process p's projection, or nil when p projects nothing (or the run has no
// sessions).
func (s *Actors) projectionOf(p int) *projection {
	if s == nil {
		return nil
	}
	return s.projections[p]
}

// OnDeliver stages the row of a delivery of message uid by process p, when p is a projector (a
// nil Actors has none).
func (s *Actors) OnDeliver(p int, uid uint64) {
	pr := s.projectionOf(p)
	if pr == nil {
		return
	}
	pr.staged = append(pr.staged, uid)
	s.or.OnProjectorDelivered(&s.truth, p, uid)
}

// OnCommit applies the rows of process p's committed step, when p is a projector.
func (s *Actors) OnCommit(p int) {
	pr := s.projectionOf(p)
	if pr == nil || len(pr.staged) == 0 {
		return
	}
	var snapshot node.Causes
	if s.mode == spec.SessionProjectorRecordsFrontier {
		snapshot = s.host.Frontier(p)
	}
	for _, uid := range pr.staged {
		s.apply(pr, uid, snapshot)
	}
	s.or.OnProjectorCommitted(&s.truth, p)
	if s.host.Tracing() {
		s.host.Emit("projected", p, "recorded "+session.Of(pr.recorded).String())
	}
	pr.staged = pr.staged[:0]
}

// OnRollback forgets the rows of process p's rolled-back step, when p is a projector.
func (s *Actors) OnRollback(p int) {
	if pr := s.projectionOf(p); pr != nil {
		pr.staged = pr.staged[:0]
		s.or.OnProjectorRolledBack(&s.truth, p)
	}
}

// apply projects one committed row: the tier records its past (under the sabotage, the frontier
// snapshot).
func (s *Actors) apply(pr *projection, uid uint64, snapshot node.Causes) {
	m := s.or.Msg(uid)
	nc := s.or.Channel(m.Ch)
	pos := node.Offset(m.Pos)
	switch {
	case s.mode == spec.SessionProjectorRecordsFrontier:
		pr.recorded.MergeFrom(snapshot)
	case pr.ownOnly:
		pr.recorded.Merge(nc, pos)
	default:
		pr.recorded.Merge(nc, pos)
		pr.recorded.MergeFrom(m.Expressed)
	}
	pr.own.Merge(nc, pos)
	pr.rows++
}

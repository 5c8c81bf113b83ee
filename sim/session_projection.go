package sim

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
func (s *sessionWorld) projectionOf(p *proc) *projection {
	if s == nil {
		return nil
	}
	return s.projections[p.idx]
}

// onDeliver stages the row of a delivery by projector p.
func (s *sessionWorld) onDeliver(p *proc, uid uint64) {
	pr := s.projectionOf(p)
	if pr == nil {
		return
	}
	pr.staged = append(pr.staged, uid)
	s.w.or.OnProjectorDelivered(&s.truth, p.idx, uid)
}

// onCommit applies the rows of projector p's committed step.
func (s *sessionWorld) onCommit(p *proc) {
	pr := s.projectionOf(p)
	if pr == nil || len(pr.staged) == 0 {
		return
	}
	var snapshot node.Causes
	if s.mode == spec.SessionProjectorRecordsFrontier {
		snapshot = p.eng.Frontier()
	}
	for _, uid := range pr.staged {
		s.apply(pr, uid, snapshot)
	}
	s.w.or.OnProjectorCommitted(&s.truth, p.idx)
	if s.w.tracing {
		s.w.emitProc("projected", p, "recorded "+session.Of(pr.recorded).String())
	}
	pr.staged = pr.staged[:0]
}

// onRollback forgets the rows of projector p's rolled-back step.
func (s *sessionWorld) onRollback(p *proc) {
	if pr := s.projectionOf(p); pr != nil {
		pr.staged = pr.staged[:0]
		s.w.or.OnProjectorRolledBack(&s.truth, p.idx)
	}
}

// apply projects one committed row: the tier records its past (under the sabotage, the frontier
// snapshot).
func (s *sessionWorld) apply(pr *projection, uid uint64, snapshot node.Causes) {
	m := s.w.or.Msg(uid)
	nc := s.w.chans[m.Ch].nc
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

package oracle

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The oracle's truth of the run's sessions (SPEC §5), beside the session tiers the world runs:
// per client, what its current session truly wrote and observed; per projector, the true past
// of the data its projection holds. The tiers compute tokens and recorded pasts; the oracle
// never reads them, only the events the world hands it: a session started, a session write
// produced and then acknowledged (or aborted), a token a tier accepted, a served read with the
// replicas that served it, and a projector's deliveries, commits and rollbacks. The session
// checkers (check_session_*.go) judge the tiers against this truth.

// Sessions is the oracle's truth of the run's sessions. The world keeps it beside its session
// tiers, so that the explorer's clone copies it with them (Clone) and its hash encodes it
// (AppendSessionClient, AppendProjection). Its events are methods of the Oracle taking it.
type Sessions struct {
	clients []sessionTruth
	// projections are by process index; nil for a process that projects nothing.
	projections []*projectionTruth
}

// sessionTruth is what one client's current session truly wrote and observed.
type sessionTruth struct {
	session int // the session's number, which violations name
	// past is the session's true causal past: what a write it makes truly follows.
	past   node.Causes
	writes []sessionWriteOp
	reads  []sessionReadOp
}

// sessionWriteOp is a committed, acknowledged write of a session.
type sessionWriteOp struct {
	op  int
	uid uint64
}

// sessionReadOp is a served read: the rows (own coordinates) it reflected.
type sessionReadOp struct {
	op    int
	model string
	rows  node.Causes
}

// projectionTruth is one projector's projection as the oracle knows it.
type projectionTruth struct {
	name string // the projector's name, which violations name
	// own are the coordinates of the rows projected; truth is the true causal past of the
	// projected data: every row's coordinate plus its true causal past.
	own, truth node.Causes
	// staged are the uids of the rows of the projector's open step, applied when it commits.
	staged []uint64
}

// NewSessions returns the truth of a run with the given number of session clients and
// processes, before any session started and with no projector.
func NewSessions(clients, procs int) Sessions {
	return Sessions{clients: make([]sessionTruth, clients), projections: make([]*projectionTruth, procs)}
}

// AddProjector makes process idx (named name) a projector: its committed deliveries become rows
// of its projection. Adding it again changes nothing.
func (s *Sessions) AddProjector(idx int, name string) {
	if s.projections[idx] == nil {
		s.projections[idx] = &projectionTruth{name: name}
	}
}

// Clone returns a copy of s that shares nothing that changes: a read's rows are never changed
// once recorded, so they are shared.
func (s *Sessions) Clone() Sessions {
	c := Sessions{clients: slices.Clone(s.clients), projections: make([]*projectionTruth, len(s.projections))}
	for i := range c.clients {
		cl := &c.clients[i]
		cl.past = cl.past.Clone()
		cl.writes = slices.Clip(cl.writes)
		cl.reads = slices.Clip(cl.reads)
	}
	for i, pr := range s.projections {
		if pr == nil {
			continue
		}
		cp := *pr
		cp.own, cp.truth = pr.own.Clone(), pr.truth.Clone()
		cp.staged = slices.Clone(pr.staged)
		c.projections[i] = &cp
	}
	return c
}

// AppendSessionClient appends the canonical encoding of client c's session truth: its true
// past, committed writes and served reads. Channels are named by channel index and messages by
// coordinate, never by uid. The world's encoding of the sessions calls it after each client's
// tier state (its session number, which the truth shares, and token).
func (o *Oracle) AppendSessionClient(b []byte, s *Sessions, c int) []byte {
	cl := &s.clients[c]
	b = o.AppendCauses(b, cl.past)
	b = binary.AppendUvarint(b, uint64(len(cl.writes)))
	for _, wr := range cl.writes {
		b = binary.AppendUvarint(b, uint64(wr.op))
		b = o.AppendMsgRef(b, wr.uid)
	}
	b = binary.AppendUvarint(b, uint64(len(cl.reads)))
	for _, r := range cl.reads {
		b = binary.AppendUvarint(b, uint64(r.op))
		b = appendString(b, r.model)
		b = o.AppendCauses(b, r.rows)
	}
	return b
}

// AppendProjection appends the canonical encoding of projector p's projection as the oracle
// knows it: its rows' coordinates and its true past. Its staged rows are the deliveries of the
// projector's open step, which the world encodes with its own store's staged rows (the same
// list, from the same deliveries).
func (o *Oracle) AppendProjection(b []byte, s *Sessions, p int) []byte {
	pr := s.projections[p]
	b = o.AppendCauses(b, pr.own)
	return o.AppendCauses(b, pr.truth)
}

// OnSessionStarted notes that client c started session number n: nothing written or observed.
func (o *Oracle) OnSessionStarted(s *Sessions, c, n int) {
	s.clients[c] = sessionTruth{session: n}
}

// OnSessionProduced notes a record client c's session write produced (m: where, in what state,
// what its header expresses) and returns its uid: the record truly follows the session's past.
func (o *Oracle) OnSessionProduced(s *Sessions, c int, m Message, micros int64) uint64 {
	m.Past = s.clients[c].past.Clone()
	return o.Add(m, micros)
}

// OnSessionWrite notes the outcome of client c's write op: its record uid, whether it committed
// (and was acknowledged), and the frontier of the token the tier handed back (minted). A committed write joins
// the session's past and writes, and must carry every row the session read before
// (SESSION_WFR); the token must name only acknowledged committed records (SESSION_TOKEN).
func (o *Oracle) OnSessionWrite(at At, s *Sessions, c, op int, uid uint64, committed bool, minted node.Causes) {
	cl := &s.clients[c]
	if committed {
		m := o.Msg(uid)
		cl.past.Merge(o.Channel(m.Ch), node.Offset(m.Pos))
		cl.writes = append(cl.writes, sessionWriteOp{op: op, uid: uid})
		o.checkWFR(at, s, c, op, uid)
	}
	o.checkToken(at, s, c, op, "write", minted)
}

// SessionRead is a read a tier served: by client c, its operation number, the read model's name
// and whether its projectors record their own coordinates only, the projectors that served each
// partition (process indexes), the token the client meant to present (its bytes as the client
// holds them, before any damage in flight) and the frontier of the token the tier handed back.
type SessionRead struct {
	Client, Op int
	Model      string
	OwnOnly    bool
	Served     []int
	Presented  []byte
	Minted     node.Causes
}

// OnSessionRead judges a served read (SESSION_COVERAGE, SESSION_RYW, SESSION_MR), then notes
// what it showed the session, then judges the token the tier handed back (SESSION_TOKEN).
func (o *Oracle) OnSessionRead(at At, s *Sessions, r *SessionRead) {
	o.checkCoverage(at, s, r)
	o.checkRYW(at, s, r)
	o.checkMR(at, s, r)
	o.observe(s, r)
	o.checkToken(at, s, r.Client, r.Op, "read", r.Minted)
}

// observe is the account of a served read: the session now truly follows what the read showed
// it — a single partition's whole true past; for a collection, what every partition reflects
// (the meet of their true pasts) plus each partition's rows; behind the handler seam, the rows
// alone (what the tier can carry forward, SPEC §5.3) — and the read's rows join the session's
// observations.
func (o *Oracle) observe(s *Sessions, r *SessionRead) {
	cl := &s.clients[r.Client]
	var rows node.Causes
	for _, p := range r.Served {
		rows.MergeFrom(s.projections[p].own)
	}
	switch {
	case r.OwnOnly:
	case len(r.Served) == 1:
		cl.past.MergeFrom(s.projections[r.Served[0]].truth)
	default:
		cl.past.MergeFrom(s.meetOfTruths(r.Served))
	}
	cl.past.MergeFrom(rows)
	cl.reads = append(cl.reads, sessionReadOp{op: r.Op, model: r.Model, rows: rows})
}

// OnProjectorDelivered stages the row of a delivery (record uid) by process p, if it projects.
func (o *Oracle) OnProjectorDelivered(s *Sessions, p int, uid uint64) {
	if pr := s.projections[p]; pr != nil {
		pr.staged = append(pr.staged, uid)
	}
}

// OnProjectorCommitted applies the rows of process p's committed step, if it projects: each
// row's coordinate joins the projection's rows and, with its true past, the projection's truth.
func (o *Oracle) OnProjectorCommitted(s *Sessions, p int) {
	pr := s.projections[p]
	if pr == nil {
		return
	}
	for _, uid := range pr.staged {
		m := o.Msg(uid)
		nc, pos := o.Channel(m.Ch), node.Offset(m.Pos)
		pr.own.Merge(nc, pos)
		pr.truth.Merge(nc, pos)
		pr.truth.MergeFrom(m.Past)
	}
	pr.staged = pr.staged[:0]
}

// OnProjectorRolledBack forgets the rows of process p's rolled-back step, if it projects.
func (o *Oracle) OnProjectorRolledBack(s *Sessions, p int) {
	if pr := s.projections[p]; pr != nil {
		pr.staged = pr.staged[:0]
	}
}

// sessionViolate reports a session violation about client c, naming it and its session.
func (o *Oracle) sessionViolate(at At, s *Sessions, crit spec.Criterion, c int, detail string, msgs ...uint64) {
	prefix := fmt.Sprintf("client %d session %d: ", c, s.clients[c].session)
	o.Violate(at, crit, -1, prefix+detail, msgs...)
}

// meetOfTruths returns the pointwise minimum of the served projections' true pasts over the
// channels every one of them names.
func (s *Sessions) meetOfTruths(served []int) node.Causes {
	if len(served) == 0 {
		return node.Causes{}
	}
	meet := s.projections[served[0]].truth.Pairs()
	for _, p := range served[1:] {
		var out []node.Cause
		for _, c := range meet {
			if pos, ok := s.projections[p].truth.Lookup(c.Channel); ok {
				out = append(out, node.Cause{Channel: c.Channel, Position: min(c.Position, pos)})
			}
		}
		meet = out
	}
	return node.CausesOf(meet...)
}

// pastString renders a token's frontier as the tiers render a token.
func pastString(c node.Causes) string { return "past" + c.String() }

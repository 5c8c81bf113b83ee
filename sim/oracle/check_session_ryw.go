package oracle

// SESSION_RYW (SPEC §5.4): a served read reflects every committed, acknowledged write of its
// session, judged against the true past of each served projection.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkRYW: every served partition's true past reflects each committed write of the session.
func (o *Oracle) checkRYW(at At, s *Sessions, r *SessionRead) {
	for _, wr := range s.clients[r.Client].writes {
		msg := o.Msg(wr.uid)
		nc := o.Channel(msg.Ch)
		for _, p := range r.Served {
			truth := s.projections[p].truth
			if got, ok := truth.Lookup(nc); !ok || int64(got) < msg.Pos {
				o.sessionViolate(at, s, spec.CritSessionRYW, r.Client, fmt.Sprintf("read op %d of %s served by %s reflects %s only up to %s, but write op %d was acknowledged at %s:%d (%s)",
					r.Op, r.Model, s.projections[p].name, o.ChanName(msg.Ch), TruePos(truth, nc),
					wr.op, o.ChanName(msg.Ch), msg.Pos, o.MsgName(wr.uid)), wr.uid)
				return
			}
		}
	}
}

package oracle

// SESSION_MR (SPEC §5.4): a served read reflects every row an earlier read of its session
// served, judged against the true past of each served projection.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkMR: every served partition's true past reflects every row an earlier read served.
func (o *Oracle) checkMR(at At, s *Sessions, r *SessionRead) {
	for _, earlier := range s.clients[r.Client].reads {
		for _, p := range r.Served {
			truth := s.projections[p].truth
			if ch, pos, ok := FirstUncovered(truth, earlier.rows); ok {
				o.sessionViolate(at, s, spec.CritSessionMR, r.Client, fmt.Sprintf("read op %d of %s served by %s reflects %s only up to %s, but the earlier read op %d of %s served the row at %d",
					r.Op, r.Model, s.projections[p].name, o.NodeChanName(ch), TruePos(truth, ch), earlier.op, earlier.model, pos))
				return
			}
		}
	}
}

package oracle

// SESSION_WFR (SPEC §5.4): a write carries in its parsley.causes every row its session read
// before; the ordinary S1 check then judges every process that delivers both, since the oracle
// gives the write the session's true past (OnSessionProduced).

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkWFR: client c's committed write op (record uid) carries every row its session read before.
func (o *Oracle) checkWFR(at At, s *Sessions, c, op int, uid uint64) {
	msg := o.Msg(uid)
	for _, r := range s.clients[c].reads {
		if ch, pos, ok := FirstUncovered(msg.Expressed, r.rows); ok {
			o.sessionViolate(at, s, spec.CritSessionWFR, c, fmt.Sprintf("write op %d (%s) carries %s only up to %s, but the earlier read op %d of %s served the row at %d",
				op, o.MsgName(uid), o.NodeChanName(ch), TruePos(msg.Expressed, ch), r.op, r.model, pos), uid)
			return
		}
	}
}

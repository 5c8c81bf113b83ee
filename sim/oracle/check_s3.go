package oracle

// S3 FIFO (SPEC §6.1): per (process, channel) delivered positions strictly increase, and a head
// that is not delivered blocks every later message on its channel: delivering a record while an
// earlier fed, owed record of the same channel is still undelivered (the oracle's own pending
// set) overtakes it.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkFIFO stages S3 violations for delivering uid on pc.
func (o *Oracle) checkFIFO(at At, p *Proc, pc *chanState, uid uint64) {
	pos := o.Msg(uid).Pos
	if n := len(pc.delivered); n > 0 && pc.delivered[n-1].pos > pos {
		o.stage(at, p, spec.CritS3, fmt.Sprintf("delivered %s after the later %s", o.MsgName(uid), o.MsgName(pc.delivered[n-1].uid)))
		return
	}
	if len(pc.pending) > 0 && pc.pending[0].Pos < pos {
		o.stage(at, p, spec.CritS3, fmt.Sprintf("delivered %s past the earlier undelivered %s", o.MsgName(uid), o.MsgName(pc.pending[0].UID)))
	}
}

package sim

// S3 FIFO (SPEC §6.1): per (process, channel) delivered positions strictly increase, and a head
// that is not delivered blocks every later message on its channel: delivering a record while an
// earlier fed, owed record of the same channel is still undelivered (the oracle's own pending
// set) overtakes it.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkFIFO stages S3 violations for delivering uid on pc.
func (w *world) checkFIFO(p *proc, pc *chanOracle, uid uint64) {
	pos := w.or.Msg(uid).Pos
	if n := len(pc.delivered); n > 0 && pc.delivered[n-1].pos > pos {
		p.o.stage(p, spec.CritS3, fmt.Sprintf("delivered %s after the later %s", w.or.MsgName(uid), w.or.MsgName(pc.delivered[n-1].uid)))
		return
	}
	if len(pc.pending) > 0 && pc.pending[0].pos < pos {
		p.o.stage(p, spec.CritS3, fmt.Sprintf("delivered %s past the earlier undelivered %s", w.or.MsgName(uid), w.or.MsgName(pc.pending[0].uid)))
	}
}

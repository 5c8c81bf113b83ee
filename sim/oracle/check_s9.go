package oracle

// S9 (SPEC §6.1, D46): a process holding an undelivered message from a channel that no longer
// exists must not deliver past it. Judged from the oracle's own fed-but-undelivered set: while
// p has a pending message on a dead received channel, any delivery on another channel is a
// violation (the honest engine refuses CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES instead).

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkDeadHolds stages an S9 violation when p delivers uid past a pending message on a dead
// channel.
func (o *Oracle) checkDeadHolds(at At, p *Proc, pc *chanState, uid uint64) {
	for _, c := range p.recv {
		other := p.chans.At(c)
		if other == pc || o.Alive(other.ch) || len(other.pending) == 0 {
			continue
		}
		o.stage(at, p, spec.CritS9, fmt.Sprintf("delivered %s while holding %s on the deleted channel %s",
			o.MsgName(uid), o.MsgName(other.pending[0].UID), o.ChanName(other.ch)))
		return
	}
}

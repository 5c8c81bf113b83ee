package oracle

// STRUCT12 (SPEC §3, §6.1): a sent message names no position above the last one assigned on
// that channel at send time — except a position the sender learned from received metadata,
// which it cannot verify (SPEC §3). Judged at send time.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkAssigned stages a STRUCT12 violation for emission uid.
func (o *Oracle) checkAssigned(at At, p *Proc, uid uint64) {
	assigned := func(cause node.Cause) bool {
		c := o.NodeChan(cause.Channel)
		return c >= 0 && int64(cause.Position) < o.assignedEnd(c)
	}
	if cause, ok := firstUncovered(p.seen.C, o.Msg(uid).Expressed, assigned); ok {
		o.stage(at, p, spec.CritStruct12, fmt.Sprintf("%s names %v@%d, never assigned and never seen", o.MsgName(uid), cause.Channel, cause.Position))
	}
}

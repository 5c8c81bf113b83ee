package oracle

// STRUCT15 (SPEC §3, §6.1): every true cause of a sent message is expressed — its header names
// the cause's channel at or above the cause's position — unless the channel was dead at send time
// (the only thing that may remove a cause, D115). Retention excuses nothing. Judged at send time
// against the oracle's true past, never against the engine's frontier.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkExpressed stages a STRUCT15 violation for emission uid.
func (o *Oracle) checkExpressed(at At, p *Proc, uid uint64) {
	m := o.Msg(uid)
	deadAtSend := func(cause node.Cause) bool {
		c := o.NodeChan(cause.Channel)
		return c >= 0 && !o.Alive(c)
	}
	if cause, ok := firstUncovered(m.Expressed, m.Past, deadAtSend); ok {
		o.stage(at, p, spec.CritStruct15, fmt.Sprintf("%s does not express its true cause %v@%d", o.MsgName(uid), cause.Channel, cause.Position))
	}
}

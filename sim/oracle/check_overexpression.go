package oracle

// OVEREXPRESSION (SPEC §6.1, D42): every position a sent message expresses is at most the
// maximum, on that channel, of what the sender had delivered or seen expressed in fed metadata
// at send time (over its lifetime, restarts included). Stamping fedUpTo coverage or a held
// message's own position breaks it. Judged at send time.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkOverexpression stages an OVEREXPRESSION violation for emission uid.
func (o *Oracle) checkOverexpression(at At, p *Proc, uid uint64) {
	if cause, ok := firstUncovered(p.bound.C, o.Msg(uid).Expressed, nil); ok {
		o.stage(at, p, spec.CritOverexpression, fmt.Sprintf("%s expresses %v@%d beyond everything delivered or seen",
			o.MsgName(uid), cause.Channel, cause.Position))
	}
}

package sim

// STRUCT15 (SPEC §3, §6.1): every true cause of a sent message is expressed — its header names
// the cause's channel at or above the cause's position — unless the channel was dead at send time
// (the only thing that may remove a cause, D115). Retention excuses nothing. Judged at send time
// against the oracle's true past, never against the engine's frontier.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkExpressed stages a STRUCT15 violation for emission uid.
func (w *world) checkExpressed(p *proc, uid uint64) {
	m := w.or.Msg(uid)
	expressed, cur := m.Expressed.Pairs(), 0
	for _, cause := range m.Past.Pairs() {
		if q, ok := oracle.LookupFrom(expressed, &cur, cause.Channel); ok && q >= cause.Position {
			continue
		}
		c := w.or.NodeChan(cause.Channel)
		if c >= 0 && !w.or.Alive(c) {
			continue
		}
		p.o.stage(p, spec.CritStruct15, fmt.Sprintf("%s does not express its true cause %v@%d", w.or.MsgName(uid), cause.Channel, cause.Position))
		return
	}
}

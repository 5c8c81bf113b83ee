package oracle

// STRUCT12 (SPEC §3, §6.1): a sent message names no position above the last one assigned on
// that channel at send time — except a position the sender learned from received metadata,
// which it cannot verify (SPEC §3). Judged at send time.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkAssigned stages a STRUCT12 violation for emission uid.
func (o *Oracle) checkAssigned(at At, p *Proc, uid uint64) {
	m := o.Msg(uid)
	seen, cur := p.seen.C.Pairs(), 0
	for _, cause := range m.Expressed.Pairs() {
		q := int64(cause.Position)
		if s, ok := LookupFrom(seen, &cur, cause.Channel); ok && q <= int64(s) {
			continue
		}
		c := o.NodeChan(cause.Channel)
		if c >= 0 && (q < o.assignedEnd(c)) {
			continue
		}
		o.stage(at, p, spec.CritStruct12, fmt.Sprintf("%s names %v@%d, never assigned and never seen", o.MsgName(uid), cause.Channel, q))
		return
	}
}

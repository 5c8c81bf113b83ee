package oracle

// STRUCT14 (SPEC §3, §6.1): a message sent to a channel carries no pair for that channel at or
// above its own position — except a position learned from a fed header (a forged or corrupted
// one can name any), which the sender must re-express and cannot verify, as STRUCT12 excuses it.
// Judged at send time on the header the engine stamped.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkOwnChannel stages a STRUCT14 violation for emission uid.
func (o *Oracle) checkOwnChannel(at At, p *Proc, uid uint64) {
	m := o.Msg(uid)
	nc := o.Channel(m.Ch)
	if q, ok := m.Expressed.Lookup(nc); ok && int64(q) >= m.Pos {
		if s, learned := p.seen.C.Lookup(nc); learned && q <= s {
			return
		}
		o.stage(at, p, spec.CritStruct14, fmt.Sprintf("%s names its own channel at %d", o.MsgName(uid), q))
	}
}

package oracle

// S2 no duplicates (SPEC §6.1): no message is delivered twice by a process in committed history.
// A delivery rolled back with its step does not count: the oracle's delivered positions are
// staged and undone on rollback, so a redelivery after a crash is not a duplicate.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkDuplicate stages an S2 violation and reports true when p delivers a position of pc it
// has delivered before.
func (o *Oracle) checkDuplicate(at At, p *Proc, pc *chanState, uid uint64) bool {
	pos := o.Msg(uid).Pos
	i := pc.deliveredIndex(pos)
	if i < 0 {
		return false
	}
	o.stage(at, p, spec.CritS2, fmt.Sprintf("delivered %s again (first delivery index %d)", o.MsgName(uid), pc.delivered[i].index))
	return true
}

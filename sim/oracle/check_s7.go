package oracle

// S7 (SPEC §6.1): a process must never commit a step that read an undecodable header. Whether a
// record's headers are undecodable is the reference decoder's reading of them at produce or send
// time (oracle.Message.Undecodable), never the node's; feeding one stages the fact, and committing that
// step is the violation (the honest engine refuses UNDECODABLE_METADATA at receipt, which rolls
// the step back). A node that salvages bytes the reference refuses is caught here.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkUndecodableCommitted reports S7 when p commits a step that was fed an undecodable header.
func (o *Oracle) checkUndecodableCommitted(at At, p *Proc) {
	if uid := p.stepCorrupt; uid != 0 {
		o.Violate(at, spec.CritS7, p.idx, fmt.Sprintf("committed a step that read the undecodable header of %s", o.MsgName(uid)))
	}
}

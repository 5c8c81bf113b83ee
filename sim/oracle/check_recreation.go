package oracle

// RECREATION (SPEC §6.1, Assumption 2, D115): no process commits a step while receiving a dead
// incarnation whose name now binds to another topic ID, without having failed closed. A task
// re-initialised after its received topic was recreated still receives the old incarnation (the
// IDs resolved at application start); only the identity report can stop it
// (CHANNEL_IDENTITY_CHANGED).

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkRecreatedReceived reports RECREATION when p commits while receiving a recreated
// incarnation.
func (o *Oracle) checkRecreatedReceived(at At, p *Proc) {
	for _, c := range p.recv {
		if o.recreated(c) {
			o.Violate(at, spec.CritRecreation, p.idx, fmt.Sprintf("committed while receiving %s, whose name now binds to incarnation %d",
				o.ChanName(c), o.liveInc(c)))
			return
		}
	}
}

package oracle

// SESSION_DAMAGED (SPEC §5.4): no tier acts on the contents of a token the simulator damaged in
// flight; refusing it is always allowed.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// OnTokenAccepted notes that a tier accepted the token client c's operation op presented and
// acted on it (did says how; it is called only to describe a violation, so an accepted intact
// token costs no text), the simulator having damaged it in flight by damage (TokenIntact: not
// damaged): acting on a damaged token breaks SESSION_DAMAGED.
func (o *Oracle) OnTokenAccepted(at At, s *Sessions, c, op int, damage spec.TokenDamage, did func() string) {
	if damage == spec.TokenIntact {
		return
	}
	o.sessionViolate(at, s, spec.CritSessionDamaged, c, fmt.Sprintf("op %d: the tier accepted a token damaged in flight (%s) instead of refusing it: %s", op, damage, did()))
}

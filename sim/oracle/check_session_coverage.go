package oracle

// SESSION_COVERAGE (SPEC §5.4): a served read's true past covers the token the client presented.
// The token is read with the reference decoder (its bytes are a parsley.causes value) and
// compared pair by pair, so neither the tiers' token codec nor their coverage check judges
// itself; a token the reference refuses, handed back by an earlier operation, breaks
// SESSION_TOKEN. A read the tier refuses or answers "retry" is never judged: failing closed is
// always allowed.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/oracle/wire"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkCoverage: every served partition's true past covers the token the client presented.
func (o *Oracle) checkCoverage(at At, s *Sessions, r *SessionRead) {
	pairs, ref := wire.Decode(r.Presented)
	if ref != nil {
		o.sessionViolate(at, s, spec.CritSessionToken, r.Client, fmt.Sprintf("read op %d of %s presented a token a tier handed back, which does not decode: %v", r.Op, r.Model, ref))
		return
	}
	token := CausesFromWire(pairs)
	for _, p := range r.Served {
		truth := s.projections[p].truth
		if ch, pos, ok := FirstUncovered(truth, token); ok {
			o.sessionViolate(at, s, spec.CritSessionCoverage, r.Client, fmt.Sprintf("read op %d of %s served by %s, whose true past does not cover the token %s: %s needs %d, true past has %s",
				r.Op, r.Model, s.projections[p].name, pastString(token), o.NodeChanName(ch), pos, TruePos(truth, ch)))
			return
		}
	}
}

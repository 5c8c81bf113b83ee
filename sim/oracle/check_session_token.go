package oracle

// SESSION_TOKEN (SPEC §5.4): a token handed to a client names only acknowledged committed
// records, or a position a forged or corrupted header named (its writer's breach of constraint
// 8, which a projector records and a tier cannot tell from a true one). A presented token that
// the reference decoder refuses breaks it too (check_session_coverage.go).

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkToken: every pair of a token a tier minted names an acknowledged committed record.
func (o *Oracle) checkToken(at At, s *Sessions, c, op int, what string, minted node.Causes) {
	for _, pair := range minted.Pairs() {
		ch := o.NodeChan(pair.Channel)
		if ch >= 0 && o.RecordAt(ch, int64(pair.Position)) != 0 || o.ForgedClaim(pair) {
			continue
		}
		state := "no record"
		if ch >= 0 && int64(pair.Position) < int64(len(o.Slots(ch))) {
			if uid := o.Slots(ch)[pair.Position]; uid != 0 {
				state = "a " + o.Msg(uid).State.String() + " record"
			}
		}
		o.sessionViolate(at, s, spec.CritSessionToken, c, fmt.Sprintf("%s op %d handed back a token naming %s:%d, which is %s, not an acknowledged committed record (token %s)",
			what, op, o.NodeChanName(pair.Channel), pair.Position, state, pastString(minted)))
		return
	}
}

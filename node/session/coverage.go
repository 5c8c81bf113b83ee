package session

import (
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/node"
)

// Coverage is the outcome of one coverage check: covered exactly when Gaps is empty.
//
// Each gap is one channel the token names that the recorded past does not account for, in channel
// order: Channel, Required (the token's position), and Settled/SettledKnown read as the position
// the past recorded there (SettledKnown false when the past never recorded the channel).
type Coverage struct {
	Gaps []node.Blocker
}

// Covered reports whether the past accounts for everything the token names.
func (c Coverage) Covered() bool { return len(c.Gaps) == 0 }

// String renders the verdict as "covered" or "not covered: ch required=R recorded=S|none; ...".
func (c Coverage) String() string {
	if c.Covered() {
		return "covered"
	}
	var b strings.Builder
	b.WriteString("not covered: ")
	for i, g := range c.Gaps {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(g.Channel.String())
		b.WriteString(" required=")
		b.WriteString(strconv.FormatInt(int64(g.Required), 10))
		b.WriteString(" recorded=")
		if g.SettledKnown {
			b.WriteString(strconv.FormatInt(int64(g.Settled), 10))
		} else {
			b.WriteString("none")
		}
	}
	return b.String()
}

// CoverageOf decides whether the past covers token: for every (c, p) the token names, the past
// records c at a position of p or more. A read tier serves only when the result is covered.
//
// It reuses the delivery gate, node.Decide, with the token's own channel set as the received set,
// so no token channel is skippable: a channel the past never recorded is a gap with recorded
// position none, where the gate would have skipped a channel outside its received set. That
// inversion is deliberate: serving on an unverifiable channel is the read-your-writes violation
// this type exists to prevent, so every error is a refusal to serve, never a stale serve.
func (p CausalPast) CoverageOf(token CausalPast) Coverage {
	verdict := node.Decide(*token.frontier(), tokenChannels{token: token.frontier()}, recordedView{past: p.frontier()})
	return Coverage{Gaps: verdict.Blockers}
}

// tokenChannels is the received set CoverageOf hands the gate: exactly the channels the token
// names, so the gate skips none of the token's own causes.
type tokenChannels struct{ token *node.Causes }

// Receives reports whether the token names ch.
func (t tokenChannels) Receives(ch node.Channel) bool {
	_, ok := t.token.Lookup(ch)
	return ok
}

// recordedView is the settled view CoverageOf hands the gate: the position the past recorded on a
// channel, unknown when it recorded none.
type recordedView struct{ past *node.Causes }

// Settled returns the position the past recorded for ch.
func (r recordedView) Settled(ch node.Channel) (node.Offset, bool) { return r.past.Lookup(ch) }

package oracle

// OVER_REFUSAL (SPEC §6.1, RefusalLedger): every fail-closed reason must correspond to a
// condition the run actually injected: a header the reference decoder refuses fed
// (UNDECODABLE_METADATA: refusing one it decodes is over-refusal), a read
// position below the log start (POSITIONS_DISCARDED_UNREAD), metadata truly over the budget
// (METADATA_BUDGET_EXCEEDED), a redeclaration that removed a channel with held messages
// (CHANNEL_REMOVED_WITH_HELD_MESSAGES), a received topic recreated (CHANNEL_IDENTITY_CHANGED), a
// received topic deleted while messages from it were held
// (CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES). No other reason can be injected by this world.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkRefusal reports OVER_REFUSAL when p refuses without an injected cause (atReceipt: it
// refused a record fed to it).
func (o *Oracle) checkRefusal(at At, p *Proc, r *node.Refusal, atReceipt bool) {
	if o.refusalInjected(p, r, atReceipt) {
		return
	}
	o.Violate(at, spec.CritOverRefusal, p.idx, fmt.Sprintf("refused %s with no injected cause", o.RefusalText(r)))
}

// refusalInjected decides whether the run injected the cause of refusal r at p.
func (o *Oracle) refusalInjected(p *Proc, r *node.Refusal, atReceipt bool) bool {
	switch r.Reason {
	case node.ReasonUndecodableMetadata:
		c := o.NodeChan(r.Channel)
		if c < 0 {
			return false
		}
		uid := o.RecordAt(c, int64(r.Position))
		return uid != 0 && o.Msg(uid).Undecodable
	case node.ReasonPositionsDiscardedUnread:
		c := o.NodeChan(r.Channel)
		return c >= 0 && o.Alive(c) && int64(r.Position) < o.logStart(c)
	case node.ReasonMetadataBudgetExceeded:
		budget := o.Budget()
		if budget == 0 {
			budget = node.DefaultMetadataBudgetBytes
		}
		return o.frontierOver(p, r, budget, atReceipt) || o.headerOver(r, budget)
	case node.ReasonChannelRemovedWithHeldMessages:
		return p.injected.RemovedHeld
	case node.ReasonChannelIdentityChanged:
		return p.injected.IdentityChanged
	case node.ReasonChannelDeletedWithUndelivered:
		return p.injected.DeletedHeld
	}
	return false
}

// frontierOver reports whether what p may have seen is over the budget: the bound, and when the
// refusal names a record, what the refused step would have added to it, which the bound has not
// taken in: a receipt's header (refused in a feed), a delivery's coordinate (refused in a drain).
func (o *Oracle) frontierOver(p *Proc, r *node.Refusal, budget int, atReceipt bool) bool {
	bound := p.bound.C
	if c := o.NodeChan(r.Channel); c >= 0 && r.Position >= 0 {
		if uid := o.RecordAt(c, int64(r.Position)); uid != 0 {
			bound = bound.Clone()
			if atReceipt {
				bound.MergeFrom(o.Msg(uid).Expressed)
			} else {
				bound.Merge(r.Channel, r.Position)
			}
		}
	}
	return node.EncodedLen(bound) > budget
}

// headerOver reports whether the record a refusal names carried a header over the budget.
func (o *Oracle) headerOver(r *node.Refusal, budget int) bool {
	c := o.NodeChan(r.Channel)
	if c < 0 || r.Position < 0 {
		return false
	}
	uid := o.RecordAt(c, int64(r.Position))
	return uid != 0 && o.Msg(uid).HeaderLen > budget
}

package sim

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
func (w *world) checkRefusal(p *proc, r *node.Refusal, atReceipt bool) {
	if w.refusalInjected(p, r, atReceipt) {
		return
	}
	w.violate(spec.CritOverRefusal, p.idx, fmt.Sprintf("refused %s with no injected cause", r.Error()))
}

// refusalInjected decides whether the run injected the cause of refusal r at p.
func (w *world) refusalInjected(p *proc, r *node.Refusal, atReceipt bool) bool {
	switch r.Reason {
	case node.ReasonUndecodableMetadata:
		c := w.or.NodeChan(r.Channel)
		if c < 0 {
			return false
		}
		uid := w.or.RecordAt(c, int64(r.Position))
		return uid != 0 && w.or.Msg(uid).Undecodable
	case node.ReasonPositionsDiscardedUnread:
		c := w.or.NodeChan(r.Channel)
		return c >= 0 && w.or.Alive(c) && int64(r.Position) < w.or.LogStart(c)
	case node.ReasonMetadataBudgetExceeded:
		budget := w.or.Budget()
		if budget == 0 {
			budget = node.DefaultMetadataBudgetBytes
		}
		return w.frontierOver(p, r, budget, atReceipt) || w.headerOver(r, budget)
	case node.ReasonChannelRemovedWithHeldMessages:
		return p.o.injected.removedHeld
	case node.ReasonChannelIdentityChanged:
		return p.o.injected.identityChanged
	case node.ReasonChannelDeletedWithUndelivered:
		return p.o.injected.deletedHeld
	}
	return false
}

// frontierOver reports whether what p may have seen is over the budget: the bound, and when the
// refusal names a record, what the refused step would have added to it, which the bound has not
// taken in: a receipt's header (refused in a feed), a delivery's coordinate (refused in a drain).
func (w *world) frontierOver(p *proc, r *node.Refusal, budget int, atReceipt bool) bool {
	bound := p.o.bound.C
	if c := w.or.NodeChan(r.Channel); c >= 0 && r.Position >= 0 {
		if uid := w.or.RecordAt(c, int64(r.Position)); uid != 0 {
			bound = bound.Clone()
			if atReceipt {
				bound.MergeFrom(w.or.Msg(uid).Expressed)
			} else {
				bound.Merge(r.Channel, r.Position)
			}
		}
	}
	return node.EncodedLen(bound) > budget
}

// headerOver reports whether the record a refusal names carried a header over the budget.
func (w *world) headerOver(r *node.Refusal, budget int) bool {
	c := w.or.NodeChan(r.Channel)
	if c < 0 || r.Position < 0 {
		return false
	}
	uid := w.or.RecordAt(c, int64(r.Position))
	return uid != 0 && w.or.Msg(uid).HeaderLen > budget
}

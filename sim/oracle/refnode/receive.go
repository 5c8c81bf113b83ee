package refnode

import "fmt"

// Receive is SPEC §2.3 RECEIVE (§2.2's receipt path) for a record at pos on received channel c,
// in its order: extract the causes (UNDECODABLE_METADATA, METADATA_BUDGET_EXCEEDED); the
// in-execution order check (OUT_OF_ORDER_FEED); lastFed = pos; merge every carried cause into the
// frontier, a replay's too (METADATA_BUDGET_EXCEEDED when the frontier outgrows the budget); then
// a position at or below fedUpTo is a feed on a deleted channel (OUT_OF_ORDER_FEED), a feed
// inside this execution's own coverage (COVERED_POSITION_FED), or a replay of committed past
// (Duplicate); any other raises fedUpTo and joins the channel's buffer (Held). A channel not in R
// or a position outside 0..End−1 panics: the host broke its contract.
func (n *Node) Receive(c Channel, pos Position, rec Record) (Outcome, *Refusal) {
	if !n.receives(c) || pos < 0 || pos >= End {
		panic(fmt.Sprintf("refnode: fed %v@%d: not a received channel or not a position", c, pos))
	}
	if n.refusal != nil {
		return 0, n.refusal
	}
	causes, r := n.extractCauses(rec.Headers)
	if r != nil {
		return 0, n.fail(r)
	}
	if last, ok := n.lastFed.Get(c); ok && pos <= last {
		return 0, n.fail(refuse(OutOfOrderFeed, "%v@%d fed after position %d in this execution", c, pos, last))
	}
	n.lastFed.Set(c, pos)
	if r := n.mergeFrontier(causes); r != nil {
		return 0, n.fail(r)
	}
	if fed, ok := n.fed.Get(c); ok && pos <= fed {
		if fed == End {
			return 0, n.fail(refuse(OutOfOrderFeed, "%v@%d fed on a channel recorded as no longer existing", c, pos))
		}
		if floor, ok := n.floor.Get(c); !ok || pos > floor {
			return 0, n.fail(refuse(CoveredPositionFed, "%v@%d is inside this execution's coverage (fedUpTo %d)", c, pos, fed))
		}
		return Duplicate, nil
	}
	n.fed.Set(c, pos)
	m := &Message{Channel: c, Position: pos, Record: visible(rec), Causes: causes}
	n.held.set(c, append(n.held.on(c), m))
	return Held, nil
}

// extractCauses is SPEC §2.2 step 2 (§4.1): no parsley.causes header, no causes; two or more,
// undecodable whatever their values; one whose raw value is longer than the budget,
// METADATA_BUDGET_EXCEEDED, judged before decoding (D93); one that fails the grammar (a null or
// empty value included), undecodable.
func (n *Node) extractCauses(headers []Header) (Positions, *Refusal) {
	var value []byte // the first parsley.causes value
	count := 0
	for _, h := range headers {
		if h.Key == CausesKey {
			if count == 0 {
				value = h.Value
			}
			count++
		}
	}
	switch {
	case count == 0:
		return nil, nil
	case count > 1:
		return nil, refuse(UndecodableMetadata, "%d %s headers", count, CausesKey)
	case len(value) > n.budget:
		return nil, refuse(MetadataBudgetExceeded, "%s header is %d bytes, budget %d", CausesKey, len(value), n.budget)
	}
	causes, err := decodeCauses(value)
	if err != nil {
		return nil, refuse(UndecodableMetadata, "%v", err)
	}
	return causes, nil
}

// mergeFrontier raises the frontier to every cause in causes, refusing when that makes the
// frontier's encoding grow past the budget (SPEC §3: the budget is enforced whenever the merged
// frontier grows).
func (n *Node) mergeFrontier(causes Positions) *Refusal {
	channels := len(n.frontier)
	for _, e := range causes {
		n.frontier.Raise(e.Channel, e.Position)
	}
	return n.checkFrontierGrowth(channels)
}

// checkFrontierGrowth refuses when the frontier's encoding grew, since it named channels
// channels, to past the budget. Raising positions only adds channels, and an encoding's length
// depends only on the channels named and grows with each one added (by at least its partition
// and position): the encoding grew exactly when the frontier gained a channel.
func (n *Node) checkFrontierGrowth(channels int) *Refusal {
	if len(n.frontier) == channels {
		return nil
	}
	if after := encodedLen(n.frontier); after > n.budget {
		return refuse(MetadataBudgetExceeded, "frontier of %d channels encodes to %d bytes, budget %d", len(n.frontier), after, n.budget)
	}
	return nil
}

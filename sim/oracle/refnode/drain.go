package refnode

// settled is SPEC §1.4: a held head's position − 1 while anything is held on c, else fedUpTo;
// ok is false while nothing is known about c.
func (n *Node) settled(c Channel) (Position, bool) {
	if held := n.held.on(c); len(held) > 0 {
		return held[0].Position - 1, true
	}
	return n.fed.Get(c)
}

// decide is the gate (SPEC §2.1): deliverable iff every cause on a received channel is at or
// below that channel's settled position (which must be known); causes on channels outside R are
// skipped.
func (n *Node) decide(causes Positions) bool {
	for _, e := range causes {
		if !n.receives(e.Channel) {
			continue
		}
		if s, ok := n.settled(e.Channel); !ok || e.Position > s {
			return false
		}
	}
	return true
}

// Next is SPEC §2.3 NEXT then DELIVERED: scan the received channels in channel order, offer only
// each buffer's head to the gate, and deliver the first deliverable head: it leaves the buffer,
// its own coordinate joins the frontier (METADATA_BUDGET_EXCEEDED if that grows it past the
// budget: no delivery then) and its causes join the delivered past. ok is false when no head is
// deliverable, and after a refusal; Refusal says which.
func (n *Node) Next() (d Delivery, ok bool) {
	if n.refusal != nil {
		return Delivery{}, false
	}
	for _, c := range n.received {
		held := n.held.on(c)
		if len(held) == 0 || !n.decide(held[0].Causes) {
			continue
		}
		head := held[0]
		n.held.set(c, held[1:])
		channels := len(n.frontier)
		n.frontier.Raise(c, head.Position)
		if r := n.checkFrontierGrowth(channels); r != nil {
			n.fail(r)
			return Delivery{}, false
		}
		for _, e := range head.Causes {
			n.past.Raise(e.Channel, e.Position)
		}
		return Delivery{Channel: c, Position: head.Position, Record: head.Record}, true
	}
	return Delivery{}, false
}

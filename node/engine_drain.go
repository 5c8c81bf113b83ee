package node

// Next is one round of the drain (SPEC §2.2, §2.3 NEXT and DELIVERED): it scans the received
// channels in channel order, offers each non-empty buffer's head — only heads — to Decide, and
// delivers the first deliverable one: the head leaves the buffer, its own coordinate is merged
// into the frontier and its causes into the delivered past. ok is false when no head is
// deliverable, and forever after a refusal. The host calls Next until it returns false after
// every receipt and on each status punctuation.
//
// Cost: at most one offer per received channel, each a walk over the head's causes and the
// received set; never a function of buffer depth.
//
// Next is small enough to inline: the caller's Delivery is filled in place by next, where a
// Delivery returned from a call is copied through memory twice (and zeroed when nothing is
// delivered), which cost more than the rest of a delivery's bookkeeping.
func (e *Engine) Next() (d Delivery, ok bool) {
	if e.heldCount > 0 {
		ok = e.next(&d)
	}
	return d, ok
}

// next is Next filling *d, which it leaves alone when it delivers nothing.
func (e *Engine) next(d *Delivery) bool {
	if e.refusal != nil || e.heldCount == 0 {
		return false
	}
	for i := e.heldFrom; i < len(e.chans); i++ {
		c := &e.chans[i]
		if c.held.len() == 0 {
			if i == e.heldFrom {
				e.heldFrom++ // nothing held here either
			}
			continue
		}
		if e.opts.Sabotage == SabotageNoFIFO {
			for j := 0; j < c.held.len(); j++ {
				if e.offer(c.held.msg(j)) {
					return e.deliver(i, j, d)
				}
			}
			continue
		}
		// The head goes to the gate by its causes' index when it has one.
		var ok bool
		if b := &c.held; len(b.restored) == 0 && b.own.at(0).index != nil && e.opts.Sabotage != SabotageIgnoreCauses {
			h := b.own.at(0)
			e.counters.HeadsOffered++
			ok = e.satisfiedAt(h.msg.Causes.pairs, h.index)
		} else {
			ok = e.offer(b.front())
		}
		if ok {
			return e.deliver(i, 0, d)
		}
	}
	return false
}

// offer asks the gate whether m is deliverable now.
func (e *Engine) offer(m *HeldMessage) bool {
	e.counters.HeadsOffered++
	if e.opts.Sabotage == SabotageIgnoreCauses {
		return true
	}
	return e.satisfied(m.Causes.pairs)
}

// deliver removes the j-th held message of chans[i] (the head, j = 0, except under NoFIFO) into
// *d, merges its coordinate into the frontier (refusing over budget) and its causes into the
// delivered past, and records the removal for Commit. It reports false, with *d zero, on a
// refusal. It fills the caller's Delivery rather than returning one: a Delivery is returned
// through memory, and a copy of it costs more than the rest of a delivery's bookkeeping.
func (e *Engine) deliver(i, j int, d *Delivery) bool {
	c := &e.chans[i]
	var x *causeIndex
	var state holdState
	if b := &c.held; j == 0 && len(b.restored) == 0 {
		// The usual delivery, an own head, is read and cleared in place (fifo.dropAt(0) would
		// build the zero entry apart and copy it in).
		h := b.own.at(0)
		*d, x, state = Delivery(h.msg), h.index, h.state
		*h = heldEntry{}
		b.own.head++
		b.own.maybeCompact()
	} else {
		*d, state = Delivery(*b.msg(j)), b.state(j)
		if j >= len(b.restored) {
			x = b.own.at(j - len(b.restored)).index
		}
		b.dropAt(j)
	}
	if state == holdFlushed {
		e.removed = append(e.removed, HoldRef{Channel: d.Channel, Position: d.Position})
	}
	c.refreshGate()
	e.heldCount--
	if e.heldCount == 0 {
		e.heldFrom = len(e.chans)
	}
	e.counters.HoldsRemoved++
	e.counters.Deliveries++
	n := e.frontier.Len()
	e.mergeOwn(c, d.Position)
	if e.opts.Sabotage == SabotageSkipReceiptMerge {
		e.frontier.MergeFrom(d.Causes) // the sabotaged engine learns causes only at delivery
	}
	if e.frontier.Len() != n {
		if r := e.frontierGrew(d.Channel, d.Position); r != nil {
			e.fail(r)
			*d = Delivery{}
			return false
		}
	}
	switch np := e.past.Len(); {
	case x == nil || x.past == nil || x.mark != e.layout:
		if mergeCauses(&e.past, d.Causes); e.past.Len() != np {
			e.newLayout()
		}
	case x.pastRun >= 0:
		mergeRun(e.past.pairs, int(x.pastRun), d.Causes.pairs)
	default:
		mergeAt(e.past.pairs, d.Causes.pairs, x.past)
	}
	e.counters.CausesMerged += uint64(d.Causes.Len()) + 1
	return true
}

package node

import (
	"fmt"
	"strings"
)

// Receive feeds one record at pos on received channel ch, in exactly the order of SPEC §2.2/§2.3:
// extract the causes (UNDECODABLE_METADATA, METADATA_BUDGET_EXCEEDED), the in-execution order
// check (OUT_OF_ORDER_FEED), merge the carried causes into the frontier — even for a replay —,
// then replay handling against fedUpTo and the session floor (OUT_OF_ORDER_FEED on a deleted
// channel, COVERED_POSITION_FED above the floor, Duplicate at or below it), else raise fedUpTo
// and hold. A refusal is returned as *Refusal and kills the engine for the execution. Feeding a
// channel outside the received set, or a position outside 0..2^63−2, panics (host bug).
func (e *Engine) Receive(ch Channel, pos Offset, rec Record) (ReceiveOutcome, error) {
	i := e.mustIndex(ch)
	if pos < 0 || pos >= MaxOffset {
		panic(fmt.Sprintf("node: fed position %d on %v is outside 0..2^63-2", pos, ch))
	}
	if e.refusal != nil {
		return 0, e.refusal
	}
	c := &e.chans[i]
	causes, same, r := e.extractCauses(c, pos, rec.Headers)
	if r != nil {
		return 0, e.fail(r)
	}
	if c.lastFedKnown && pos <= c.lastFed {
		return 0, e.fail(refuse(ReasonOutOfOrderFeed, ch, pos, "fed after position %d in this execution", c.lastFed))
	}
	c.lastFed, c.lastFedKnown = pos, true
	var x *causeIndex
	if same && c.lastIndex != nil && c.lastIndex.mark == e.layout {
		x = c.lastIndex
	}
	switch {
	case e.opts.Sabotage == SabotageSkipReceiptMerge:
	case x != nil && x.front != nil: // the frontier has every channel: no growth, no refusal
		if x.frontRun >= 0 {
			mergeRun(e.frontier.pairs, int(x.frontRun), causes.pairs)
		} else {
			mergeAt(e.frontier.pairs, causes.pairs, x.front)
		}
		e.counters.CausesMerged += uint64(causes.Len())
	default:
		if r := e.mergeFrontier(causes, ch, pos); r != nil {
			return 0, e.fail(r)
		}
	}
	if x == nil {
		x = e.noteList(c, causes.pairs, same)
	}
	if c.fedKnown && pos <= c.fed {
		return e.replay(i, pos, rec, causes)
	}
	if e.opts.Sabotage == SabotageSilentDrop && pos == 3 {
		return Duplicate, nil
	}
	c.fed, c.fedKnown, c.fedDirty = pos, true, true // setFed; the gate follows the holds below
	e.markDirty(i)
	if hs := rec.Headers; len(hs) == 1 && strings.HasPrefix(hs[0].Key, ReservedHeaderPrefix) {
		rec.Headers = nil // the commonest case, without a call: parsley.causes alone
	} else if len(hs) > 0 {
		rec.Headers = visibleHeaders(hs)
	}
	h := c.held.pushSlot()
	h.msg.Channel, h.msg.Position, h.msg.Causes, h.state, h.index = ch, pos, causes, holdNew, x
	h.msg.Record.Key, h.msg.Record.Value, h.msg.Record.Headers = rec.Key, rec.Value, rec.Headers
	h.msg.Record.TimestampMicros = rec.TimestampMicros
	if c.held.len() == 1 { // the new head: the gate is below it (behind a head, it stays)
		c.gate = pos - 1
	}
	e.heldCount++
	e.heldFrom = min(e.heldFrom, i)
	c.holdsDirty = true
	e.counters.HoldsAdded++
	return Held, nil
}

// extractCauses is SPEC §2.2 step 2: no header → no causes; two or more → undecodable; raw length
// over the budget → METADATA_BUDGET_EXCEEDED, judged before decoding; decode failure →
// undecodable. The causes are decoded (exactly Decode's rules and errors) into storage carved from
// the engine's chunk (engine_arena.go). same reports whether they name the channels the last
// header on c named (engine_index.go): by decodeSame when that list is simple, which decodes such
// a value faster than the general walk, else by comparing the lists.
func (e *Engine) extractCauses(c *chanState, pos Offset, headers []Header) (_ Causes, same bool, _ *Refusal) {
	var value []byte
	var present bool
	var err error
	if len(headers) == 1 { // the commonest case, without a call: CausesHeader of one header
		if present = headers[0].Key == HeaderKey; present {
			value = headers[0].Value
		}
	} else {
		value, present, err = CausesHeader(headers)
	}
	if err != nil {
		if e.opts.Sabotage == SabotageUndecodableAsAbsent {
			return Causes{}, false, nil
		}
		return Causes{}, false, refuse(ReasonUndecodableMetadata, c.ch, pos, "%v", err)
	}
	if !present {
		return Causes{}, false, nil
	}
	if len(value) > e.budgetBytes {
		return Causes{}, false, refuse(ReasonMetadataBudgetExceeded, c.ch, pos,
			"%s header is %d bytes, budget %d", HeaderKey, len(value), e.budgetBytes)
	}
	e.counters.HeaderBytesDecoded += uint64(len(value))
	if c.lastSimple {
		if causes, ok := e.causes.decodeSame(value, c.lastList); ok {
			return causes, true, nil
		}
	}
	causes, err := e.causes.decode(value)
	if err != nil {
		if e.opts.Sabotage == SabotageUndecodableAsAbsent {
			return Causes{}, false, nil
		}
		return Causes{}, false, refuse(ReasonUndecodableMetadata, c.ch, pos, "%v", err)
	}
	// A value naming a simple list of fewer than 16,384 channels (an entry count of one or two
	// bytes) decodes by decodeSame or not at all; a longer list's repeat is taken as a changed
	// list.
	return causes, !c.lastSimple && sameChannels(c.lastList, causes.pairs), nil
}

// mergeFrontier merges causes into the frontier (pointwise maximum) and refuses when the frontier
// outgrows the budget. The encoded size depends only on the set of channels (positions are fixed
// width), so it is recomputed only when the merge added channels.
func (e *Engine) mergeFrontier(causes Causes, ch Channel, pos Offset) *Refusal {
	n := e.frontier.Len()
	mergeCauses(&e.frontier, causes)
	e.counters.CausesMerged += uint64(causes.Len())
	if e.frontier.Len() == n {
		return nil
	}
	return e.frontierGrew(ch, pos)
}

// frontierGrew refreshes frontierBytes after the frontier's channel count changed (and the
// layout mark: the frontier's channels changed), and refuses when it exceeds the budget.
func (e *Engine) frontierGrew(ch Channel, pos Offset) *Refusal {
	e.newLayout()
	e.frontierBytes = EncodedLen(e.frontier)
	if e.frontierBytes > e.budgetBytes {
		return refuse(ReasonMetadataBudgetExceeded, ch, pos,
			"frontier of %d channels encodes to %d bytes, budget %d", e.frontier.Len(), e.frontierBytes, e.budgetBytes)
	}
	return nil
}

// replay handles a record at or below fedUpTo (SPEC §2.2 step 5).
func (e *Engine) replay(i int, pos Offset, rec Record, causes Causes) (ReceiveOutcome, error) {
	c := &e.chans[i]
	if c.fed == MaxOffset {
		return 0, e.fail(refuse(ReasonOutOfOrderFeed, c.ch, pos, "fed on a channel recorded as no longer existing"))
	}
	if !c.floorKnown || pos > c.floor {
		if e.opts.Sabotage == SabotageTreatCoveredFeedAsReplay {
			return Duplicate, nil
		}
		floor := "none"
		if c.floorKnown {
			floor = fmt.Sprint(c.floor)
		}
		return 0, e.fail(refuse(ReasonCoveredPositionFed, c.ch, pos,
			"position inside this execution's coverage (fedUpTo %d, session floor %s)", c.fed, floor))
	}
	if e.opts.Sabotage == SabotageRedeliverRefeeds {
		rec.Headers = visibleHeaders(rec.Headers)
		e.holdAgain(i, HeldMessage{Channel: c.ch, Position: pos, Record: rec, Causes: causes})
		return Held, nil
	}
	return Duplicate, nil
}

// holdAgain is SabotageRedeliverRefeeds: it inserts a replay into the buffer in position order
// (unless that position is already held), so it is delivered again.
func (e *Engine) holdAgain(i int, m HeldMessage) {
	c := &e.chans[i]
	j := 0
	for j < c.held.len() && c.held.msg(j).Position < m.Position {
		j++
	}
	if j < c.held.len() && c.held.msg(j).Position == m.Position {
		return
	}
	c.held.insertAt(j, heldEntry{msg: m})
	c.refreshGate()
	e.heldCount++
	e.heldFrom = min(e.heldFrom, i)
	c.holdsDirty, c.scanAll = true, true
	e.markDirty(i)
	e.counters.HoldsAdded++
}

// visibleHeaders hides reserved parsley.* headers from the application (D56): it returns the
// headers without them, headers itself (no allocation) when there are none, and nil when there
// is nothing else.
func visibleHeaders(headers []Header) []Header {
	n := 0
	for i := range headers {
		if strings.HasPrefix(headers[i].Key, ReservedHeaderPrefix) {
			n++
		}
	}
	if n == 0 {
		return headers
	}
	if n == len(headers) {
		return nil // the commonest case: parsley.causes was the only header
	}
	visible := make([]Header, 0, len(headers)-n)
	for _, h := range headers {
		if !strings.HasPrefix(h.Key, ReservedHeaderPrefix) {
			visible = append(visible, h)
		}
	}
	return visible
}

package node

import "fmt"

// Emit validates an emission and stamps it (SPEC §3): the topic must be a declared send topic
// (EMISSION_TO_UNDECLARED_CHANNEL) and the application must not attach reserved parsley.* headers
// (RESERVED_HEADER_USED). It returns the record with exactly one parsley.causes header appended,
// whose value is the canonical encoding of the whole frontier; over the budget it refuses with
// METADATA_BUDGET_EXCEEDED. The input record is not modified. Refusals are terminal.
func (e *Engine) Emit(ch Channel, rec Record) (Record, error) {
	if !ch.valid() {
		panic(fmt.Sprintf("node: emission to invalid channel %v", ch))
	}
	if e.refusal != nil {
		return Record{}, e.refusal
	}
	if !topicSet(e.sendTopics).has(ch.Topic) {
		return Record{}, e.fail(refuse(ReasonEmissionToUndeclaredChannel, ch, noPosition,
			"topic %s is not a declared send topic", ch.Topic))
	}
	if key := ReservedHeader(rec.Headers); key != "" {
		return Record{}, e.fail(refuse(ReasonReservedHeaderUsed, ch, noPosition,
			"application header %q uses the reserved prefix %q", key, ReservedHeaderPrefix))
	}
	value, err := e.Stamp()
	if err != nil {
		return Record{}, err
	}
	headers := make([]Header, len(rec.Headers), len(rec.Headers)+1)
	copy(headers, rec.Headers)
	rec.Headers = append(headers, Header{Key: HeaderKey, Value: value})
	return rec, nil
}

// Stamp returns the parsley.causes value every emission carries now: the canonical encoding of
// the whole frontier (01 00 when empty), or METADATA_BUDGET_EXCEEDED when it is longer than the
// budget (equality is allowed).
func (e *Engine) Stamp() ([]byte, error) {
	if e.refusal != nil {
		return nil, e.refusal
	}
	expressed := e.frontier
	if e.opts.Sabotage == SabotageOverexpress {
		expressed = e.overexpressed()
	}
	size := EncodedLen(expressed)
	if size > e.budgetBytes {
		return nil, e.fail(refuse(ReasonMetadataBudgetExceeded, Channel{}, noPosition,
			"stamp of %d channels encodes to %d bytes, budget %d", expressed.Len(), size, e.budgetBytes))
	}
	value := AppendEncode(make([]byte, 0, size), expressed)
	e.counters.HeaderBytesEncoded += uint64(len(value))
	return value, nil
}

// overexpressed is SabotageOverexpress: the frontier raised to every received channel's fedUpTo
// (the deleted marker excepted, which no header may carry).
func (e *Engine) overexpressed() Causes {
	out := e.frontier.Clone()
	for i := range e.chans {
		c := &e.chans[i]
		if c.fedKnown && c.fed < MaxOffset {
			out.Merge(c.ch, c.fed)
		}
	}
	return out
}

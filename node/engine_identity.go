package node

import (
	"fmt"
	"slices"
)

// Identity is the identity report of this initialisation (SPEC §2.3 IDENTITY; once per
// initialisation, before the first drain): dead lists topic IDs confirmed deleted, recreated
// those whose name now binds to another ID. A recreated received topic refuses
// CHANNEL_IDENTITY_CHANGED; a deleted received channel still holding messages refuses
// CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES; a deleted received channel with nothing held gets
// fedUpTo = MaxOffset (settling every position). Every channel of a dead or recreated topic is
// pruned from the frontier and the delivered past. Nothing is pruned for age. Calling it twice
// panics.
func (e *Engine) Identity(dead, recreated []TopicID) error {
	if e.identityDone {
		panic("node: a second identity report in one initialisation")
	}
	e.identityDone = true
	if e.refusal != nil {
		return e.refusal
	}
	isDead := topicSet(dead)
	isRecreated := topicSet(recreated)
	for i := range e.chans {
		c := &e.chans[i]
		if isRecreated(c.ch.Topic) && e.opts.Sabotage != SabotageIgnoreRecreation {
			return e.fail(refuse(ReasonChannelIdentityChanged, c.ch, noPosition,
				"received topic %s was recreated under its name", c.ch.Topic))
		}
	}
	for i := range e.chans {
		c := &e.chans[i]
		if isDead(c.ch.Topic) && c.held.len() > 0 && e.opts.Sabotage != SabotageDeliverPastDeadHolds {
			return e.fail(refuse(ReasonChannelDeletedWithUndelivered, c.ch, c.held.front().msg.Position,
				"received topic deleted while %d message(s) from it are held", c.held.len()))
		}
	}
	for i := range e.chans {
		if isDead(e.chans[i].ch.Topic) && (!e.chans[i].fedKnown || e.chans[i].fed != MaxOffset) {
			e.setFed(i, MaxOffset)
		}
	}
	gone := func(ch Channel) bool { return isDead(ch.Topic) || isRecreated(ch.Topic) }
	n := e.frontier.Len()
	pruneCauses(&e.frontier, gone)
	pruneCauses(&e.past, gone)
	if e.frontier.Len() != n {
		e.frontierBytes = EncodedLen(e.frontier)
	}
	return nil
}

// topicSet returns a membership test for ids (sorted once; binary search).
func topicSet(ids []TopicID) func(TopicID) bool {
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, topicOrder)
	for _, id := range sorted {
		if id.IsZero() {
			panic(fmt.Sprintf("node: identity report names the zero topic ID"))
		}
	}
	return func(id TopicID) bool {
		_, ok := slices.BinarySearchFunc(sorted, id, topicOrder)
		return ok
	}
}

// pruneCauses removes every entry whose channel gone reports.
func pruneCauses(c *Causes, gone func(Channel) bool) {
	c.pairs = slices.DeleteFunc(c.pairs, func(p Cause) bool { return gone(p.Channel) })
}

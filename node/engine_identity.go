package node

import "slices"

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
	isDead := newTopicSet(dead)
	isRecreated := newTopicSet(recreated)
	for i := range e.chans {
		c := &e.chans[i]
		if isRecreated.has(c.ch.Topic) && e.opts.Sabotage != SabotageIgnoreRecreation {
			return e.fail(refuse(ReasonChannelIdentityChanged, c.ch, noPosition,
				"received topic %s was recreated under its name", c.ch.Topic))
		}
	}
	for i := range e.chans {
		c := &e.chans[i]
		if isDead.has(c.ch.Topic) && c.held.len() > 0 && e.opts.Sabotage != SabotageDeliverPastDeadHolds {
			return e.fail(refuse(ReasonChannelDeletedWithUndelivered, c.ch, c.held.front().Position,
				"received topic deleted while %d message(s) from it are held", c.held.len()))
		}
	}
	for i := range e.chans {
		if isDead.has(e.chans[i].ch.Topic) && (!e.chans[i].fedKnown || e.chans[i].fed != MaxOffset) {
			e.setFed(i, MaxOffset)
		}
	}
	if len(isDead) == 0 && len(isRecreated) == 0 {
		return nil // the usual report: nothing to prune
	}
	n, np := e.frontier.Len(), e.past.Len()
	pruneCauses(&e.frontier, isDead, isRecreated)
	pruneCauses(&e.past, isDead, isRecreated)
	if e.frontier.Len() != n {
		e.frontierBytes = EncodedLen(e.frontier)
	}
	if e.frontier.Len() != n || e.past.Len() != np {
		e.newLayout()
	}
	return nil
}

// topicSet is a set of topic IDs, sorted by topicOrder for binary search.
type topicSet []TopicID

// newTopicSet returns ids as a set. It panics on the zero ID. ids is used in place when already
// sorted (the usual identity report names zero or one topic), else sorted in a copy.
func newTopicSet(ids []TopicID) topicSet {
	for _, id := range ids {
		if id.IsZero() {
			panic("node: identity report names the zero topic ID")
		}
	}
	if slices.IsSortedFunc(ids, topicOrder) {
		return ids
	}
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, topicOrder)
	return sorted
}

// has reports whether id is in s. A small set (the usual report names zero to a few topics) is
// scanned for an equal ID, cheaper than ordering comparisons; a larger one binary-searched.
func (s topicSet) has(id TopicID) bool {
	if len(s) <= topicScanMax {
		for i := range s {
			if s[i] == id {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearchFunc(s, id, topicOrder)
	return ok
}

// topicScanMax is the largest topic set has scans linearly.
const topicScanMax = 8

// pruneCauses removes every entry whose channel's topic is in dead or recreated.
func pruneCauses(c *Causes, dead, recreated topicSet) {
	out := c.pairs[:0]
	for _, p := range c.pairs {
		if !dead.has(p.Channel.Topic) && !recreated.has(p.Channel.Topic) {
			out = append(out, p)
		}
	}
	clear(c.pairs[len(out):])
	c.pairs = out
}

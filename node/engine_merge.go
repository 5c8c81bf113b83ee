package node

// mergeCauses raises dst pointwise to at least src (a pointwise maximum), like Causes.MergeFrom,
// tuned for the engine's hot path: a delivered or received message usually names the channels
// the frontier already has, in the same order, so the walk first tries the next entry of dst for
// each entry of src (one equality test, in place); anything else goes on in mergeRest.
func mergeCauses(dst *Causes, src Causes) {
	s := src.pairs
	if len(dst.pairs) < len(s) {
		mergeRest(dst, src, 0, 0)
		return
	}
	d := dst.pairs[:len(s)] // while dst's entries match src's one for one, they share an index
	for k := range s {
		o, p := &s[k], &d[k]
		if p.Channel != o.Channel {
			mergeRest(dst, src, k, k)
			return
		}
		if o.Position > p.Position {
			p.Position = o.Position
		}
	}
}

// mergeRest is mergeCauses from dst's entry i and src's entry k on, where dst's entry i is not
// src's channel: it skips dst's entries below each source channel, raises the ones it finds, and
// falls back to MergeFrom when src names a channel dst lacks. Out of line, so that mergeCauses's
// walk keeps its state in registers.
//
//go:noinline
func mergeRest(dst *Causes, src Causes, i, k int) {
	d, s := dst.pairs, src.pairs
	for ; k < len(s); k++ {
		o := &s[k]
		for {
			if i == len(d) {
				dst.MergeFrom(src)
				return
			}
			p := &d[i]
			if p.Channel == o.Channel {
				if o.Position > p.Position {
					p.Position = o.Position
				}
				i++
				break
			}
			if compareChannelsAt(&p.Channel, &o.Channel) > 0 {
				dst.MergeFrom(src)
				return
			}
			i++
		}
	}
}

// compareChannelsAt is compareChannels on channels in place.
func compareChannelsAt(a, b *Channel) int {
	if a.Topic != b.Topic {
		return compareTopicIDs(&a.Topic, &b.Topic)
	}
	switch {
	case a.Partition < b.Partition:
		return -1
	case a.Partition > b.Partition:
		return 1
	}
	return 0
}

// mergeOwn merges a delivered message's own coordinate (c's channel at pos) into the frontier. The
// index where c's channel sat last time is tried first (and checked: insertions and prunes move
// entries), so a delivery usually costs one comparison instead of a binary search.
func (e *Engine) mergeOwn(c *chanState, pos Offset) {
	f := e.frontier.pairs
	if h := c.frontierHint; h < len(f) && f[h].Channel == c.ch {
		if pos > f[h].Position {
			f[h].Position = pos
		}
		return
	}
	e.frontier.Merge(c.ch, pos)
	c.frontierHint, _ = e.frontier.search(c.ch)
}

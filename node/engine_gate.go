package node

// The engine's own gate: SPEC §2.1 over the received channels' settled positions (SPEC §1.4),
// walked directly instead of through the ReceivedSet and SettledView interfaces. A message's
// causes and the received channels are both sorted in channel order, so one merge-like pass
// answers every cause: O(width + received channels) integer comparisons, no interface calls, no
// searches. Decide defines the semantics; TestEngineGateMatchesDecide holds this walk to it.

// satisfied reports whether every cause on a received channel is at or below that channel's
// settled position (known). It counts the cause entries it examines in CausesCompared: all of
// them when satisfied, else those up to and including the first unsatisfied one.
func (e *Engine) satisfied(causes []Cause) bool {
	chans := e.chans
	j := 0
	for i := range causes {
		c := &causes[i]
		if j < len(chans) && chans[j].ch == c.Channel { // the commonest step: the next received channel
			if c.Position > chans[j].gate {
				e.counters.CausesCompared += uint64(i + 1)
				return false
			}
			j++
			continue
		}
		if j = seekKey(e.keys, j, keyOf(&c.Channel)); j < len(chans) && chans[j].ch == c.Channel {
			if c.Position > chans[j].gate {
				e.counters.CausesCompared += uint64(i + 1)
				return false
			}
			j++
		}
	}
	e.counters.CausesCompared += uint64(len(causes))
	return true
}

// satisfiedAt is satisfied by x, the index of causes: x.recv[k] is the index in chans of
// causes[k]'s channel, or −1 when it is not received. It counts as satisfied does.
func (e *Engine) satisfiedAt(causes []Cause, x *causeIndex) bool {
	var k int
	if r := int(x.recvRun); r >= 0 {
		k = blockedRun(causes, e.chans[r:r+len(causes)])
	} else {
		k = blockedAt(causes, x.recv, e.chans)
	}
	if k >= 0 {
		e.counters.CausesCompared += uint64(k + 1)
		return false
	}
	e.counters.CausesCompared += uint64(len(causes))
	return true
}

// blockedRun is blockedAt where the causes' channels are chans, in order.
//
//go:noinline
func blockedRun(causes []Cause, chans []chanState) int {
	chans = chans[:len(causes)]
	for k := range causes {
		if causes[k].Position > chans[k].gate {
			return k
		}
	}
	return -1
}

// blockedAt returns the index of the first cause above its received channel's gate, or −1.
//
//go:noinline
func blockedAt(causes []Cause, recv []int32, chans []chanState) int {
	recv = recv[:len(causes)]
	for k := range causes {
		if r := recv[k]; r >= 0 && causes[k].Position > chans[r].gate {
			return k
		}
	}
	return -1
}

// seekKey returns the index of the first key at or after j that is not below k.
func seekKey(keys []channelKey, j int, k channelKey) int {
	for j < len(keys) && keys[j].less(k) {
		j++
	}
	return j
}

// appendBlockers appends the blockers of causes to dst (Decide's verdict, for Status). It counts
// no work: diagnosis is not drain work.
func (e *Engine) appendBlockers(dst []Blocker, causes []Cause) []Blocker {
	j := 0
	for i := range causes {
		c := &causes[i]
		k := keyOf(&c.Channel)
		for j < len(e.keys) && e.keys[j].less(k) {
			j++
		}
		if j == len(e.keys) || e.keys[j] != k {
			continue // not received: never blocks
		}
		if pos, known := e.chans[j].settled(); !known || c.Position > pos {
			dst = appendBlocker(dst, c, pos, known)
		}
		j++
	}
	return dst
}

// index returns the position of ch in chans, or -1 when ch is not received.
func (e *Engine) index(ch Channel) int {
	k := keyOf(&ch)
	if len(e.keys) <= 8 { // a few channels: a scan of equality tests beats the search's branches
		for j := range e.keys {
			if e.keys[j] == k {
				return j
			}
		}
		return -1
	}
	lo, hi := 0, len(e.keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if e.keys[m].less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(e.keys) && e.keys[lo] == k {
		return lo
	}
	return -1
}

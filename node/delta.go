package node

import "slices"

// Delta is one step's change to the committed ordering state: what the host commits atomically
// with the step's sends and read positions (SPEC §1.3, Host obligation 3). Its size is
// proportional to what the step did — the holds it took and released, the channels whose fedUpTo
// rose, the frontier and delivered-past entries that changed — never to the depth of the
// hold-back buffers. A hold both taken and delivered within the step does not appear (D102).
//
// Every list is sorted by channel (RemovedHolds and NewHolds by channel, then position).
type Delta struct {
	SetVersion      bool          // write the format version entry (the process's first commit)
	Bindings        []Binding     // bindings to set (new or first recorded), sorted by name
	Fed             []FedPosition // fedUpTo values to set
	FrontierRemoved []Channel     // frontier entries pruned (dead or recreated channels)
	Frontier        []Cause       // frontier entries to set (after the removals)
	PastRemoved     []Channel     // delivered-past entries pruned
	Past            []Cause       // delivered-past entries to set (after the removals)
	RemovedHolds    []HoldRef     // committed holds delivered or discarded in the step
	NewHolds        []HeldMessage // holds taken in the step and still held at its end
}

// IsEmpty reports whether the delta changes nothing.
func (d Delta) IsEmpty() bool {
	return !d.SetVersion && len(d.Bindings) == 0 && len(d.Fed) == 0 && len(d.FrontierRemoved) == 0 &&
		len(d.Frontier) == 0 && len(d.PastRemoved) == 0 && len(d.Past) == 0 && len(d.RemovedHolds) == 0 &&
		len(d.NewHolds) == 0
}

// Apply applies a step's delta to the committed state. It costs in proportion to the delta (plus
// a binary search per touched channel). It never writes into a filled slot of a hold queue
// (fifo.popShared), so engines started from s, which view its holds in place, are unaffected. A
// delta that does not fit s — removing a hold s does not have, adding one it already has or one
// above fedUpTo — is refused with UNKNOWN_ORDERING_STATE_FORMAT and leaves s unchanged.
func (s *State) Apply(d Delta) error {
	if r := s.checkApply(d); r != nil {
		return r
	}
	wasValid := s.checked || s.IsEmpty() // validate accepts the empty state
	if d.SetVersion {
		s.version = stateVersion
	}
	for _, b := range d.Bindings {
		s.setBinding(b)
	}
	lowered := false // a fedUpTo went down: a committed hold may now sit above it
	for _, f := range d.Fed {
		lowered = s.setFed(f.Channel, f.FedUpTo) || lowered
	}
	applyCauses(&s.frontier, d.FrontierRemoved, d.Frontier)
	applyCauses(&s.past, d.PastRemoved, d.Past)
	for _, r := range d.RemovedHolds {
		q := s.holdQueue(r.Channel, false)
		q.dropAtShared(findHold(q, r.Position))
	}
	for _, m := range d.NewHolds {
		q := s.holdQueue(m.Channel, true)
		if q.len() == 0 || q.back().Position < m.Position {
			q.pushShared(m)
			continue
		}
		q.insertAtShared(findInsert(q, m.Position), m) // a REDELIVER_REFEEDS delta only
	}
	if len(d.RemovedHolds) > 0 {
		s.dropEmptyHolds()
	}
	s.checked = wasValid && s.keepsInvariants(d, lowered)
	return nil
}

// keepsInvariants reports, after s.Apply(d) on a state that passed validate, whether s still
// passes it, looking only at what d touched: the order of every list is kept by Apply itself
// (sorted inserts, whatever the order in d; checkApply refuses a hold the state already has), so
// it checks the values d brought (as validate would) and, when a fedUpTo was lowered, that no
// committed hold sits above it. It may say false for a valid state (Start then validates it),
// never true for an invalid one.
func (s *State) keepsInvariants(d Delta, lowered bool) bool {
	for _, b := range d.Bindings {
		if b.Name == "" || b.Topic.IsZero() {
			return false
		}
	}
	for i := range d.Fed {
		f := &d.Fed[i]
		if !f.Channel.valid() || f.FedUpTo < 0 {
			return false
		}
		if !lowered {
			continue
		}
		if q := s.holdQueue(f.Channel, false); q != nil && q.len() > 0 && q.back().Position > f.FedUpTo {
			return false
		}
	}
	if !validPairs(d.Frontier) || !validPairs(d.Past) {
		return false
	}
	for k := range d.NewHolds {
		m := &d.NewHolds[k]
		if !m.Channel.valid() || m.Position < 0 || m.Position >= MaxOffset || validateCauses("held causes", m.Causes) != nil {
			return false
		}
		if k > 0 {
			p := &d.NewHolds[k-1]
			if c := compareChannels(p.Channel, m.Channel); c > 0 || (c == 0 && p.Position >= m.Position) {
				return false // two new holds at one position would break the strict order
			}
		}
	}
	return true
}

// validPairs reports whether every pair names a valid channel and a position in 0..MaxOffset−1.
func validPairs(pairs []Cause) bool {
	for i := range pairs {
		if p := &pairs[i]; !p.Channel.valid() || uint64(p.Position) >= uint64(MaxOffset) { // negative too
			return false
		}
	}
	return true
}

// checkApply refuses a delta that does not fit s, without changing s.
func (s *State) checkApply(d Delta) *Refusal {
	if s.version == 0 && !d.SetVersion && !d.IsEmpty() {
		return formatRefusal("delta applied to a state without a version entry does not write one")
	}
	skip := 0 // earlier removals on the same channel, which precede this one in FIFO order
	for i, r := range d.RemovedHolds {
		if i > 0 && d.RemovedHolds[i-1].Channel == r.Channel {
			skip++
		} else {
			skip = 0
		}
		q := s.holdQueue(r.Channel, false)
		if q == nil || findHoldFrom(q, r.Position, skip) < 0 {
			return refuse(ReasonUnknownOrderingStateFormat, r.Channel, r.Position, "delta removes a hold the state does not have")
		}
	}
	for _, m := range d.NewHolds {
		fed, ok := s.FedUpTo(m.Channel)
		if j, found := slices.BinarySearchFunc(d.Fed, m.Channel, func(f FedPosition, ch Channel) int {
			return compareChannels(f.Channel, ch)
		}); found {
			fed, ok = d.Fed[j].FedUpTo, true
		}
		if !ok || m.Position > fed {
			return refuse(ReasonUnknownOrderingStateFormat, m.Channel, m.Position, "delta adds a hold above the channel's fedUpTo")
		}
		if q := s.holdQueue(m.Channel, false); q != nil && q.len() > 0 && q.back().Position >= m.Position {
			if i := findHold(q, m.Position); i >= 0 && !removedIn(d.RemovedHolds, m.Channel, m.Position) {
				return refuse(ReasonUnknownOrderingStateFormat, m.Channel, m.Position, "delta adds a hold the state already has")
			}
		}
	}
	return nil
}

// removedIn reports whether refs name (ch, pos).
func removedIn(refs []HoldRef, ch Channel, pos Offset) bool {
	return slices.Contains(refs, HoldRef{Channel: ch, Position: pos})
}

// findHold returns the index of the hold at pos in q, or -1. The front is checked first, so the
// honest case (removals in FIFO order) is O(1).
func findHold(q *fifo[HeldMessage], pos Offset) int { return findHoldFrom(q, pos, 0) }

// findHoldFrom is findHold that first tries index hint (the number of earlier removals on the
// same channel, which in FIFO order sit just before it).
func findHoldFrom(q *fifo[HeldMessage], pos Offset, hint int) int {
	if hint < q.len() && q.at(hint).Position == pos {
		return hint
	}
	i, ok := slices.BinarySearchFunc(q.live(), pos, func(m HeldMessage, p Offset) int { return cmpOffset(m.Position, p) })
	if !ok {
		return -1
	}
	return i
}

// findInsert returns where a hold at pos belongs in q.
func findInsert(q *fifo[HeldMessage], pos Offset) int {
	i, _ := slices.BinarySearchFunc(q.live(), pos, func(m HeldMessage, p Offset) int { return cmpOffset(m.Position, p) })
	return i
}

func cmpOffset(a, b Offset) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// applyCauses removes the channels in removed from c, then sets each pair of set exactly (a set
// may lower a position that an earlier prune removed and a later receipt re-added lower).
func applyCauses(c *Causes, removed []Channel, set []Cause) {
	for _, ch := range removed {
		c.Remove(ch)
	}
	for k, p := range set {
		i, ok := c.search(p.Channel)
		if ok {
			c.pairs[i].Position = p.Position
			continue
		}
		if len(c.pairs) == cap(c.pairs) {
			c.pairs = slices.Grow(c.pairs, len(set)-k) // room for the rest at once
		}
		c.pairs = slices.Insert(c.pairs, i, p)
	}
}

// diffCausesInto returns what turns old into cur, appending to removed[:0] and set[:0] (storage a
// caller reuses): channels of old missing from cur, and pairs of cur that old lacks or names
// differently. An empty result is nil. The usual step changes a few positions of the same
// channels: that case is counted in a first walk.
func diffCausesInto(old, cur Causes, removed []Channel, set []Cause) ([]Channel, []Cause) {
	removed, set = removed[:0], set[:0]
	a, b := old.pairs, cur.pairs
	if len(a) == len(b) {
		changed := 0
		for i := range a {
			if a[i].Channel != b[i].Channel {
				changed = -1
				break
			}
			if a[i].Position != b[i].Position {
				changed++
			}
		}
		if changed >= 0 {
			if changed == 0 {
				return nil, nil
			}
			if cap(set) < changed {
				set = make([]Cause, 0, changed)
			}
			for i := range b {
				if a[i].Position != b[i].Position {
					set = append(set, b[i])
				}
			}
			return nil, set
		}
	}
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && compareChannels(a[0].Channel, b[0].Channel) < 0):
			removed = append(removed, a[0].Channel)
			a = a[1:]
		case len(a) == 0 || compareChannels(b[0].Channel, a[0].Channel) < 0:
			set = append(set, b[0])
			b = b[1:]
		default:
			if a[0].Position != b[0].Position {
				set = append(set, b[0])
			}
			a, b = a[1:], b[1:]
		}
	}
	return nilIfEmpty(removed), nilIfEmpty(set)
}

// nilIfEmpty returns s, or nil when it is empty: a Delta's empty lists are nil whatever storage
// they were built in.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

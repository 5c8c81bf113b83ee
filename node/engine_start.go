package node

import (
	"fmt"
	"slices"
)

// Start is full initialisation of one execution from the committed ordering state (nil or an
// empty State = no state yet), in the order of SPEC §2.3 INIT: refuse corrupt state
// (UNKNOWN_ORDERING_STATE_FORMAT), refuse holds on a channel no longer received
// (CHANNEL_REMOVED_WITH_HELD_MESSAGES), refuse a declared name now bound to another topic ID
// (CHANNEL_IDENTITY_CHANGED); then the join clamp (fedUpTo ≥ deliveredPast), then start positions
// (s > 0 ⇒ fedUpTo ≥ s−1), then the session floor. A refusal is returned as *Refusal. Nothing is
// delivered inside initialisation; the changes it makes are part of the first Commit. The engine
// does not alias committed: the host may keep applying deltas to it.
//
// Malformed Init (invalid or duplicate channels, a start position on an unreceived channel, a
// negative start position, empty names, zero IDs) panics: it is a programming error of the host.
func Start(committed *State, init Init, opts Options) (*Engine, error) {
	return StartInto(nil, committed, init, opts)
}

// StartInto is Start building the engine in the storage of dst, when not nil: an engine nothing
// reads or changes any more (the simulator's explorer recycles the engines of worlds it is done
// with, and restarts a process on many transitions). dst's struct, channel array, frontier block,
// step change lists and CommitReused's room are reused, so a start costs up to three allocations
// fewer. The slices a clone of dst may share (channel keys, send topics, retained positions,
// bindings) are never written; the keys, send topics and bindings are kept, as they are, when the
// new engine's are equal to them (a process restarted with the same declaration), else made
// afresh. It returns dst (or a new engine when dst is nil) in exactly the state Start returns, or
// nil and the refusal; either way dst must not be used again except as the engine returned.
func StartInto(dst *Engine, committed *State, init Init, opts Options) (*Engine, error) {
	var spare []Cause          // dst's frontier block, for the frontiers' copies
	var prevBindings []Binding // dst's bindings: kept when the new ones are equal (read-only)
	if dst != nil {
		spare, prevBindings = dst.causeBlock, dst.bindings
	}
	e := newEngineInto(dst, init, opts)
	st := committed
	if st == nil {
		st = &State{}
	}
	if !st.checked {
		if r := st.validate(); r != nil {
			return nil, r
		}
	}
	e.versionDirty = st.version == 0
	if r := e.restoreHolds(st); r != nil {
		return nil, r
	}
	if r := e.restoreBindings(st, init.Bindings, prevBindings); r != nil {
		return nil, r
	}
	e.restoreFed(st)
	e.frontier, e.past, e.commitFrontier, e.commitPast = st.frontier, st.past, st.frontier, st.past
	e.causeBlock = copyCausesBlockInto([]*Causes{&e.frontier, &e.past, &e.commitFrontier, &e.commitPast}, spare, startCauseRoom)
	e.frontierBytes = EncodedLen(e.frontier)
	e.joinClamp()
	e.applyStartPositions(init.StartPositions)
	for i := range e.chans {
		c := &e.chans[i]
		c.floor, c.floorKnown = c.fed, c.fedKnown
		c.refreshGate()
	}
	return e, nil
}

// startCauseRoom is the spare entries each frontier a start copies from the state gets: an
// execution's receipts and deliveries add a channel or two, which then need no new storage.
const startCauseRoom = 2

// newEngine is newEngineInto new storage.
func newEngine(init Init, opts Options) *Engine { return newEngineInto(nil, init, opts) }

// newEngineInto builds an engine with the received set and send topics of init, checking the
// preconditions: in dst's struct, channel array and step change lists when dst is not nil
// (StartInto), else in new storage.
func newEngineInto(dst *Engine, init Init, opts Options) *Engine {
	if opts.MetadataBudgetBytes < 0 || opts.Sabotage >= sabotageCount {
		panic(fmt.Sprintf("node: invalid options %+v", opts))
	}
	e := dst
	var chans []chanState
	var prevKeys []channelKey
	var prevSend []TopicID
	if e == nil {
		e = &Engine{}
	} else {
		chans, prevKeys, prevSend = dst.chans[:cap(dst.chans)], dst.keys, dst.sendTopics
		*e = Engine{dirty: dst.dirty[:0], removed: dst.removed[:0], deltaRoom: dst.deltaRoom}
	}
	e.opts, e.budgetBytes = opts, opts.MetadataBudgetBytes
	if e.budgetBytes == 0 {
		e.budgetBytes = DefaultMetadataBudgetBytes
	}
	if n := len(init.Received); dst != nil && cap(chans) >= n {
		e.chans = chans[:n]
		clear(e.chans)
	} else {
		e.chans = make([]chanState, n)
	}
	for i, ch := range init.Received {
		e.chans[i].ch = ch
	}
	slices.SortFunc(e.chans, func(a, b chanState) int { return compareChannels(a.ch, b.ch) })
	for i := range e.chans {
		ch := &e.chans[i].ch
		if !ch.valid() || (i > 0 && e.chans[i-1].ch == *ch) {
			panic(fmt.Sprintf("node: received channel %v is invalid or listed twice", *ch))
		}
	}
	e.keys = channelKeys(e.chans, prevKeys)
	e.sendTopics = sendTopicSet(init.SendTopics, prevSend)
	return e
}

// channelKeys returns the keys of chans: prev itself when it holds exactly those keys (it is
// read-only, possibly shared with clones, and stays unchanged), else a new slice.
func channelKeys(chans []chanState, prev []channelKey) []channelKey {
	same := len(prev) == len(chans) && len(prev) > 0
	for i := 0; same && i < len(chans); i++ {
		same = prev[i] == keyOf(&chans[i].ch)
	}
	if same {
		return prev
	}
	keys := make([]channelKey, len(chans))
	for i := range chans {
		keys[i] = keyOf(&chans[i].ch)
	}
	return keys
}

// sendTopicSet returns the set of topics, sorted by topicOrder: prev itself when it is that set
// (prev is a dead engine's, read-only, possibly shared with clones, and stays unchanged), else a
// sorted copy.
func sendTopicSet(topics, prev []TopicID) []TopicID {
	if sameTopicSet(topics, prev) {
		return prev
	}
	sorted := slices.Clone(topics)
	slices.SortFunc(sorted, topicOrder)
	return slices.Compact(sorted)
}

// sameTopicSet reports whether topics (any order, duplicates allowed) names exactly the topics of
// set (sorted, unique, at most 64: a larger set is reported as different).
func sameTopicSet(topics, set []TopicID) bool {
	if len(set) == 0 || len(set) > 64 || len(topics) < len(set) {
		return false
	}
	var seen uint64 // bit i: set[i] is named
	for _, t := range topics {
		i := slices.Index(set, t)
		if i < 0 {
			return false
		}
		seen |= 1 << i
	}
	return seen == 1<<len(set)-1 // all ones when len(set) is 64: the shift gives 0
}

// restoreHolds loads the committed holds of received channels and refuses holds on a channel no
// longer received (or discards them under SabotageIgnoreRemovedChannels). A received channel's
// committed holds are viewed in place, not copied (heldBuffer): a restart costs nothing per held
// message. The channels' own buffers start empty and unallocated.
func (e *Engine) restoreHolds(st *State) *Refusal {
	for _, h := range st.holds {
		live := h.queue.live()
		if i := e.index(h.ch); i >= 0 {
			e.chans[i].held.restored = live[:len(live):len(live)]
			e.heldCount += len(live)
			continue
		}
		if e.opts.Sabotage != SabotageIgnoreRemovedChannels {
			return refuse(ReasonChannelRemovedWithHeldMessages, h.ch, live[0].Position,
				"%d held message(s) on a channel the declaration no longer receives", len(live))
		}
		for _, m := range live {
			e.removed = append(e.removed, HoldRef{Channel: h.ch, Position: m.Position})
		}
	}
	return nil
}

// restoreBindings refuses a declared name bound to another topic ID than recorded, and records
// new bindings. When no binding is new and prev (a dead engine's bindings, read-only) equals
// the recorded ones, the engine keeps prev instead of a copy.
func (e *Engine) restoreBindings(st *State, declared, prev []Binding) *Refusal {
	byName := func(a, b Binding) int { return compareStrings(a.Name, b.Name) }
	decl := declared // read-only; sorted in a copy when the host did not sort it
	if !slices.IsSortedFunc(decl, byName) {
		decl = slices.Clone(declared)
		slices.SortFunc(decl, byName)
	}
	added := 0
	j := 0 // both lists are sorted by name (the state's by its invariant): one merge walk
	for i, b := range decl {
		if b.Name == "" || b.Topic.IsZero() || (i > 0 && decl[i-1].Name == b.Name) {
			panic(fmt.Sprintf("node: declared binding %q -> %s is empty, zero or listed twice", b.Name, b.Topic))
		}
		for j < len(st.bindings) && st.bindings[j].Name < b.Name {
			j++
		}
		ok := j < len(st.bindings) && st.bindings[j].Name == b.Name
		if ok && st.bindings[j].Topic != b.Topic {
			return refuse(ReasonChannelIdentityChanged, Channel{Topic: b.Topic}, noPosition,
				"topic %q was recorded as %s and now resolves to %s", b.Name, st.bindings[j].Topic, b.Topic)
		}
		if !ok {
			added++
		}
	}
	if len(st.bindings)+added == 0 {
		return nil
	}
	if added == 0 && slices.Equal(st.bindings, prev) {
		e.bindings = prev
		return nil
	}
	e.bindings = make([]Binding, len(st.bindings), len(st.bindings)+added)
	copy(e.bindings, st.bindings)
	if added == 0 {
		return nil
	}
	tmp := State{bindings: e.bindings}
	for _, b := range decl {
		if _, ok := st.searchBinding(b.Name); !ok {
			tmp.setBinding(b)
		}
	}
	e.bindings = tmp.bindings
	e.bindingsDirty = true
	return nil
}

// restoreFed loads fedUpTo: received channels into chans, the others into retained.
func (e *Engine) restoreFed(st *State) {
	n := 0
	for _, f := range st.fed {
		if i := e.index(f.Channel); i >= 0 {
			e.chans[i].fed, e.chans[i].fedKnown = f.FedUpTo, true
			n++
		}
	}
	if n == len(st.fed) {
		return
	}
	e.retained = make([]FedPosition, 0, len(st.fed)-n)
	for _, f := range st.fed {
		if e.index(f.Channel) < 0 {
			e.retained = append(e.retained, f)
		}
	}
}

// joinClamp is SPEC §1.5 rule 4: a received channel's fedUpTo rises to the delivered past.
func (e *Engine) joinClamp() {
	for i := range e.chans {
		c := &e.chans[i]
		p, ok := e.past.Lookup(c.ch)
		if ok && (!c.fedKnown || c.fed < p) {
			e.setFed(i, p)
		}
	}
}

// applyStartPositions is SPEC §1.5 rule 2: a start position s > 0 raises fedUpTo to s−1.
func (e *Engine) applyStartPositions(starts []Cause) {
	var seenWord [1]uint64 // a bit per received channel, on the stack for up to 64 channels
	seen := seenWord[:]
	if len(e.chans) > 64 {
		seen = make([]uint64, (len(e.chans)+63)/64)
	}
	for _, s := range starts {
		i := e.mustIndex(s.Channel)
		if s.Position < 0 || seen[i/64]&(1<<(i%64)) != 0 {
			panic(fmt.Sprintf("node: start position %v@%d is negative or listed twice", s.Channel, s.Position))
		}
		seen[i/64] |= 1 << (i % 64)
		c := &e.chans[i]
		if s.Position > 0 && (!c.fedKnown || c.fed < s.Position-1) {
			e.setFed(i, s.Position-1)
		}
	}
}

// compareStrings orders strings bytewise.
func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

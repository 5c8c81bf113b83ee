package refnode

import (
	"fmt"
	"slices"
)

// DefaultBudgetBytes is the default metadata budget, 256 KiB (SPEC §3).
const DefaultBudgetBytes = 256 << 10

// Init is what the host knows at an execution start (SPEC §2.3 INIT).
type Init struct {
	// Received is the received-channel set R of this execution.
	Received []Channel
	// Bindings are the declared received topics' names and the IDs they resolve to now.
	Bindings []Binding
	// SendTopics are the topics the process may emit to.
	SendTopics []TopicID
	// Starts is each received channel's start position: the first position the host will feed.
	Starts Positions
	// BudgetBytes is the metadata budget B; 0 means DefaultBudgetBytes.
	BudgetBytes int
}

// Node is one execution of one process: the state of SPEC §2.3.
//
// received, sends, bindings and floor are set by Start and never changed afterwards, so copies
// and committed states share them; the other lists are each node's own (a buffer's messages are
// shared: Buffer).
type Node struct {
	received []Channel // R, in channel order: the drain's scan order
	sends    []TopicID // the declared send topics, sorted
	budget   int       // B

	// Persisted, step-atomic (what Commit hands back).
	version  int
	bindings []Binding // sorted by name
	fed      Positions // fedUpTo, of received channels and of those that left R
	held     buffers
	frontier Positions
	past     Positions

	// Per execution, memory only.
	floor   Positions // fedUpTo at the end of initialisation
	lastFed Positions // last position fed in this execution
	// last is the committed state this execution started from or last committed: a list the
	// next commit would copy unchanged from it is shared with it instead (a State is never
	// changed).
	last *State

	identityDone bool
	refusal      *Refusal

	// stamp is the value Stamp returned last and stamped a copy of the frontier it encodes (nil
	// before the first): a delivery's emissions all carry one frontier, so Stamp hands the value
	// out again while the frontier is the same. Neither is ever changed, so copies share them;
	// a cache, not state.
	stamp   []byte
	stamped Positions
}

// Start is SPEC §2.3 INIT, in its order: restore the committed state (refusing corrupt rows),
// refuse a restored hold on a channel not in R, refuse a declared name now bound to another topic
// ID (recording names seen for the first time), then for every received channel the join clamp
// (fed ≥ past), then the start position (s > 0 ⇒ fed ≥ s−1), then the session floor = fed.
// committed is not changed.
func Start(committed *State, init Init) (*Node, *Refusal) {
	if r := committed.check(); r != nil {
		return nil, r
	}
	if committed == nil {
		committed = &State{}
	}
	// The node's five position lists share one allocation (carve): fed gains at most the
	// received channels, floor and lastFed hold only those, the frontier and the past a few.
	r := len(init.Received)
	block := make(Positions, 0, len(committed.Fed)+len(committed.Frontier)+len(committed.Past)+3*r+2*listRoom)
	n := &Node{
		budget: init.BudgetBytes, version: committed.Version, last: committed,
		fed: carve(&block, committed.Fed, r), held: buffers(committed.Held).clipped(),
		frontier: carve(&block, committed.Frontier, listRoom), past: carve(&block, committed.Past, listRoom),
	}
	if n.budget == 0 {
		n.budget = DefaultBudgetBytes
	}
	n.received = slices.Clone(init.Received)
	slices.SortFunc(n.received, compareChannels)
	for i, c := range n.received {
		if !c.valid() || (i > 0 && n.received[i-1] == c) {
			panic(fmt.Sprintf("refnode: received channel %v is invalid or listed twice", c))
		}
	}
	n.sends = slices.Clone(init.SendTopics)
	slices.SortFunc(n.sends, func(a, b TopicID) int { return compareChannels(Channel{Topic: a}, Channel{Topic: b}) })
	for _, b := range n.held {
		if !n.receives(b.Channel) {
			return nil, refuse(ChannelRemovedWithHeld, "%d held message(s) on %v, which the declaration no longer receives", len(b.Messages), b.Channel)
		}
	}
	n.bindings = slices.Clone(committed.Bindings)
	for _, b := range init.Bindings {
		if recorded, ok := n.binding(b.Name); ok && recorded != b.Topic {
			return nil, refuse(ChannelIdentityChanged, "topic %q was recorded as %s and now resolves to %s", b.Name, recorded, b.Topic)
		}
	}
	for _, b := range init.Bindings {
		if _, ok := n.binding(b.Name); !ok {
			n.bindings = append(n.bindings, b)
		}
	}
	slices.SortFunc(n.bindings, func(a, b Binding) int { return compareStrings(a.Name, b.Name) })
	for _, c := range n.received {
		if p, ok := n.past.Get(c); ok {
			n.fed.Raise(c, p) // join clamp
		}
	}
	for _, s := range init.Starts {
		if !n.receives(s.Channel) || s.Position < 0 {
			panic(fmt.Sprintf("refnode: start position %v@%d is negative or on a channel not received", s.Channel, s.Position))
		}
		if s.Position > 0 {
			n.fed.Raise(s.Channel, s.Position-1) // start position
		}
	}
	n.floor = carve(&block, nil, r)
	for _, c := range n.received {
		if f, ok := n.fed.Get(c); ok {
			n.floor.Set(c, f) // session floor
		}
	}
	n.lastFed = carve(&block, nil, r)
	return n, nil
}

// listRoom is the spare room Start gives the frontier and the delivered past.
const listRoom = 2

// carve copies p to the free room of block, a list with capacity for every list carved from it,
// and returns the copy with room more entries of spare capacity, capped there: a list that
// outgrows its room is moved out by append on its own, so no list writes into another's, and
// each holder of the block owns its piece alone (what sharing the State does is Commit's).
func carve(block *Positions, p Positions, room int) Positions {
	b := *block
	at := len(b)
	b = append(b, p...)
	end := len(b)
	*block = b[:end+room]
	return b[at : end : end+room]
}

// Identity is SPEC §2.3 IDENTITY, once per initialisation: a recreated received topic refuses
// CHANNEL_IDENTITY_CHANGED; a deleted received channel holding messages refuses
// CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES; a deleted received channel holding nothing gets
// fedUpTo End; every channel of a dead or recreated topic leaves the frontier and the delivered
// past. A second report panics (a host bug).
func (n *Node) Identity(dead, recreated []TopicID) *Refusal {
	if n.identityDone {
		panic("refnode: a second identity report in one initialisation")
	}
	n.identityDone = true
	if n.refusal != nil {
		return n.refusal
	}
	for _, c := range n.received {
		if slices.Contains(recreated, c.Topic) {
			return n.fail(refuse(ChannelIdentityChanged, "received topic %s was recreated under its name", c.Topic))
		}
	}
	for _, c := range n.received {
		if slices.Contains(dead, c.Topic) && len(n.held.on(c)) > 0 {
			return n.fail(refuse(ChannelDeletedWithUndelivered, "received topic of %v deleted while %d message(s) from it are held", c, len(n.held.on(c))))
		}
	}
	for _, c := range n.received {
		if slices.Contains(dead, c.Topic) {
			n.fed.Set(c, End)
		}
	}
	gone := func(e Entry) bool {
		return slices.Contains(dead, e.Channel.Topic) || slices.Contains(recreated, e.Channel.Topic)
	}
	n.frontier = slices.DeleteFunc(n.frontier, gone)
	n.past = slices.DeleteFunc(n.past, gone)
	return nil
}

// Refusal returns the node's refusal, nil while it has not refused.
func (n *Node) Refusal() *Refusal { return n.refusal }

// receives reports whether c is in R.
func (n *Node) receives(c Channel) bool {
	k := keyOf(c)
	lo, hi := 0, len(n.received)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(n.received[m]).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(n.received) && n.received[lo] == c
}

// binding returns the topic ID name is bound to, if it is.
func (n *Node) binding(name string) (TopicID, bool) {
	for _, b := range n.bindings {
		if b.Name == name {
			return b.Topic, true
		}
	}
	return TopicID{}, false
}

// fail records the node's refusal; from now on it refuses everything.
func (n *Node) fail(r *Refusal) *Refusal {
	if n.refusal == nil {
		n.refusal = r
	}
	return n.refusal
}

// Clone returns an independent copy of n. Both keep their held messages, clipped (Buffer).
func (n *Node) Clone() *Node {
	c := *n
	c.fed, c.frontier, c.past, c.lastFed = slices.Clone(n.fed), slices.Clone(n.frontier), slices.Clone(n.past), slices.Clone(n.lastFed)
	n.held = n.held.clipped()
	c.held = n.held.clipped()
	return &c
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

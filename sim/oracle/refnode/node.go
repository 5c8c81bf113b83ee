package refnode

import (
	"fmt"
	"maps"
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
	Starts map[Channel]Position
	// BudgetBytes is the metadata budget B; 0 means DefaultBudgetBytes.
	BudgetBytes int
}

// Node is one execution of one process: the state of SPEC §2.3 in plain maps.
type Node struct {
	received map[Channel]bool // R
	sends    map[TopicID]bool // the declared send topics
	budget   int              // B

	// Persisted, step-atomic (what Commit hands back).
	version  int
	bindings map[string]TopicID
	fed      map[Channel]Position // fedUpTo, of received channels and of those that left R
	held     map[Channel][]Message
	frontier map[Channel]Position
	past     map[Channel]Position

	// Per execution, memory only.
	floor   map[Channel]Position // fedUpTo at the end of initialisation
	lastFed map[Channel]Position // last position fed in this execution

	identityDone bool
	refusal      *Refusal
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
	st := committed.clone()
	n := &Node{
		received: map[Channel]bool{}, sends: map[TopicID]bool{}, budget: init.BudgetBytes,
		version: st.Version, bindings: st.Bindings, fed: st.Fed, held: st.Held,
		frontier: st.Frontier, past: st.Past,
		floor: map[Channel]Position{}, lastFed: map[Channel]Position{},
	}
	if n.budget == 0 {
		n.budget = DefaultBudgetBytes
	}
	for _, c := range init.Received {
		if !c.valid() || n.received[c] {
			panic(fmt.Sprintf("refnode: received channel %v is invalid or listed twice", c))
		}
		n.received[c] = true
	}
	for _, t := range init.SendTopics {
		n.sends[t] = true
	}
	for _, c := range sortedChannels(n.held) {
		if !n.received[c] {
			return nil, refuse(ChannelRemovedWithHeld, "%d held message(s) on %v, which the declaration no longer receives", len(n.held[c]), c)
		}
	}
	declared := slices.Clone(init.Bindings)
	slices.SortFunc(declared, func(a, b Binding) int { return compareStrings(a.Name, b.Name) })
	for _, b := range declared {
		if recorded, ok := n.bindings[b.Name]; ok && recorded != b.Topic {
			return nil, refuse(ChannelIdentityChanged, "topic %q was recorded as %s and now resolves to %s", b.Name, recorded, b.Topic)
		}
	}
	for _, b := range declared {
		n.bindings[b.Name] = b.Topic
	}
	for _, c := range sortedChannels(n.received) {
		if p, ok := n.past[c]; ok {
			maxInto(n.fed, c, p) // join clamp
		}
	}
	for _, c := range sortedChannels(init.Starts) {
		if !n.received[c] || init.Starts[c] < 0 {
			panic(fmt.Sprintf("refnode: start position %v@%d is negative or on a channel not received", c, init.Starts[c]))
		}
		if s := init.Starts[c]; s > 0 {
			maxInto(n.fed, c, s-1) // start position
		}
	}
	for c := range n.received {
		if f, ok := n.fed[c]; ok {
			n.floor[c] = f // session floor
		}
	}
	return n, nil
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
	isDead, isRecreated := topicSet(dead), topicSet(recreated)
	for _, c := range sortedChannels(n.received) {
		if isRecreated[c.Topic] {
			return n.fail(refuse(ChannelIdentityChanged, "received topic %s was recreated under its name", c.Topic))
		}
	}
	for _, c := range sortedChannels(n.received) {
		if isDead[c.Topic] && len(n.held[c]) > 0 {
			return n.fail(refuse(ChannelDeletedWithUndelivered, "received topic of %v deleted while %d message(s) from it are held", c, len(n.held[c])))
		}
	}
	for c := range n.received {
		if isDead[c.Topic] {
			n.fed[c] = End
		}
	}
	for _, m := range []map[Channel]Position{n.frontier, n.past} {
		for c := range m {
			if isDead[c.Topic] || isRecreated[c.Topic] {
				delete(m, c)
			}
		}
	}
	return nil
}

// Refusal returns the node's refusal, nil while it has not refused.
func (n *Node) Refusal() *Refusal { return n.refusal }

// fail records the node's refusal; from now on it refuses everything.
func (n *Node) fail(r *Refusal) *Refusal {
	if n.refusal == nil {
		n.refusal = r
	}
	return n.refusal
}

// Clone returns an independent copy of n (messages are shared: they never change).
func (n *Node) Clone() *Node {
	c := *n
	c.received, c.sends = maps.Clone(n.received), maps.Clone(n.sends)
	c.bindings, c.fed, c.frontier, c.past = maps.Clone(n.bindings), maps.Clone(n.fed), maps.Clone(n.frontier), maps.Clone(n.past)
	c.floor, c.lastFed = maps.Clone(n.floor), maps.Clone(n.lastFed)
	c.held = make(map[Channel][]Message, len(n.held))
	for ch, held := range n.held {
		c.held[ch] = slices.Clone(held)
	}
	return &c
}

func topicSet(ids []TopicID) map[TopicID]bool {
	s := make(map[TopicID]bool, len(ids))
	for _, id := range ids {
		s[id] = true
	}
	return s
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

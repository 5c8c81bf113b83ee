package node

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// DefaultMetadataBudgetBytes is the default metadata budget: 256 KiB (SPEC §3).
const DefaultMetadataBudgetBytes = 256 << 10

// Options configure an engine.
type Options struct {
	// MetadataBudgetBytes bounds every received header's raw length, the merged frontier's
	// encoded length and every stamp; 0 means DefaultMetadataBudgetBytes; equality is allowed.
	MetadataBudgetBytes int
	// Sabotage switches on one deliberate fault. The zero value is the honest engine; only tests
	// and the simulator's meta-tests set it.
	Sabotage Sabotage
}

// Init is what the host knows at an execution start.
type Init struct {
	Received       []Channel // received-channel set of this execution (any order; the engine sorts)
	Bindings       []Binding // declared received topics' current name→ID bindings
	SendTopics     []TopicID // topics the process may emit to
	StartPositions []Cause   // per received channel: the first position the host will feed
}

// ReceiveOutcome says what Receive did with a record it did not refuse.
type ReceiveOutcome uint8

const (
	// Held: the record entered its channel's hold-back buffer (Next may deliver it).
	Held ReceiveOutcome = iota + 1
	// Duplicate: the record is a replay of committed past and was dropped (its causes were
	// still merged into the frontier).
	Duplicate
)

// String names the outcome.
func (o ReceiveOutcome) String() string {
	switch o {
	case Held:
		return "held"
	case Duplicate:
		return "duplicate"
	}
	return fmt.Sprintf("ReceiveOutcome(%d)", uint8(o))
}

// Delivery is a message the engine released to application logic.
type Delivery struct {
	Channel  Channel
	Position Offset
	Record   Record // key, value, headers (reserved parsley.* headers hidden), timestamp
	Causes   Causes // the decoded causes it carried; read-only
}

// holdState tracks whether a hold is part of the committed state yet.
type holdState uint8

const (
	holdNew     holdState = iota // taken in the current step, not yet in any Delta
	holdFlushed                  // handed to the host in a Delta (or restored)
	holdDropped                  // withheld from the Delta by SabotageDropHeld
)

// heldEntry is one held message in the engine with its commit bookkeeping.
type heldEntry struct {
	msg   HeldMessage
	state holdState
	index *causeIndex // where msg's causes' channels sit (engine_index.go), or nil
}

// chanState is the engine's state for one received channel.
//
// Invariants: every held position ≤ fed (fedKnown is then true); held positions strictly ascend
// (except under SabotageRedeliverRefeeds, which still keeps them ascending by inserting);
// entries of state holdNew form a suffix of held unless scanAll is set.
type chanState struct {
	ch           Channel
	fed          Offset // fedUpTo; MaxOffset marks a deleted channel
	fedKnown     bool
	floor        Offset // session floor: fed at the end of initialisation
	floorKnown   bool
	lastFed      Offset // last position fed in this execution
	lastFedKnown bool
	held         heldBuffer
	fedDirty     bool // fed changed since the last Commit
	holdsDirty   bool // holds were added since the last Commit
	scanAll      bool // a hold was inserted mid-buffer since the last Commit (sabotage only)
	listed       bool // the channel is on Engine.dirty
	frontierHint int  // where ch's frontier entry was last found (a hint, checked before use)
	// gate is settled() as the gate uses it: the settled position, or −1 when none is known (a
	// cause's position is at least 0, so either way a cause blocks iff its position is above
	// gate). Whatever changes fed or the holds calls refreshGate, except Receive, which sets it
	// directly when the record it holds is the channel's new head and leaves it behind a head.
	gate Offset
	// lastList is the channel list of the last header decoded on the channel and lastIndex its
	// index once the list repeated (engine_index.go), or nil: lastList is then the index's copy
	// of the list, else a view of the last header's decoded causes. lastSimple is
	// simpleList(lastList), which lets the next header decode by decodeSame.
	lastList   []Cause
	lastIndex  *causeIndex
	lastSimple bool
}

// settled is SPEC §1.4: the head's position − 1 while anything is held, else fedUpTo.
func (c *chanState) settled() (Offset, bool) {
	if c.held.len() > 0 {
		return c.held.front().Position - 1, true
	}
	return c.fed, c.fedKnown
}

// refreshGate recomputes gate from the holds and fedUpTo.
func (c *chanState) refreshGate() {
	c.gate = -1
	if pos, known := c.settled(); known {
		c.gate = pos
	}
}

// Engine is the Parsley node engine of one process for one execution (SPEC §1–§3, §7). It is
// pure and single-threaded: the host feeds it records (Receive), asks what to deliver (Next),
// stamps emissions (Emit, Stamp), and commits the change it hands back (Commit). Build one with
// Start for every execution; after a refusal it delivers nothing more.
type Engine struct {
	opts        Options
	budgetBytes int
	chans       []chanState   // one per received channel, in channel order
	keys        []channelKey  // keys[i] is chans[i].ch as a key: the gate walks these
	retained    []FedPosition // fedUpTo of channels outside the received set, kept for a rejoin
	sendTopics  []TopicID     // sorted
	bindings    []Binding     // sorted by name

	frontier      Causes
	frontierBytes int // EncodedLen(frontier); changes only when channels are added or pruned
	past          Causes
	layout        *layoutMark // the frontier's and past's layout, for causeIndex (engine_index.go)

	causes    causeArena // storage received causes are decoded into (engine_arena.go)
	heldCount int        // held messages over all channels: Next returns at once when it is 0
	// heldFrom is where Next starts its scan: no channel below chans[heldFrom] holds anything (a
	// lower bound, raised by Next as it passes empty channels and to len(chans) when nothing is
	// held; whatever adds a hold lowers it to that channel).
	heldFrom int

	refusal      *Refusal
	identityDone bool
	counters     Counters
	// holdBlock is the block Clone or CloneInto carved the channels' own held entries from (nil
	// after Start): CloneInto reuses a dead engine's (engine_clone.go).
	holdBlock []heldEntry
	// causeBlock is the block Start, Clone or CloneInto carved the four frontiers from (when all
	// were empty, the dead engine's they were given, or nil): CloneInto and StartInto reuse it.
	causeBlock []Cause

	// Change since the last Commit.
	dirty          []int // indexes into chans with fedDirty or holdsDirty
	removed        []HoldRef
	bindingsDirty  bool
	versionDirty   bool
	commitFrontier Causes
	commitPast     Causes
	// deltaRoom is where CommitReused builds its Deltas (engine_commit.go), made on its first
	// call; never shared with another engine. A pointer, so that copying and resetting the
	// engine struct (CloneInto, StartInto) stays cheap.
	deltaRoom *deltaRoom
}

// Frontier returns the current frontier: what every emission expresses. Read-only.
func (e *Engine) Frontier() Causes { return e.frontier }

// DeliveredPast returns the delivered past used by the join clamp. Read-only.
func (e *Engine) DeliveredPast() Causes { return e.past }

// Received returns the received-channel set in channel order.
func (e *Engine) Received() []Channel {
	out := make([]Channel, len(e.chans))
	for i := range e.chans {
		out[i] = e.chans[i].ch
	}
	return out
}

// FedUpTo returns fedUpTo of ch (received or retained), if known.
func (e *Engine) FedUpTo(ch Channel) (Offset, bool) {
	if i := e.index(ch); i >= 0 {
		return e.chans[i].fed, e.chans[i].fedKnown
	}
	i, ok := slices.BinarySearchFunc(e.retained, ch, func(f FedPosition, ch Channel) int { return compareChannels(f.Channel, ch) })
	if !ok {
		return 0, false
	}
	return e.retained[i].FedUpTo, true
}

// SessionFloor returns the session floor of received channel ch, if any.
func (e *Engine) SessionFloor(ch Channel) (Offset, bool) {
	i := e.mustIndex(ch)
	return e.chans[i].floor, e.chans[i].floorKnown
}

// Refusal returns the engine's refusal, nil while it has not refused.
func (e *Engine) Refusal() *Refusal { return e.refusal }

// Counters returns the cumulative deterministic work counters.
func (e *Engine) Counters() Counters { return e.counters }

// Options returns the options the engine was started with.
func (e *Engine) Options() Options { return e.opts }

// fail records a refusal; the engine is dead for the rest of the execution.
func (e *Engine) fail(r *Refusal) *Refusal {
	if e.refusal == nil {
		e.refusal = r
	}
	return e.refusal
}

// mustIndex is index for channels the caller promised are received; anything else is a
// programming error of the host. Small enough to inline: the panic's message is built only when
// it is printed.
func (e *Engine) mustIndex(ch Channel) int {
	i := e.index(ch)
	if i < 0 {
		panic(notReceived(ch))
	}
	return i
}

// notReceived is mustIndex's panic: a channel outside the received set.
type notReceived Channel

// Error says which channel.
func (ch notReceived) Error() string {
	return fmt.Sprintf("node: channel %v is not in the received set", Channel(ch))
}

// markDirty puts chans[i] on the list of channels the next Commit reports.
func (e *Engine) markDirty(i int) {
	if !e.chans[i].listed {
		e.chans[i].listed = true
		e.dirty = append(e.dirty, i)
	}
}

// setFed raises fedUpTo of chans[i] and records the change for Commit.
func (e *Engine) setFed(i int, pos Offset) {
	c := &e.chans[i]
	c.fed, c.fedKnown, c.fedDirty = pos, true, true
	c.refreshGate()
	e.markDirty(i)
}

// compareChannels orders channels as Channel.Compare does (unsigned topic-ID bytes, then
// partition), comparing the ID as two big-endian words: it is on the gate's hot path.
func compareChannels(a, b Channel) int {
	if x, y := binary.BigEndian.Uint64(a.Topic[:8]), binary.BigEndian.Uint64(b.Topic[:8]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	if x, y := binary.BigEndian.Uint64(a.Topic[8:]), binary.BigEndian.Uint64(b.Topic[8:]); x != y {
		if x < y {
			return -1
		}
		return 1
	}
	switch {
	case a.Partition < b.Partition:
		return -1
	case a.Partition > b.Partition:
		return 1
	}
	return 0
}

// topicOrder orders topic IDs by their unsigned bytes (the topic part of compareChannels).
func topicOrder(a, b TopicID) int {
	return compareChannels(Channel{Topic: a}, Channel{Topic: b})
}

// HeldCount returns the number of held messages over all received channels. While it is 0 (or
// after a refusal) Next returns false at once and changes nothing, not even a work counter: a
// host that shares an engine copy-on-write can skip copying it for that call.
func (e *Engine) HeldCount() int { return e.heldCount }

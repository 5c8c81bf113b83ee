package node

import (
	"cmp"
	"slices"
)

// stateVersion is the only format version of the committed ordering state. The first Commit of a
// process writes it (SPEC §1.3: the store format version entry); state without it is refused.
const stateVersion = 1

// Record is the payload of a received or emitted record. The engine keeps references to the
// byte slices it is given (no copies): callers must not modify them afterwards.
type Record struct {
	Key, Value      []byte
	Headers         []Header
	TimestampMicros int64
}

// HeldMessage is one received-but-undelivered message of a hold-back buffer: its channel and
// position, the record as the application will see it (reserved parsley.* headers already
// hidden), and the causes it carried, decoded.
type HeldMessage struct {
	Channel  Channel
	Position Offset
	Record   Record
	Causes   Causes
}

// Binding is a declared received topic's name bound to its topic ID (SPEC §1.3, D33).
type Binding struct {
	Name  string
	Topic TopicID
}

// FedPosition is a channel's fedUpTo: every position at or below it has been fed or will never
// arrive. MaxOffset marks a deleted channel.
type FedPosition struct {
	Channel Channel
	FedUpTo Offset
}

// HoldRef names one held message by channel and position.
type HoldRef struct {
	Channel  Channel
	Position Offset
}

// channelHolds is the committed hold-back buffer of one channel.
type channelHolds struct {
	ch    Channel
	queue fifo[HeldMessage]
}

// State is the committed ordering state of one process (SPEC §1.3): fedUpTo per channel (the
// received ones and those that left the received set), the hold-back buffers, the frontier, the
// delivered past, the name bindings and the format version. The host keeps one State per
// process, applies each step's Delta to it when the step commits, and starts the next execution
// from it. The zero value is "no state yet".
//
// Invariants (checked by validate at every gateway: NewState, Apply, Start):
// version is 0 only when everything else is empty; bindings sorted by unique non-empty name with
// non-zero IDs; fed sorted by unique valid channel with positions 0..MaxOffset; frontier and
// past hold no MaxOffset; holds sorted by channel, each queue non-empty, strictly ascending in
// position, every position ≤ the channel's fedUpTo.
type State struct {
	version  uint8
	bindings []Binding
	fed      []FedPosition
	frontier Causes
	past     Causes
	holds    []channelHolds
	// checked says the invariants are known to hold for exactly this content, so Start need not
	// validate it again (a walk over every held message, on every restart): NewState sets it
	// after validating, Apply keeps it only when the delta provably keeps every invariant
	// (keepsInvariants), Clone copies it. Anything else leaves it false, which costs only time.
	checked bool
	// causeBlock is the block CloneInto carved the frontier and delivered past from (nil
	// otherwise; they may have outgrown it since): a CloneInto into this state's storage reuses it.
	causeBlock []Cause
}

// StateParts is a committed ordering state spelled out, for a reader of a stored form (the
// node/statecodec format) to build a State from with NewState.
type StateParts struct {
	Version  int           // 0 (no state yet: everything else empty) or the current version
	Bindings []Binding     // sorted by unique non-empty name, non-zero IDs
	Fed      []FedPosition // sorted by unique channel; positions 0..MaxOffset
	Frontier []Cause       // strictly ascending by channel; positions 0..MaxOffset−1
	Past     []Cause       // the delivered past, as Frontier
	Holds    []HeldMessage // by channel, then strictly ascending position; each ≤ its channel's fedUpTo
}

// NewState builds a committed state from its parts and checks every invariant of State; a breach
// is a *Refusal with reason UNKNOWN_ORDERING_STATE_FORMAT naming it. The state keeps the parts'
// slices (the hold queues are copied): the caller must not change them afterwards.
func NewState(p StateParts) (*State, error) {
	if p.Version < 0 || p.Version > 255 {
		return nil, formatRefusal("unknown ordering state version %d", p.Version)
	}
	s := &State{version: uint8(p.Version), bindings: p.Bindings, fed: p.Fed,
		frontier: Causes{pairs: p.Frontier}, past: Causes{pairs: p.Past}}
	for i := 0; i < len(p.Holds); {
		j := i + 1
		for j < len(p.Holds) && p.Holds[j].Channel == p.Holds[i].Channel {
			j++
		}
		q := fifo[HeldMessage]{items: append(make([]HeldMessage, 0, j-i), p.Holds[i:j]...)}
		s.holds = append(s.holds, channelHolds{ch: p.Holds[i].Channel, queue: q})
		i = j
	}
	if r := s.validate(); r != nil {
		return nil, r
	}
	s.checked = true
	return s, nil
}

// Version returns the format version (0 = no state yet).
func (s *State) Version() int { return int(s.version) }

// IsEmpty reports whether s holds nothing at all (a fresh process).
func (s *State) IsEmpty() bool {
	return s.version == 0 && len(s.bindings) == 0 && len(s.fed) == 0 && s.frontier.IsEmpty() &&
		s.past.IsEmpty() && len(s.holds) == 0
}

// Bindings returns the name bindings, sorted by name. Read-only.
func (s *State) Bindings() []Binding { return s.bindings }

// FedPositions returns fedUpTo of every channel the state names, in channel order. Read-only.
func (s *State) FedPositions() []FedPosition { return s.fed }

// Frontier returns the committed frontier. Read-only.
func (s *State) Frontier() Causes { return s.frontier }

// DeliveredPast returns the committed delivered past. Read-only.
func (s *State) DeliveredPast() Causes { return s.past }

// FedUpTo returns the committed fedUpTo of ch, if any (none in a nil State: no state yet).
func (s *State) FedUpTo(ch Channel) (Offset, bool) {
	if s == nil {
		return 0, false
	}
	i, ok := s.searchFed(ch)
	if !ok {
		return 0, false
	}
	return s.fed[i].FedUpTo, true
}

// Held returns the committed held messages of ch in position order. Read-only.
func (s *State) Held(ch Channel) []HeldMessage {
	i, ok := s.searchHolds(ch)
	if !ok {
		return nil
	}
	return s.holds[i].queue.live()
}

// HeldChannels returns the channels with committed held messages, in channel order.
func (s *State) HeldChannels() []Channel {
	out := make([]Channel, len(s.holds))
	for i := range s.holds {
		out[i] = s.holds[i].ch
	}
	return out
}

// HeldCount returns the total number of committed held messages.
func (s *State) HeldCount() int {
	n := 0
	for i := range s.holds {
		n += s.holds[i].queue.len()
	}
	return n
}

// Clone returns an independent copy (records' byte slices are shared; they are immutable).
//
// The hold queues are shared, capacity-clipped: a committed queue never writes into a slot it has
// filled (fifo.popShared and its siblings), so neither copy can change what the other holds, and
// cloning costs nothing per held message. The frontier and delivered past are carved from one
// allocation. A host that clones its committed state before applying each step's delta (the
// simulator's explorer does, for every commit) pays a fixed number of allocations.
func (s *State) Clone() *State { return s.CloneInto(new(State)) }

// CloneInto is Clone into the storage of dst, a state nothing reads or changes any more (the
// simulator's explorer recycles the committed states of worlds it is done with): dst's binding,
// fedUpTo and hold-queue lists and its frontier block are reused (the queues' contents stay
// shared with s, as Clone shares them). It returns dst. dst must not be s.
func (s *State) CloneInto(dst *State) *State {
	if dst == s {
		panic("node: CloneInto a state's own storage")
	}
	bindings, fed, holds, block := dst.bindings[:0], dst.fed[:0], dst.holds[:0], dst.causeBlock
	*dst = State{
		version:  s.version,
		bindings: append(bindings, s.bindings...),
		fed:      append(fed, s.fed...),
		frontier: s.frontier,
		past:     s.past,
		checked:  s.checked,
	}
	dst.causeBlock = copyCausesBlockInto([]*Causes{&dst.frontier, &dst.past}, block, 0)
	for i := range s.holds {
		live := s.holds[i].queue.live()
		holds = append(holds, channelHolds{ch: s.holds[i].ch, queue: fifo[HeldMessage]{items: live[:len(live):len(live)]}})
	}
	dst.holds = holds
	return dst
}

// Equal reports whether two states hold the same ordering state (record contents included).
func (s *State) Equal(o *State) bool {
	if s.version != o.version || !slices.Equal(s.bindings, o.bindings) || !slices.Equal(s.fed, o.fed) ||
		!s.frontier.Equal(o.frontier) || !s.past.Equal(o.past) || len(s.holds) != len(o.holds) {
		return false
	}
	for i := range s.holds {
		if s.holds[i].ch != o.holds[i].ch {
			return false
		}
		if !slices.EqualFunc(s.holds[i].queue.live(), o.holds[i].queue.live(), heldEqual) {
			return false
		}
	}
	return true
}

// heldEqual compares two held messages field by field.
func heldEqual(a, b HeldMessage) bool {
	return a.Channel == b.Channel && a.Position == b.Position && a.Causes.Equal(b.Causes) && recordEqual(a.Record, b.Record)
}

// recordEqual compares two records, distinguishing nil from empty byte slices as Kafka does.
func recordEqual(a, b Record) bool {
	return bytesEqualNil(a.Key, b.Key) && bytesEqualNil(a.Value, b.Value) && a.TimestampMicros == b.TimestampMicros &&
		slices.EqualFunc(a.Headers, b.Headers, func(x, y Header) bool {
			return x.Key == y.Key && bytesEqualNil(x.Value, y.Value)
		})
}

// bytesEqualNil compares byte slices, treating nil and empty as different.
func bytesEqualNil(a, b []byte) bool {
	return (a == nil) == (b == nil) && string(a) == string(b)
}

// searchFed finds ch's fedUpTo row by binary search: its index, or the insertion point.
func (s *State) searchFed(ch Channel) (int, bool) {
	k := keyOf(&ch)
	lo, hi := 0, len(s.fed)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(&s.fed[m].Channel).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.fed) && s.fed[lo].Channel == ch
}

// searchHolds finds ch's committed buffer by binary search: its index, or the insertion point.
func (s *State) searchHolds(ch Channel) (int, bool) {
	k := keyOf(&ch)
	lo, hi := 0, len(s.holds)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyOf(&s.holds[m].ch).less(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.holds) && s.holds[lo].ch == ch
}

func (s *State) searchBinding(name string) (int, bool) {
	return slices.BinarySearchFunc(s.bindings, name, func(b Binding, n string) int { return cmp.Compare(b.Name, n) })
}

// setFed sets fedUpTo of ch, inserting the channel when new, and reports whether that lowered it.
func (s *State) setFed(ch Channel, pos Offset) bool {
	i, ok := s.searchFed(ch)
	if ok {
		lowered := pos < s.fed[i].FedUpTo
		s.fed[i].FedUpTo = pos
		return lowered
	}
	s.fed = slices.Insert(s.fed, i, FedPosition{Channel: ch, FedUpTo: pos})
	return false
}

// setBinding binds name to id, inserting the name when new.
func (s *State) setBinding(b Binding) {
	i, ok := s.searchBinding(b.Name)
	if ok {
		s.bindings[i] = b
		return
	}
	s.bindings = slices.Insert(s.bindings, i, b)
}

// holdQueue returns the committed queue of ch, creating it when create is set.
func (s *State) holdQueue(ch Channel, create bool) *fifo[HeldMessage] {
	i, ok := s.searchHolds(ch)
	if !ok {
		if !create {
			return nil
		}
		s.holds = slices.Insert(s.holds, i, channelHolds{ch: ch})
	}
	return &s.holds[i].queue
}

// dropEmptyHolds removes channels whose queue became empty.
func (s *State) dropEmptyHolds() {
	s.holds = slices.DeleteFunc(s.holds, func(h channelHolds) bool { return h.queue.len() == 0 })
}

// validate checks every invariant of State and returns the refusal for the first breach.
func (s *State) validate() *Refusal {
	if s.version != 0 && s.version != stateVersion {
		return formatRefusal("unknown ordering state version %d", s.version)
	}
	if s.version == 0 && !s.IsEmpty() {
		return formatRefusal("ordering state present without its format version entry")
	}
	for i, b := range s.bindings {
		if b.Name == "" || b.Topic.IsZero() || (i > 0 && s.bindings[i-1].Name >= b.Name) {
			return formatRefusal("binding %d (%q -> %s) is empty, zero or out of order", i, b.Name, b.Topic)
		}
	}
	for i, f := range s.fed {
		if !f.Channel.valid() || f.FedUpTo < 0 || (i > 0 && compareChannels(s.fed[i-1].Channel, f.Channel) >= 0) {
			return formatRefusal("fedUpTo row %d (%v@%d) is invalid or out of order", i, f.Channel, f.FedUpTo)
		}
	}
	if r := validateCauses("frontier", s.frontier); r != nil {
		return r
	}
	if r := validateCauses("delivered past", s.past); r != nil {
		return r
	}
	for i := range s.holds {
		if r := s.validateHolds(i); r != nil {
			return r
		}
	}
	return nil
}

// validateHolds checks the i-th channel's committed holds.
func (s *State) validateHolds(i int) *Refusal {
	h := &s.holds[i]
	if !h.ch.valid() || (i > 0 && compareChannels(s.holds[i-1].ch, h.ch) >= 0) {
		return formatRefusal("held channel %v is invalid or out of order", h.ch)
	}
	live := h.queue.live()
	if len(live) == 0 {
		return formatRefusal("held channel %v has an empty buffer", h.ch)
	}
	fed, ok := s.FedUpTo(h.ch)
	for j, m := range live {
		if m.Channel != h.ch || m.Position < 0 || m.Position >= MaxOffset || (j > 0 && live[j-1].Position >= m.Position) {
			return refuse(ReasonUnknownOrderingStateFormat, h.ch, m.Position, "hold %d is out of order or has an invalid position", j)
		}
		if !ok || m.Position > fed {
			return refuse(ReasonUnknownOrderingStateFormat, h.ch, m.Position, "hold above the channel's fedUpTo")
		}
		if r := validateCauses("held causes", m.Causes); r != nil {
			return r
		}
	}
	return nil
}

// validateCauses checks a restored frontier: valid channels in strict order, positions 0..2^63−2.
func validateCauses(what string, c Causes) *Refusal {
	for i, p := range c.pairs {
		if !p.Channel.valid() || (i > 0 && compareChannels(c.pairs[i-1].Channel, p.Channel) >= 0) {
			return formatRefusal("%s entry %d names an invalid or out-of-order channel %v", what, i, p.Channel)
		}
		if p.Position < 0 || p.Position >= MaxOffset {
			return refuse(ReasonUnknownOrderingStateFormat, p.Channel, p.Position, "%s position out of range", what)
		}
	}
	return nil
}

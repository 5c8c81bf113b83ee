package refnode

import (
	"fmt"
	"maps"
	"slices"
)

// State is a committed ordering state (SPEC §1.3): everything a step commits and the next
// execution starts from. A State a Node committed is never changed afterwards (the next commit
// builds a new one), so it may be shared freely. The zero value (or nil) is a process with no
// state yet.
type State struct {
	// Version is the store format version entry: 0 before the first commit, 1 after it.
	Version int
	// Bindings maps every declared received topic name ever recorded to its topic ID (D33).
	Bindings map[string]TopicID
	// Fed is fedUpTo per channel, received now or earlier: every position at or below it was fed
	// or will never yield a message. End marks a deleted channel.
	Fed map[Channel]Position
	// Held is the hold-back buffer per channel, in position order; no empty buffers.
	Held map[Channel][]Message
	// Frontier is what every emission expresses; Past the delivered past (the join clamp).
	Frontier, Past map[Channel]Position
}

// formatVersion is the only store format version.
const formatVersion = 1

// empty reports whether s holds nothing at all.
func (s *State) empty() bool {
	return s == nil || (s.Version == 0 && len(s.Bindings) == 0 && len(s.Fed) == 0 && len(s.Held) == 0 &&
		len(s.Frontier) == 0 && len(s.Past) == 0)
}

// check is INIT's "refuse corrupt rows" (SPEC §2.3, §2.5, §7.1 UNKNOWN_ORDERING_STATE_FORMAT):
// an unknown version, state without its version entry, an empty or zero binding, a row naming
// the zero topic ID or a negative partition, a negative fedUpTo, a frontier or delivered-past
// position that is negative or End, an empty buffer, a hold out of order, on another channel,
// at a position no header may name, above its channel's fedUpTo, or with such causes.
func (s *State) check() *Refusal {
	if s.empty() {
		return nil
	}
	if s.Version != formatVersion {
		if s.Version == 0 {
			return refuse(UnknownOrderingStateFormat, "ordering state present without its version entry")
		}
		return refuse(UnknownOrderingStateFormat, "unknown ordering state version %d", s.Version)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Bindings)) {
		if name == "" || s.Bindings[name] == (TopicID{}) {
			return refuse(UnknownOrderingStateFormat, "binding %q -> %s is empty or zero", name, s.Bindings[name])
		}
	}
	for _, c := range sortedChannels(s.Fed) {
		if !c.valid() || s.Fed[c] < 0 {
			return refuse(UnknownOrderingStateFormat, "fedUpTo row %v@%d is invalid", c, s.Fed[c])
		}
	}
	if r := checkCauses("frontier", s.Frontier); r != nil {
		return r
	}
	if r := checkCauses("delivered past", s.Past); r != nil {
		return r
	}
	for _, c := range sortedChannels(s.Held) {
		if r := s.checkHolds(c); r != nil {
			return r
		}
	}
	return nil
}

// checkHolds checks channel c's committed buffer.
func (s *State) checkHolds(c Channel) *Refusal {
	held := s.Held[c]
	if !c.valid() || len(held) == 0 {
		return refuse(UnknownOrderingStateFormat, "held channel %v is invalid or its buffer empty", c)
	}
	fed, fedKnown := s.Fed[c]
	for i, m := range held {
		if m.Channel != c || m.Position < 0 || m.Position >= End || (i > 0 && held[i-1].Position >= m.Position) {
			return refuse(UnknownOrderingStateFormat, "hold %d on %v (position %d) is out of order or invalid", i, c, m.Position)
		}
		if !fedKnown || m.Position > fed {
			return refuse(UnknownOrderingStateFormat, "hold %v@%d is above the channel's fedUpTo", c, m.Position)
		}
		if r := checkCauses("held causes", m.Causes); r != nil {
			return r
		}
	}
	return nil
}

// checkCauses refuses a restored cause map with an invalid channel or a position outside
// 0..End−1.
func checkCauses(what string, causes map[Channel]Position) *Refusal {
	for _, c := range sortedChannels(causes) {
		if !c.valid() || causes[c] < 0 || causes[c] >= End {
			return refuse(UnknownOrderingStateFormat, "%s entry %v@%d is invalid", what, c, causes[c])
		}
	}
	return nil
}

// clone returns a copy of s whose maps are its own (messages are shared: they never change).
func (s *State) clone() *State {
	if s == nil {
		s = &State{}
	}
	c := &State{
		Version:  s.Version,
		Bindings: maps.Clone(s.Bindings),
		Fed:      maps.Clone(s.Fed),
		Frontier: maps.Clone(s.Frontier),
		Past:     maps.Clone(s.Past),
		Held:     make(map[Channel][]Message, len(s.Held)),
	}
	for ch, held := range s.Held {
		c.Held[ch] = slices.Clone(held)
	}
	if c.Bindings == nil {
		c.Bindings = map[string]TopicID{}
	}
	for _, m := range []*map[Channel]Position{&c.Fed, &c.Frontier, &c.Past} {
		if *m == nil {
			*m = map[Channel]Position{}
		}
	}
	return c
}

// Diff describes the first difference between the meaning of s and of t (nil states are
// empty): version, bindings, fedUpTo, frontier, delivered past, then each channel's held
// messages in order (position, record and causes). It returns "" when they mean the same.
func (s *State) Diff(t *State) string {
	a, b := s.clone(), t.clone()
	if a.Version != b.Version {
		return fmt.Sprintf("version %d vs %d", a.Version, b.Version)
	}
	for _, name := range slices.Sorted(maps.Keys(union(a.Bindings, b.Bindings))) {
		x, xok := a.Bindings[name]
		y, yok := b.Bindings[name]
		if x != y || xok != yok {
			return fmt.Sprintf("binding %q: %s vs %s", name, showTopic(x, xok), showTopic(y, yok))
		}
	}
	if d := diffPositions("fedUpTo", a.Fed, b.Fed); d != "" {
		return d
	}
	if d := diffPositions("frontier", a.Frontier, b.Frontier); d != "" {
		return d
	}
	if d := diffPositions("delivered past", a.Past, b.Past); d != "" {
		return d
	}
	for _, c := range sortedChannels(union(a.Held, b.Held)) {
		x, y := a.Held[c], b.Held[c]
		for i := range max(len(x), len(y)) {
			if i >= len(x) || i >= len(y) {
				return fmt.Sprintf("held on %v: %s vs %s", c, showHeld(x), showHeld(y))
			}
			if d := diffMessage(&x[i], &y[i]); d != "" {
				return fmt.Sprintf("held message %d on %v: %s", i, c, d)
			}
		}
	}
	return ""
}

// union returns a map holding the keys of a and b (values from a, else b).
func union[K comparable, V any](a, b map[K]V) map[K]V {
	u := maps.Clone(b)
	if u == nil {
		u = map[K]V{}
	}
	maps.Copy(u, a)
	return u
}

// diffPositions describes the first channel whose position differs between a and b.
func diffPositions(what string, a, b map[Channel]Position) string {
	for _, c := range sortedChannels(union(a, b)) {
		x, xok := a[c]
		y, yok := b[c]
		if x != y || xok != yok {
			return fmt.Sprintf("%s on %v: %s vs %s", what, c, showPos(x, xok), showPos(y, yok))
		}
	}
	return ""
}

// diffMessage describes how two held messages differ, "" when they do not.
func diffMessage(x, y *Message) string {
	switch {
	case x.Channel != y.Channel || x.Position != y.Position:
		return fmt.Sprintf("%v@%d vs %v@%d", x.Channel, x.Position, y.Channel, y.Position)
	case !sameRecord(x.Record, y.Record):
		return fmt.Sprintf("record at %d: %s vs %s", x.Position, showRecord(x.Record), showRecord(y.Record))
	}
	if d := diffPositions("causes", x.Causes, y.Causes); d != "" {
		return fmt.Sprintf("at %d: %s", x.Position, d)
	}
	return ""
}

// sameRecord reports whether two records have the same key, value, headers (null and empty
// values told apart) and timestamp.
func sameRecord(x, y Record) bool {
	if !sameBytes(x.Key, y.Key) || !sameBytes(x.Value, y.Value) || x.TimestampMicros != y.TimestampMicros ||
		len(x.Headers) != len(y.Headers) {
		return false
	}
	for i := range x.Headers {
		if x.Headers[i].Key != y.Headers[i].Key || !sameBytes(x.Headers[i].Value, y.Headers[i].Value) {
			return false
		}
	}
	return true
}

// sameBytes compares two byte strings, telling nil (null) from empty.
func sameBytes(x, y []byte) bool { return (x == nil) == (y == nil) && string(x) == string(y) }

func showPos(p Position, ok bool) string {
	switch {
	case !ok:
		return "none"
	case p == End:
		return "END"
	}
	return fmt.Sprint(p)
}

func showTopic(t TopicID, ok bool) string {
	if !ok {
		return "none"
	}
	return t.String()
}

func showHeld(held []Message) string {
	out := "["
	for i, m := range held {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprint(m.Position)
	}
	return out + "]"
}

func showRecord(r Record) string {
	return fmt.Sprintf("key=%q value=%q headers=%d ts=%d", r.Key, r.Value, len(r.Headers), r.TimestampMicros)
}

// DiffRecord describes how two records differ ("" when they have the same key, value, headers
// in order, null and empty values told apart, and timestamp).
func DiffRecord(x, y Record) string {
	if sameRecord(x, y) {
		return ""
	}
	return showRecord(x) + " vs " + showRecord(y)
}

package refnode

import (
	"fmt"
	"slices"
)

// State is a committed ordering state (SPEC §1.3): everything a step commits and the next
// execution starts from. A State a Node committed is never changed afterwards (the next commit
// builds a new one), so it may be shared freely. The zero value (or nil) is a process with no
// state yet.
type State struct {
	// Version is the store format version entry: 0 before the first commit, 1 after it.
	Version int
	// Bindings are every declared received topic name ever recorded with its topic ID (D33),
	// sorted by name.
	Bindings []Binding
	// Fed is fedUpTo per channel, received now or earlier: every position at or below it was fed
	// or will never yield a message. End marks a deleted channel.
	Fed Positions
	// Held are the hold-back buffers, sorted by channel, none empty.
	Held []Buffer
	// Frontier is what every emission expresses; Past the delivered past (the join clamp).
	Frontier, Past Positions

	// valid says Commit made s: it is valid by construction, so Start does not check it again.
	valid bool
}

// formatVersion is the only store format version.
const formatVersion = 1

// empty reports whether s holds nothing at all.
func (s *State) empty() bool {
	return s == nil || (s.Version == 0 && len(s.Bindings) == 0 && len(s.Fed) == 0 && len(s.Held) == 0 &&
		len(s.Frontier) == 0 && len(s.Past) == 0)
}

// check is INIT's "refuse corrupt rows" (SPEC §2.3, §2.5, §7.1 UNKNOWN_ORDERING_STATE_FORMAT):
// an unknown version, state without its version entry, rows out of order or repeated, an empty
// or zero binding, a row naming the zero topic ID or a negative partition, a negative fedUpTo, a
// frontier or delivered-past position that is negative or End, an empty buffer, a hold out of
// order, on another channel, at a position no header may name, above its channel's fedUpTo, or
// with such causes.
func (s *State) check() *Refusal {
	if s.empty() || s.valid {
		return nil
	}
	if s.Version != formatVersion {
		if s.Version == 0 {
			return refuse(UnknownOrderingStateFormat, "ordering state present without its version entry")
		}
		return refuse(UnknownOrderingStateFormat, "unknown ordering state version %d", s.Version)
	}
	for i, b := range s.Bindings {
		if b.Name == "" || b.Topic == (TopicID{}) || (i > 0 && s.Bindings[i-1].Name >= b.Name) {
			return refuse(UnknownOrderingStateFormat, "binding %q -> %s is empty, zero or out of order", b.Name, b.Topic)
		}
	}
	if r := checkPositions("fedUpTo", s.Fed, End); r != nil {
		return r
	}
	if r := checkPositions("frontier", s.Frontier, End-1); r != nil {
		return r
	}
	if r := checkPositions("delivered past", s.Past, End-1); r != nil {
		return r
	}
	for i, b := range s.Held {
		if !b.Channel.valid() || len(b.Messages) == 0 || (i > 0 && compareChannels(s.Held[i-1].Channel, b.Channel) >= 0) {
			return refuse(UnknownOrderingStateFormat, "held channel %v is invalid, out of order or its buffer empty", b.Channel)
		}
		if r := s.checkHolds(b); r != nil {
			return r
		}
	}
	return nil
}

// checkHolds checks one channel's committed buffer.
func (s *State) checkHolds(b Buffer) *Refusal {
	fed, fedKnown := s.Fed.Get(b.Channel)
	for i, m := range b.Messages {
		if m.Channel != b.Channel || m.Position < 0 || m.Position >= End || (i > 0 && b.Messages[i-1].Position >= m.Position) {
			return refuse(UnknownOrderingStateFormat, "hold %d on %v (position %d) is out of order or invalid", i, b.Channel, m.Position)
		}
		if !fedKnown || m.Position > fed {
			return refuse(UnknownOrderingStateFormat, "hold %v@%d is above the channel's fedUpTo", b.Channel, m.Position)
		}
		if r := checkPositions("held causes", m.Causes, End-1); r != nil {
			return r
		}
	}
	return nil
}

// checkPositions refuses restored rows out of channel order, on an invalid channel, or with a
// position outside 0..highest.
func checkPositions(what string, p Positions, highest Position) *Refusal {
	for i, e := range p {
		if !e.Channel.valid() || e.Position < 0 || e.Position > highest || (i > 0 && compareChannels(p[i-1].Channel, e.Channel) >= 0) {
			return refuse(UnknownOrderingStateFormat, "%s entry %v@%d is invalid or out of order", what, e.Channel, e.Position)
		}
	}
	return nil
}

// Diff describes the first difference between the meaning of s and of t (nil states are
// empty): version, bindings, fedUpTo, frontier, delivered past, then each channel's held
// messages in order (position, record and causes). It returns "" when they mean the same.
func (s *State) Diff(t *State) string {
	if s == nil {
		s = &State{}
	}
	if t == nil {
		t = &State{}
	}
	if s.Version != t.Version {
		return fmt.Sprintf("version %d vs %d", s.Version, t.Version)
	}
	if !slices.Equal(s.Bindings, t.Bindings) {
		return fmt.Sprintf("bindings %v vs %v", s.Bindings, t.Bindings)
	}
	if d := DiffPositions("fedUpTo", s.Fed, t.Fed); d != "" {
		return d
	}
	if d := DiffPositions("frontier", s.Frontier, t.Frontier); d != "" {
		return d
	}
	if d := DiffPositions("delivered past", s.Past, t.Past); d != "" {
		return d
	}
	for i := range max(len(s.Held), len(t.Held)) {
		if i >= len(s.Held) || i >= len(t.Held) || s.Held[i].Channel != t.Held[i].Channel {
			return fmt.Sprintf("channels holding messages: %v vs %v", heldChannels(s.Held), heldChannels(t.Held))
		}
		x, y := s.Held[i].Messages, t.Held[i].Messages
		for j := range max(len(x), len(y)) {
			if j >= len(x) || j >= len(y) {
				return fmt.Sprintf("held on %v: %s vs %s", s.Held[i].Channel, showHeld(x), showHeld(y))
			}
			if d := diffMessage(x[j], y[j]); d != "" {
				return fmt.Sprintf("held message %d on %v: %s", j, s.Held[i].Channel, d)
			}
		}
	}
	return ""
}

// DiffPositions describes the first channel whose position differs between a and b, "" when
// none does.
func DiffPositions(what string, a, b Positions) string {
	var all Positions
	for _, e := range append(slices.Clone(a), b...) {
		all.Set(e.Channel, 0)
	}
	for _, e := range all {
		x, xok := a.Get(e.Channel)
		y, yok := b.Get(e.Channel)
		if x != y || xok != yok {
			return fmt.Sprintf("%s on %v: %s vs %s", what, e.Channel, showPos(x, xok), showPos(y, yok))
		}
	}
	return ""
}

// diffMessage describes how two held messages differ, "" when they do not.
func diffMessage(x, y *Message) string {
	switch {
	case x.Channel != y.Channel || x.Position != y.Position:
		return fmt.Sprintf("%v@%d vs %v@%d", x.Channel, x.Position, y.Channel, y.Position)
	case !SameRecord(x.Record, y.Record):
		return fmt.Sprintf("record at %d: %s vs %s", x.Position, showRecord(x.Record), showRecord(y.Record))
	}
	if d := DiffPositions("causes", x.Causes, y.Causes); d != "" {
		return fmt.Sprintf("at %d: %s", x.Position, d)
	}
	return ""
}

// SameRecord reports whether two records have the same key, value, headers in order (null and
// empty values told apart) and timestamp.
func SameRecord(x, y Record) bool {
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

// diffRecord describes how two records differ, "" when SameRecord.
func diffRecord(x, y Record) string {
	if SameRecord(x, y) {
		return ""
	}
	return showRecord(x) + " vs " + showRecord(y)
}

// sameBytes compares two byte strings, telling nil (null) from empty.
func sameBytes(x, y []byte) bool { return (x == nil) == (y == nil) && string(x) == string(y) }

func heldChannels(held []Buffer) []Channel {
	var out []Channel
	for _, b := range held {
		out = append(out, b.Channel)
	}
	return out
}

func showPos(p Position, ok bool) string {
	switch {
	case !ok:
		return "none"
	case p == End:
		return "END"
	}
	return fmt.Sprint(p)
}

func showHeld(held []*Message) string {
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

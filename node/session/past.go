// Package session holds CausalPast: a frontier of (channel, position) pairs used as a client's
// session token and as the recorded past stored beside a served row (SPEC §5: docs/PROTOCOL.md).
//
// A write tier stamps a validated token onto produced records as their parsley.causes and merges
// in the coordinates the broker acknowledged; a read tier serves a row only when its recorded past
// covers the client's token, then merges the row's past into the token. That gives
// read-your-writes, monotonic reads and writes-follow-reads to clients outside the delivery
// protocol. The engine never reads this type: holding a token grants no delivery guarantee.
//
// The package is pure arithmetic over frontiers. It imports only the standard library and node/
// (a test enforces it) and does no I/O.
package session

import (
	"errors"
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// ErrInvalidCoordinate is wrapped by every error Merge returns for a coordinate no channel can
// assign: an all-zero topic ID, a negative partition, a negative position or node.MaxOffset.
var ErrInvalidCoordinate = errors.New("session: invalid coordinate")

// CausalPast is an immutable frontier: at most one position per channel, iterated in channel
// order. Every operation that would change it returns a new past instead.
//
// Compare pasts with Equal: == compares storage, not frontiers.
//
// Invariant: *causes is never modified after construction and shares no storage with any Causes a
// caller can modify, so pasts may share it freely; nil means the empty past, so the zero value
// equals None(). The frontier sits behind a pointer so that CoverageOf can hand it to the gate's
// interfaces without copying it to the heap on every read.
type CausalPast struct {
	causes *node.Causes
}

// noCauses is the frontier of every empty past. Nothing ever modifies it.
var noCauses node.Causes

// newPast wraps a frontier that nothing else references.
func newPast(causes node.Causes) CausalPast {
	if causes.IsEmpty() {
		return CausalPast{}
	}
	return CausalPast{causes: &causes}
}

// frontier returns the past's frontier, never nil. Callers must not modify it.
func (p CausalPast) frontier() *node.Causes {
	if p.causes == nil {
		return &noCauses
	}
	return p.causes
}

// None returns the empty past: a session that has observed nothing, covered by every past.
func None() CausalPast { return CausalPast{} }

// Of returns a past over a copy of causes, so later changes to causes never reach the past.
func Of(causes node.Causes) CausalPast { return newPast(causes.Clone()) }

// Decode decodes a past from the frozen causes grammar through node.Decode, the engine's own
// header decode, so a token is exactly as strict as a parsley.causes value.
//
// Damaged bytes (truncated, trailing, miscounted, out of canonical order, padded or over-range
// varints, reserved positions, nil) return the *node.DecodeError unwrapped and the empty past.
// The caller must treat that as no token at all, never as a partial one: a weaker frontier
// salvaged from damaged bytes would silently weaken every session guarantee.
func Decode(encoded []byte) (CausalPast, error) {
	causes, err := node.Decode(encoded)
	if err != nil {
		return CausalPast{}, err
	}
	return newPast(causes), nil
}

// Encode returns the canonical encoding of the past (one past, one spelling), which is also a
// valid parsley.causes header value, so a write tier can stamp a validated token as it is.
func (p CausalPast) Encode() []byte { return node.Encode(*p.frontier()) }

// Causes returns a copy of the frontier the past carries; changing it never changes the past.
func (p CausalPast) Causes() node.Causes { return p.frontier().Clone() }

// Size returns how many channels the past names. Bound it (see Validate) before trusting an
// inbound token: a token is untrusted input even when this application minted it.
func (p CausalPast) Size() int { return p.frontier().Len() }

// IsEmpty reports whether the past names no channel.
func (p CausalPast) IsEmpty() bool { return p.causes == nil }

// Equal reports whether two pasts name the same positions on the same channels.
func (p CausalPast) Equal(other CausalPast) bool { return p.frontier().Equal(*other.frontier()) }

// Lookup returns the position the past records for ch, if it names ch.
func (p CausalPast) Lookup(ch node.Channel) (node.Offset, bool) { return p.frontier().Lookup(ch) }

// String renders the past for diagnostics as past{topic/partition@position, ...}.
func (p CausalPast) String() string { return "past" + p.frontier().String() }

// Merge returns a past carrying the greater of pos and any position already named for ch: the
// coordinate a produce acknowledgement confirmed at a write tier, or a delivery's own coordinate
// at a projector's seam. The receiver is unchanged, and is returned itself (same storage) when it
// already covers the coordinate.
//
// It refuses, returning the receiver and an error wrapping ErrInvalidCoordinate that names the
// input, a channel with an all-zero topic ID or a negative partition, a negative position, and
// node.MaxOffset (2^63−1), which no channel assigns.
func (p CausalPast) Merge(ch node.Channel, pos node.Offset) (CausalPast, error) {
	if err := checkCoordinate(ch, pos); err != nil {
		return p, err
	}
	if recorded, ok := p.frontier().Lookup(ch); ok && recorded >= pos {
		return p, nil
	}
	merged := p.frontier().Clone()
	merged.Merge(ch, pos)
	return newPast(merged), nil
}

// checkCoordinate returns an error naming ch and pos when they cannot be a real coordinate.
func checkCoordinate(ch node.Channel, pos node.Offset) error {
	switch {
	case ch.Topic.IsZero():
		return fmt.Errorf("%w: channel %v has the all-zero topic ID", ErrInvalidCoordinate, ch)
	case ch.Partition < 0:
		return fmt.Errorf("%w: channel %v has negative partition %d", ErrInvalidCoordinate, ch, ch.Partition)
	case pos < 0:
		return fmt.Errorf("%w: position %d on %v is negative", ErrInvalidCoordinate, pos, ch)
	case pos == node.MaxOffset:
		return fmt.Errorf("%w: position %d (2^63-1) on %v is reserved", ErrInvalidCoordinate, pos, ch)
	}
	return nil
}

// MergePast returns the pointwise maximum of the two pasts: per channel, the greater position
// wins. This is how a read tier folds a served row's recorded past into the client's token.
//
// Neither input changes. When one side already covers the other (the steady state of a session
// re-reading settled data) that side is returned itself, the receiver first, so an unchanged
// token need not be re-encoded; otherwise the result is a new past.
func (p CausalPast) MergePast(other CausalPast) CausalPast {
	if p.frontier().Covers(*other.frontier()) {
		return p
	}
	if other.frontier().Covers(*p.frontier()) {
		return other
	}
	merged := p.frontier().Clone()
	merged.MergeFrom(*other.frontier())
	return newPast(merged)
}

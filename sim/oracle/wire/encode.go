package wire

import (
	"fmt"
	"slices"
)

// Encode returns the canonical version-1 value of a set of causes: the one spelling the grammar
// allows (seed constraints 2–4), groups by ascending topic ID, pairs by ascending partition,
// minimal varints. The causes may come in any order; they must name distinct channels, non-zero
// topic IDs, partitions of at least 0 and positions in 0 .. 2^63−2, and Encode panics otherwise:
// no frontier the oracle keeps can break these, so a breach is a bug in the caller. The empty
// set encodes as 01 00.
func Encode(causes []Cause) []byte {
	sorted := causes // read only: sorted in a copy of its own when not in channel order already
	if !slices.IsSortedFunc(sorted, CompareCauses) {
		sorted = slices.Clone(causes)
		slices.SortFunc(sorted, CompareCauses)
	}
	groups := 0 // the number of topics named
	for i, c := range sorted {
		if err := check(c); err != nil {
			panic("wire: Encode: " + err.Error())
		}
		if i > 0 && sorted[i-1].Channel == c.Channel {
			panic(fmt.Sprintf("wire: Encode: two causes on channel %s/%d", c.Channel.Topic, c.Channel.Partition))
		}
		if i == 0 || c.Channel.Topic != sorted[i-1].Channel.Topic {
			groups++
		}
	}
	// At most: the version, a five-byte topic count, and per cause a topic ID, a five-byte
	// partition count, a five-byte partition and a position.
	out := make([]byte, 0, 6+len(sorted)*(16+5+5+8))
	out = append(out, Version)
	out = appendVarint(out, uint32(groups))
	for first := 0; first < len(sorted); {
		end := first + 1 // one past the group's last pair
		for end < len(sorted) && sorted[end].Channel.Topic == sorted[first].Channel.Topic {
			end++
		}
		out = append(out, sorted[first].Channel.Topic[:]...)
		out = appendVarint(out, uint32(end-first))
		for _, c := range sorted[first:end] {
			out = appendVarint(out, uint32(c.Channel.Partition))
			out = appendPosition(out, c.Position)
		}
		first = end
	}
	return out
}

// CompareCauses orders causes by channel (constraint 4), as a slices.SortFunc comparison: the
// order a canonical value lists them in.
func CompareCauses(a, b Cause) int { return a.Channel.compare(b.Channel) }

// check says why a cause cannot be encoded, or returns nil.
func check(c Cause) error {
	switch {
	case c.Channel.Topic == TopicID{}:
		return fmt.Errorf("cause %s names the all-zero topic ID", c)
	case c.Channel.Partition < 0:
		return fmt.Errorf("cause %s has a negative partition", c)
	case c.Position < 0 || c.Position > PositionMax:
		return fmt.Errorf("cause %s has a position outside 0..2^63-2", c)
	}
	return nil
}

// appendVarint appends the minimal base-128 spelling of v: seven bits per byte, lowest first,
// the high bit on every byte but the last.
func appendVarint(out []byte, v uint32) []byte {
	for v >= 0x80 {
		out = append(out, byte(v&0x7f)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

// appendPosition appends p as 8 big-endian bytes.
func appendPosition(out []byte, p int64) []byte {
	for shift := 56; shift >= 0; shift -= 8 {
		out = append(out, byte(uint64(p)>>shift))
	}
	return out
}

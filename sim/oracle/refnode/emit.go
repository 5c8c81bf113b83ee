package refnode

import (
	"slices"
	"strings"
)

// Emit is SPEC §3 for one emission to channel c: the topic must be a declared send topic
// (EMISSION_TO_UNDECLARED_CHANNEL), the application may attach no parsley.* header
// (RESERVED_HEADER_USED), and the emission carries exactly one parsley.causes header, the Stamp.
// It returns that header's value.
func (n *Node) Emit(c Channel, rec Record) ([]byte, *Refusal) {
	if n.refusal != nil {
		return nil, n.refusal
	}
	if !slices.Contains(n.sends, c.Topic) {
		return nil, n.fail(refuse(EmissionToUndeclaredChannel, "topic %s is not a declared send topic", c.Topic))
	}
	for _, h := range rec.Headers {
		if strings.HasPrefix(h.Key, ReservedPrefix) {
			return nil, n.fail(refuse(ReservedHeaderUsed, "application header %q uses the reserved prefix", h.Key))
		}
	}
	return n.Stamp()
}

// Stamp is SPEC §2.3 STAMP: the canonical encoding of the whole frontier (01 00 when empty), or
// METADATA_BUDGET_EXCEEDED when it is longer than the budget (equality is allowed).
func (n *Node) Stamp() ([]byte, *Refusal) {
	if n.refusal != nil {
		return nil, n.refusal
	}
	if n.stamp != nil && slices.Equal(n.stamped, n.frontier) {
		return n.stamp, nil
	}
	if size := encodedLen(n.frontier); size > n.budget {
		return nil, n.fail(refuse(MetadataBudgetExceeded, "stamp of %d channels encodes to %d bytes, budget %d", len(n.frontier), size, n.budget))
	}
	n.stamp, n.stamped = encodeCauses(n.frontier), slices.Clone(n.frontier)
	return n.stamp, nil
}

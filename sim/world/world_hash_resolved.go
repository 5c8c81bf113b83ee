package world

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/sim/state"
)

// A process's resolved incarnations and ever-resolved topics (proc.resolved, proc.everResolved)
// are encoded as one digest, cached in the process (proc.resolvedDigest): the maps change only at
// a full start that resolves a new incarnation and at a redeclaration, and looking every topic up
// in both maps was a good part of re-encoding a process after each transition. The maps are never
// changed in place — resolve and redeclare replace them, and clear the digest where they do — so
// a process copy (proc.cloneInto), which shares the maps, shares the digest too.

// appendResolved appends the digest of p's resolved incarnation (-1: none) and ever-resolved flag
// per scenario topic, computed on first use after the maps are replaced.
func (h *stateHasher) appendResolved(b []byte, p *proc) []byte {
	if p.resolvedDigest == 0 || h.verify {
		enc := h.caches.resolved[:0]
		for t := range p.w.topics {
			inc, ok := p.resolved[t]
			if !ok {
				inc = -1
			}
			enc = binary.AppendVarint(enc, int64(inc))
			enc = state.AppendBool(enc, p.everResolved[t])
		}
		h.caches.resolved = enc
		storeDigest(&p.resolvedDigest, enc, func() string { return "the resolved topics of process " + p.spec.Name })
	}
	return binary.LittleEndian.AppendUint64(b, p.resolvedDigest)
}

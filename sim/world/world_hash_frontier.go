package world

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/sim/oracle"
)

// A process's four oracle frontiers (past, seen, bound, true delivered past) are encoded as one
// 64-bit digest each, cached in the frontier (oracle.Frontier.Digest): a transition changes at most a
// frontier or two of the one process it acts on, and re-encoding every frontier channel by
// channel was a large part of encoding a process. Every change to a frontier goes through
// Frontier.Own, which clears the digest; a rollback that puts the step's snapshot back clears it as
// well (oracle.Oracle.Rollback). A process's copy (proc.cloneInto) copies its frontiers with their
// digests: equal frontiers, equal digests.

// appendFrontier appends frontier f of process p: 0 when empty, else 1 and its digest, computed
// on first use after a change and cached in f.
func (h *stateHasher) appendFrontier(b []byte, p *proc, f *oracle.Frontier) []byte {
	if f.C.IsEmpty() {
		return append(b, 0)
	}
	if f.Digest == 0 || h.verify {
		enc := p.w.or.AppendCauses(h.caches.frontier[:0], f.C)
		h.caches.frontier = enc
		storeDigest(&f.Digest, enc, func() string { return "a frontier of process " + p.spec.Name })
	}
	b = append(b, 1)
	return binary.LittleEndian.AppendUint64(b, f.Digest)
}

// Exact implements oracle.Hasher: the encoding without the explorer's abstractions.
func (h *stateHasher) Exact() bool { return h.exact }

// AppendFrontier implements oracle.Hasher: a frontier of the process being encoded.
func (h *stateHasher) AppendFrontier(b []byte, f *oracle.Frontier) []byte {
	return h.appendFrontier(b, h.caches.of, f)
}

// UndoScratch implements oracle.Hasher.
func (h *stateHasher) UndoScratch() *oracle.UndoScratch { return &h.caches.undo }

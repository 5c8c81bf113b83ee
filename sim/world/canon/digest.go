package canon

import (
	"encoding/binary"
	"fmt"

	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/state"
)

// Digests of the parts a transition seldom changes, each cached beside its part and the same for
// every hasher: a message's content, a channel's shadow log, a frontier, a process's resolved
// topics. A digest is never 0, which marks a cache stale.
//
// A channel's shadow log — per slot the message's kind, state, sender and content digest — is
// encoded in the world's canonical encoding as one 64-bit digest, cached in the oracle's model of
// the channel's log (oracle.Oracle.ShadowLog), which a clone copies by value (oracle.Oracle.CloneFrom), so a
// clone inherits the digest of the log it copied and a change in one world never reaches
// another. It is cleared wherever the shadow log changes:
//
//   - oracle.Oracle.Add (every new message): a slot changes;
//   - oracle.Oracle.SetState: a message's state changes (its channel's digest);
//   - oracle.Oracle.SetPayload: a message's payload, and so its content digest, changes.
//
// A message's kind, sender, channel and position never change after add. The rest of the
// channel's encoding (last stable offset, substrate offsets) is read afresh at every hash.
//
// A process's four oracle frontiers (past, seen, bound, true delivered past) are one digest each,
// cached in the frontier (oracle.Frontier.Digest): every change to a frontier goes through
// Frontier.Own, which clears the digest; a rollback that puts the step's snapshot back clears it
// as well (oracle.Oracle.Rollback). A process's copy copies its frontiers with their digests:
// equal frontiers, equal digests.
//
// A process's resolved incarnations and ever-resolved topics are one digest, cached in the
// process (ProcState.ResolvedDigest): the maps change only at a full start that resolves a new
// incarnation and at a redeclaration, which replace them and clear the digest, so a process copy,
// which shares the maps, shares the digest too.
//
// A missing invalidation would silently merge distinct states, so the staleness test's hasher
// (Hasher.Verify) recomputes every cached digest and panics on a mismatch.

// chanDigest returns the digest of channel c's shadow log, computed on first use after a change
// and cached in the channel.
func (h *Hasher) chanDigest(or *oracle.Oracle, c int32) uint64 {
	slots, digest := or.ShadowLog(c)
	if *digest != 0 && !h.Verify {
		return *digest
	}
	b := h.scratch.chanLog[:0]
	b = h.appendShadowLog(b, or, slots)
	h.scratch.chanLog = b
	return storeDigest(digest, b, func() string { return "the shadow log of channel " + or.ChanName(c) })
}

// appendShadowLog appends the canonical encoding of a channel's slots.
func (h *Hasher) appendShadowLog(b []byte, or *oracle.Oracle, slots []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(slots)))
	for _, uid := range slots {
		if uid == 0 {
			b = append(b, 0)
			continue
		}
		m := or.Msg(uid)
		b = append(b, byte(m.Kind), byte(m.State))
		b = binary.AppendVarint(b, int64(m.Sender))
		b = binary.LittleEndian.AppendUint64(b, h.msgDigest(or, m))
	}
	return b
}

// msgDigest returns the digest of message m's immutable content — payload, true past, expressed
// causes, the header bytes of a corrupt, forged or undecodable record — computed at its first use
// and cached in the message: every state that holds the message would otherwise re-encode its
// causes. The cache is written into a message that clones share; it is a function of what never
// changes in a message (a payload change replaces the message and clears it,
// oracle.Oracle.SetPayload), so every sharer agrees.
func (h *Hasher) msgDigest(or *oracle.Oracle, m *oracle.Message) uint64 {
	if m.Digest != 0 && !h.Verify {
		return m.Digest
	}
	b := h.scratch.msg[:0]
	b = state.AppendBytes(b, m.Key)
	b = state.AppendBytes(b, m.Value)
	b = or.AppendCauses(b, m.Past)
	b = or.AppendCauses(b, m.Expressed)
	b = binary.AppendUvarint(b, uint64(len(m.Raw)))
	for _, v := range m.Raw {
		b = state.AppendNullableBytes(b, v)
	}
	h.scratch.msg = b
	return storeDigest(&m.Digest, b, func() string { return fmt.Sprintf("the message at %s:%d", or.ChanName(m.Ch), m.Pos) })
}

// appendResolved appends the digest of a process's resolved incarnation (-1: none) and
// ever-resolved flag per scenario topic, computed on first use after the maps are replaced.
func (h *Hasher) appendResolved(b []byte, s *State, ps *ProcState) []byte {
	if *ps.ResolvedDigest == 0 || h.Verify {
		enc := h.scratch.resolved[:0]
		for t := range s.Topics {
			inc, ok := ps.Resolved[t]
			if !ok {
				inc = -1
			}
			enc = binary.AppendVarint(enc, int64(inc))
			enc = state.AppendBool(enc, ps.EverResolved[t])
		}
		h.scratch.resolved = enc
		storeDigest(ps.ResolvedDigest, enc, func() string { return "the resolved topics of process " + ps.Name })
	}
	return binary.LittleEndian.AppendUint64(b, *ps.ResolvedDigest)
}

// storeDigest computes the digest of enc, a cached part's encoding, stores it in *cached and
// returns it. When *cached held another digest — only a verifying hasher recomputes a part whose
// cache is not stale — a change to the part did not clear its cache: it panics, naming the part
// (what, called only then).
func storeDigest(cached *uint64, enc []byte, what func() string) uint64 {
	d := max(digestSum.Sum(enc), 1)
	if *cached != 0 && *cached != d {
		panic("canon: the cached digest of " + what() + " is stale: a change to it did not clear it")
	}
	*cached = d
	return d
}

// digestSum hashes the digests of cached parts (storeDigest). It is keyed apart from the state
// hash's functions; two parts with one digest (probability 2⁻⁶⁴ a pair) would merge states, as a
// collision of the state hash itself would.
var digestSum = state.NewSum64(3)

// oracleHasher is a Hasher as the oracle's encoding of a process sees it (oracle.Hasher).
type oracleHasher struct{ h *Hasher }

// Exact implements oracle.Hasher: the encoding without the explorer's abstractions.
func (o oracleHasher) Exact() bool { return o.h.Exact }

// AppendFrontier implements oracle.Hasher: a frontier of the process being encoded, 0 when empty,
// else 1 and its digest, computed on first use after a change and cached in f.
func (o oracleHasher) AppendFrontier(b []byte, f *oracle.Frontier) []byte {
	if f.C.IsEmpty() {
		return append(b, 0)
	}
	if h := o.h; f.Digest == 0 || h.Verify {
		or, name := h.st.Oracle, h.scratch.proc.Name
		enc := or.AppendCauses(h.scratch.frontier[:0], f.C)
		h.scratch.frontier = enc
		storeDigest(&f.Digest, enc, func() string { return "a frontier of process " + name })
	}
	b = append(b, 1)
	return binary.LittleEndian.AppendUint64(b, f.Digest)
}

// UndoScratch implements oracle.Hasher.
func (o oracleHasher) UndoScratch() *oracle.UndoScratch { return &o.h.scratch.undo }

package world

import (
	"encoding/binary"

	"github.com/parsleysim/parsleysim/sim/state"
)

// A channel's shadow log — per slot the message's kind, state, sender and content digest — is
// encoded in the world's canonical encoding as one 64-bit digest, cached in the channel: a
// transition changes the shadow log of one or two channels, and every state re-encoded every
// channel's slots. The cache lives in the oracle's model of the channel's log (oracle.Oracle.ShadowLog), which a
// clone copies by value (oracle.Oracle.CloneFrom), so a clone inherits the digest of the log it
// copied and a change in one world never reaches another. It is cleared (set to 0, "stale") wherever the shadow log changes:
//
//   - oracle.Oracle.Add (every new message): a slot changes;
//   - oracle.Oracle.SetState: a message's state changes (its channel's digest);
//   - oracle.Oracle.SetPayload: a message's payload, and so its content digest, changes.
//
// A message's kind, sender, channel and position never change after add. The rest of the
// channel's encoding (last stable offset, substrate offsets) is read afresh at every hash.
//
// A missing invalidation would silently merge distinct states, so the staleness test's hasher
// verifies instead (TestHashCachesStayFresh): it recomputes every cached digest and panics on a
// mismatch.

// chanDigest returns the digest of channel c's shadow log, computed on first use after a change
// and cached in the channel. Like a message digest it is the same for every hasher.
func (h *stateHasher) chanDigest(w *World, c int32) uint64 {
	slots, digest := w.or.ShadowLog(c)
	if *digest != 0 && !h.verify {
		return *digest
	}
	b := h.caches.chanLog[:0]
	b = h.appendShadowLog(b, w, slots)
	h.caches.chanLog = b
	return storeDigest(digest, b, func() string { return "the shadow log of channel " + w.chanName(c) })
}

// storeDigest computes the digest of enc, a cached part's encoding, stores it in *cached and
// returns it. Digests are never 0, which marks a cache stale. When *cached held another digest —
// only a verifying hasher recomputes a part whose cache is not stale — a change to the part did
// not clear its cache: it panics, naming the part (what, called only then).
func storeDigest(cached *uint64, enc []byte, what func() string) uint64 {
	d := max(digestSum.Sum(enc), 1)
	if *cached != 0 && *cached != d {
		panic("world: the cached digest of " + what() + " is stale: a change to it did not clear it")
	}
	*cached = d
	return d
}

// digestSum hashes the digests of cached parts (storeDigest): message contents, channel shadow
// logs, frontiers, resolved topics. It is keyed apart from the state hash's functions; two parts
// with one digest (probability 2⁻⁶⁴ a pair) would merge states, as a collision of the state hash
// itself would.
var digestSum = state.NewSum64(3)

// appendShadowLog appends the canonical encoding of a channel's slots.
func (h *stateHasher) appendShadowLog(b []byte, w *World, slots []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(slots)))
	for _, uid := range slots {
		if uid == 0 {
			b = append(b, 0)
			continue
		}
		m := w.or.Msg(uid)
		b = append(b, byte(m.Kind), byte(m.State))
		b = binary.AppendVarint(b, int64(m.Sender))
		b = binary.LittleEndian.AppendUint64(b, h.msgDigest(w, m))
	}
	return b
}

package oracle

import "github.com/parsleysim/parsleysim/node"

// Frontier is a causal frontier the oracle keeps copy-on-write: once shared (referenced by a
// message or a step's snapshot) it is cloned before its next change.
type Frontier struct {
	C      node.Causes
	Shared bool
	// Digest caches the hash of C's canonical encoding for the explorer; 0: stale. Own, the one
	// way to change C in place, clears it.
	Digest uint64
}

// Room carves room for a copy of a frontier of n entries (the storage of the process the
// frontier belongs to).
type Room interface {
	CauseRoom(n int) []node.Cause
}

// Own returns the frontier for changing, with room for extra more channels: it is cloned first,
// into room carved from r, when it is shared or lacks that room, so that no change allocates on
// its own.
func (f *Frontier) Own(r Room, extra int) *node.Causes {
	if n := f.C.Len() + extra; f.Shared || n > cap(f.C.Pairs()) {
		f.C = f.C.CloneInto(r.CauseRoom(n))
		f.Shared = false
	}
	f.Digest = 0
	return &f.C
}

// Share returns the frontier for keeping; the next change will clone.
func (f *Frontier) Share() node.Causes {
	f.Shared = true
	return f.C
}

// MergeFrom raises the frontier to at least other, in one walk of both: a frontier other teaches
// nothing stays as it is, shared or not (most receipts and deliveries teach nothing new); the
// first pair that teaches something makes the frontier its own (Own), and each such pair is
// merged in place.
func (f *Frontier) MergeFrom(other node.Causes, r Room) {
	want := other.Pairs()
	have, i := f.C.Pairs(), 0
	for j := range want {
		w := &want[j]
		k := keyOf(&w.Channel)
		for i < len(have) && keyOf(&have[i].Channel).less(k) {
			i++
		}
		extra := 0
		if i == len(have) || have[i].Channel != w.Channel {
			extra = 1
		} else if have[i].Position >= w.Position {
			continue
		}
		c := f.Own(r, extra)
		c.Merge(w.Channel, w.Position)
		have = c.Pairs()
	}
}

// Merge raises the frontier's position on ch to at least pos, cloning a shared frontier only if
// that changes it.
func (f *Frontier) Merge(ch node.Channel, pos node.Offset, r Room) {
	extra := 0
	if f.Shared || f.C.Len() == cap(f.C.Pairs()) {
		q, ok := f.C.Lookup(ch)
		if ok && q >= pos {
			return
		}
		if !ok {
			extra = 1
		}
	}
	f.Own(r, extra).Merge(ch, pos)
}

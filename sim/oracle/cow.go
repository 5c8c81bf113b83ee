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

// Own returns the frontier for changing, cloning it first into room carved from r if it is
// shared.
func (f *Frontier) Own(r Room) *node.Causes {
	if f.Shared {
		f.C = f.C.CloneInto(r.CauseRoom(f.C.Len()))
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

// MergeFrom raises the frontier to at least other. A shared frontier that covers other already
// stays shared: most receipts and deliveries teach nothing new, and cloning for a no-op merge
// would cost an allocation per frontier per step.
func (f *Frontier) MergeFrom(other node.Causes, r Room) {
	if other.IsEmpty() || (f.Shared && f.C.Covers(other)) {
		return
	}
	f.Own(r).MergeFrom(other)
}

// Merge raises the frontier's position on ch to at least pos, cloning a shared frontier only if
// that changes it.
func (f *Frontier) Merge(ch node.Channel, pos node.Offset, r Room) {
	if f.Shared {
		if q, ok := f.C.Lookup(ch); ok && q >= pos {
			return
		}
	}
	f.Own(r).Merge(ch, pos)
}

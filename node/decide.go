package node

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// ReceivedSet answers whether a channel is one the deciding process receives. Causes on channels
// outside it never block (SPEC §2.1, §2.4).
type ReceivedSet interface {
	Receives(ch Channel) bool
}

// SettledView gives a received channel's settled position: every position at or below it has been
// delivered here or can never yield a message here (SPEC §1.4). known is false when nothing is
// known about the channel yet, which blocks any cause on it.
type SettledView interface {
	Settled(ch Channel) (pos Offset, known bool)
}

// Blocker is one unsatisfied cause of a held message: the channel, the position required there,
// and the channel's settled position (SettledKnown false when nothing is settled yet).
type Blocker struct {
	Channel      Channel
	Required     Offset
	Settled      Offset
	SettledKnown bool
}

// String renders the blocker as channel required=R settled=S (or settled=none).
func (b Blocker) String() string {
	if !b.SettledKnown {
		return b.Channel.String() + " required=" + itoa(int64(b.Required)) + " settled=none"
	}
	return b.Channel.String() + " required=" + itoa(int64(b.Required)) + " settled=" + itoa(int64(b.Settled))
}

// Verdict is the outcome of Decide: deliverable when Blockers is empty, held otherwise, with one
// blocker per unsatisfied cause in channel order.
type Verdict struct {
	Blockers []Blocker
}

// Deliverable reports whether every cause was satisfied.
func (v Verdict) Deliverable() bool { return len(v.Blockers) == 0 }

// Decide is the delivery gate (SPEC §2.1): a message with these causes is deliverable at a
// process with this received set and settled view iff, for every cause (c, p) with c received,
// settled(c) is known and p ≤ settled(c). Causes on channels not received are skipped. It reads
// nothing else: no clock, no timestamp, no I/O. The deliverable path does not allocate.
func Decide(causes Causes, received ReceivedSet, settled SettledView) Verdict {
	if t := sameTable(received, settled); t != nil {
		return t.Decide(causes)
	}
	return Verdict{Blockers: appendBlockersViews(nil, causes, received, settled)}
}

// Decide is Decide(causes, t, t) without the interfaces: the gate's entry point for a caller that
// holds its views in a table.
func (t *SettledTable) Decide(causes Causes) Verdict {
	// The causes and the entries are both in channel order, so one merge-like pass finds the
	// first cause above its channel's settled position (seekEntry), with no call on the
	// deliverable path; a table much wider than the causes is galloped through instead.
	cs, es := causes.pairs, t.entries
	if gallops(len(es), len(cs)) {
		var v Verdict
		t.walkGalloping(&v.Blockers, cs, 0, 0)
		return v
	}
	j := 0
	for i := range cs {
		c := &cs[i]
		var found bool
		if j, found = seekEntry(es, j, keyOf(&c.Channel)); found {
			if c.Position > es[j].settled {
				var v Verdict
				t.appendBlockersFrom(&v.Blockers, cs, i, j) // the causes before i are satisfied
				return v
			}
			j++
		}
	}
	return Verdict{}
}

// AppendBlockers is Decide for hot paths: it appends the blockers of causes to dst and returns
// the extended slice, so a caller can reuse one buffer; no blocker appended means deliverable.
func AppendBlockers(dst []Blocker, causes Causes, received ReceivedSet, settled SettledView) []Blocker {
	if t := sameTable(received, settled); t != nil {
		t.appendBlockersFrom(&dst, causes.pairs, 0, 0)
		return dst
	}
	return appendBlockersViews(dst, causes, received, settled)
}

// appendBlockersViews is AppendBlockers through the interfaces: two calls per cause.
func appendBlockersViews(dst []Blocker, causes Causes, received ReceivedSet, settled SettledView) []Blocker {
	for _, c := range causes.pairs {
		if !received.Receives(c.Channel) {
			continue
		}
		pos, known := settled.Settled(c.Channel)
		if known && c.Position <= pos {
			continue
		}
		dst = appendBlocker(dst, &c, pos, known)
	}
	return dst
}

// appendBlocker appends the blocker for an unsatisfied cause, filled in place (a 48-byte struct
// built apart and copied in goes through the stack), every field written once: a slot within
// dst's capacity is taken as it is, not cleared first. Settled is 0 whenever nothing is known,
// whatever the view returned alongside known == false, so equal holds compare equal.
func appendBlocker(dst []Blocker, c *Cause, settled Offset, known bool) []Blocker {
	if n := len(dst); n < cap(dst) {
		dst = dst[:n+1]
	} else {
		dst = append(dst, Blocker{})
	}
	if !known {
		settled = 0
	}
	b := &dst[len(dst)-1]
	b.Channel, b.Required, b.Settled, b.SettledKnown = c.Channel, c.Position, settled, known
	return dst
}

// itoa formats a signed integer.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// SettledTable is a ReceivedSet and a SettledView in one value: the received channels in channel
// order, each with its settled position once one is known. Decide and AppendBlockers recognise a
// *SettledTable passed as both views and walk it in step with the causes — two sorted sequences,
// one pass, a galloping seek when the table is much wider than the causes — instead of two
// interface calls and two searches per cause. Any other views take the general path.
//
// The zero value receives nothing. Invariant: entries strictly ascending by key.
type SettledTable struct {
	entries []settledEntry
}

// settledEntry is one received channel: its key spelled out, so that the entry packs into 32
// bytes, and its settled position. Invariant: settled is −1 when known is false, so that the
// gate's test of a cause (whose position is at least 0) against an entry is the one comparison
// position ≤ settled.
type settledEntry struct {
	hi, lo    uint64
	partition Partition
	known     bool
	settled   Offset
}

// key returns the entry's channel key.
func (e *settledEntry) key() channelKey { return channelKey{e.hi, e.lo, e.partition} }

// channelKey is a channel as integers in channel order: the topic ID's big-endian halves, then
// the partition. Comparing two keys is at most three integer compares, inlined, where
// Channel.Compare is a call; the gate's walk compares keys only.
type channelKey struct {
	hi, lo    uint64
	partition Partition
}

// keyOf takes a pointer so that a hot loop reads the topic ID in place: copying a Channel out of
// a slice and reloading it in halves stalls store-to-load forwarding.
func keyOf(ch *Channel) channelKey {
	return channelKey{binary.BigEndian.Uint64(ch.Topic[:8]), binary.BigEndian.Uint64(ch.Topic[8:]), ch.Partition}
}

// channel is the inverse of keyOf.
func (k channelKey) channel() Channel {
	var ch Channel
	binary.BigEndian.PutUint64(ch.Topic[:8], k.hi)
	binary.BigEndian.PutUint64(ch.Topic[8:], k.lo)
	ch.Partition = k.partition
	return ch
}

// less reports whether k sorts before m in channel order.
func (k channelKey) less(m channelKey) bool {
	if k.hi != m.hi {
		return k.hi < m.hi
	}
	if k.lo != m.lo {
		return k.lo < m.lo
	}
	return k.partition < m.partition
}

// Receive adds ch to the received set, with nothing settled, unless it is already there.
func (t *SettledTable) Receive(ch Channel) { t.entry(ch) }

// Settle records ch as received with settled position pos: every position at or below pos has
// been delivered or never will yield a message here. pos may be −1 (the channel is known but
// nothing on it is settled) or MaxOffset (the channel was deleted). Settle sets, it does not
// raise: the settled position falls when a message is held (SPEC §1.4).
func (t *SettledTable) Settle(ch Channel, pos Offset) {
	e := t.entry(ch)
	e.settled, e.known = pos, true
}

// entry returns ch's entry, adding it with nothing known when ch is not received yet.
func (t *SettledTable) entry(ch Channel) *settledEntry {
	k := keyOf(&ch)
	i := t.seek(0, k)
	if i == len(t.entries) || t.entries[i].key() != k {
		t.entries = slices.Insert(t.entries, i, settledEntry{hi: k.hi, lo: k.lo, partition: k.partition, settled: -1})
	}
	return &t.entries[i]
}

// Drop removes ch from the received set and reports whether it was there.
func (t *SettledTable) Drop(ch Channel) bool {
	i, ok := t.find(ch)
	if ok {
		t.entries = slices.Delete(t.entries, i, i+1)
	}
	return ok
}

// Len returns the number of received channels.
func (t *SettledTable) Len() int { return len(t.entries) }

// Receives reports whether ch is in the received set.
func (t *SettledTable) Receives(ch Channel) bool {
	_, ok := t.find(ch)
	return ok
}

// Settled returns ch's settled position, known false when ch is not received or nothing is
// settled on it yet.
func (t *SettledTable) Settled(ch Channel) (Offset, bool) {
	if i, ok := t.find(ch); ok && t.entries[i].known {
		return t.entries[i].settled, true
	}
	return 0, false
}

// find returns ch's index, if present.
func (t *SettledTable) find(ch Channel) (int, bool) {
	k := keyOf(&ch)
	i := t.seek(0, k)
	return i, i < len(t.entries) && t.entries[i].key() == k
}

// sameTable returns the table when both views are the same *SettledTable, else nil.
func sameTable(received ReceivedSet, settled SettledView) *SettledTable {
	t, ok := received.(*SettledTable)
	if !ok || t == nil {
		return nil
	}
	if s, ok := settled.(*SettledTable); !ok || s != t {
		return nil
	}
	return t
}

// appendBlockersFrom appends to *dst the blocker of every blocked cause from causes[i] on, entry
// j being the first entry not below causes[i]'s channel or an earlier one. The blockers are kept
// in a local slice and stored through dst once.
func (t *SettledTable) appendBlockersFrom(dst *[]Blocker, causes []Cause, i, j int) {
	es := t.entries
	if gallops(len(es), len(causes)) {
		t.walkGalloping(dst, causes, i, j)
		return
	}
	out := *dst
	for ; i < len(causes); i++ {
		c := &causes[i]
		var found bool
		if j, found = seekEntry(es, j, keyOf(&c.Channel)); found {
			if e := &es[j]; c.Position > e.settled {
				out = appendBlocker(out, c, e.settled, e.known)
			}
			j++
		}
	}
	*dst = out
}

// seekEntry returns the index of the first entry of es at or after j whose key is not below k,
// and whether its key is k. It compares each entry with k field by field, most significant first
// (most entries differ in the topic ID's first half), and is small enough to inline into the
// gate's loops.
func seekEntry(es []settledEntry, j int, k channelKey) (int, bool) {
	for ; j < len(es); j++ {
		e := &es[j]
		if e.hi != k.hi {
			if e.hi > k.hi {
				return j, false
			}
			continue
		}
		if e.lo != k.lo {
			if e.lo > k.lo {
				return j, false
			}
			continue
		}
		if e.partition != k.partition {
			if e.partition > k.partition {
				return j, false
			}
			continue
		}
		return j, true
	}
	return j, false
}

// gallops reports whether a table of entries is wide enough, against causes, for the galloping
// walk to beat the plain merge.
func gallops(entries, causes int) bool { return entries > 8*causes+16 }

// walkGalloping is the gate for a table much wider than the causes: O(width × log(entries/width))
// compares, a call per cause, where the plain merge is O(width + entries). From causes[i] and
// entry j on, it appends the blocker of every blocked cause to *dst.
func (t *SettledTable) walkGalloping(dst *[]Blocker, causes []Cause, i, j int) {
	for ; i < len(causes); i++ {
		c := &causes[i]
		if e, ok := t.next(&j, c); ok && c.Position > e.settled {
			*dst = appendBlocker(*dst, c, e.settled, e.known)
		}
	}
}

// next advances *j to the first entry not below c's channel and returns that entry if it is c's
// channel, leaving *j past it: the causes ascend strictly, so the next cause sorts after it. The
// commonest step — the entry at *j is c's channel — costs one key comparison.
func (t *SettledTable) next(j *int, c *Cause) (*settledEntry, bool) {
	k := keyOf(&c.Channel)
	if *j < len(t.entries) && t.entries[*j].key() != k {
		*j = t.seek(*j, k)
	}
	if *j < len(t.entries) && t.entries[*j].key() == k {
		*j++
		return &t.entries[*j-1], true
	}
	return nil, false
}

// seek returns the index of the first entry at or after from whose key is not below k. It gallops
// (probes from, from+1, from+3, from+7, ...) and then binary-searches the last stride, so a walk
// over w causes costs O(w log(n/w)) compares against n entries, and one compare when the next
// entry is the cause's channel.
func (t *SettledTable) seek(from int, k channelKey) int {
	lo, step := from, 1
	hi := lo
	for ; hi < len(t.entries) && t.entries[hi].key().less(k); hi = lo + step - 1 {
		lo, step = hi+1, step*2
	}
	hi = min(hi, len(t.entries))
	for lo < hi { // the answer is in [lo, hi]: entries[hi] is not below k, or hi is the end
		mid := int(uint(lo+hi) >> 1)
		if t.entries[mid].key().less(k) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

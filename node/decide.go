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
	if t := sameTable(received, settled); t != nil && t.satisfied(causes) {
		return Verdict{}
	}
	return Verdict{Blockers: AppendBlockers(nil, causes, received, settled)}
}

// AppendBlockers is Decide for hot paths: it appends the blockers of causes to dst and returns
// the extended slice, so a caller can reuse one buffer; no blocker appended means deliverable.
func AppendBlockers(dst []Blocker, causes Causes, received ReceivedSet, settled SettledView) []Blocker {
	if t := sameTable(received, settled); t != nil {
		if t.satisfied(causes) {
			return dst // the deliverable path: one tight walk, nothing built
		}
		return t.appendBlockers(dst, causes)
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
		dst = append(dst, newBlocker(c, pos, known))
	}
	return dst
}

// Satisfied reports whether causes are all satisfied, without building blockers. It is the gate's
// fast check; Decide explains a hold.
func Satisfied(causes Causes, received ReceivedSet, settled SettledView) bool {
	if t := sameTable(received, settled); t != nil {
		return t.satisfied(causes)
	}
	for _, c := range causes.pairs {
		if !received.Receives(c.Channel) {
			continue
		}
		pos, known := settled.Settled(c.Channel)
		if !known || c.Position > pos {
			return false
		}
	}
	return true
}

// newBlocker builds the blocker for an unsatisfied cause. Settled is 0 whenever nothing is known,
// whatever the view returned alongside known == false, so equal holds compare equal.
func newBlocker(c Cause, settled Offset, known bool) Blocker {
	if !known {
		settled = 0
	}
	return Blocker{Channel: c.Channel, Required: c.Position, Settled: settled, SettledKnown: known}
}

// itoa formats a signed integer.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// SettledTable is a ReceivedSet and a SettledView in one value: the received channels in channel
// order, each with its settled position once one is known. Decide, AppendBlockers and Satisfied
// recognise a *SettledTable passed as both views and walk it in step with the causes — two sorted
// sequences, one pass, a galloping seek when the table is much wider than the causes — instead of
// two interface calls and two searches per cause. Any other views take the general path.
//
// The zero value receives nothing. Invariant: entries strictly ascending by key.
type SettledTable struct {
	entries []settledEntry
}

// settledEntry is one received channel. Invariant: settled is 0 when known is false.
type settledEntry struct {
	key     channelKey
	settled Offset
	known   bool
}

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
func (t *SettledTable) Receive(ch Channel) {
	k := keyOf(&ch)
	if i := t.seek(0, k); i == len(t.entries) || t.entries[i].key != k {
		t.entries = slices.Insert(t.entries, i, settledEntry{key: k})
	}
}

// Settle records ch as received with settled position pos: every position at or below pos has
// been delivered or never will yield a message here. pos may be −1 (the channel is known but
// nothing on it is settled) or MaxOffset (the channel was deleted). Settle sets, it does not
// raise: the settled position falls when a message is held (SPEC §1.4).
func (t *SettledTable) Settle(ch Channel, pos Offset) {
	k := keyOf(&ch)
	i := t.seek(0, k)
	if i == len(t.entries) || t.entries[i].key != k {
		t.entries = slices.Insert(t.entries, i, settledEntry{key: k})
	}
	t.entries[i].settled, t.entries[i].known = pos, true
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
	if i, ok := t.find(ch); ok {
		return t.entries[i].settled, t.entries[i].known
	}
	return 0, false
}

// find returns ch's index, if present.
func (t *SettledTable) find(ch Channel) (int, bool) {
	k := keyOf(&ch)
	i := t.seek(0, k)
	return i, i < len(t.entries) && t.entries[i].key == k
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

// appendBlockers is AppendBlockers over a table for a held message: the walk of satisfied, but
// appending a blocker for every unsatisfied cause instead of stopping at the first.
func (t *SettledTable) appendBlockers(dst []Blocker, causes Causes) []Blocker {
	if !t.linear(len(causes.pairs)) {
		return t.appendBlockersGalloping(dst, causes)
	}
	es := t.entries
	j := 0
	for i := range causes.pairs {
		c := &causes.pairs[i]
		k := keyOf(&c.Channel)
	walk:
		for ; j < len(es); j++ {
			e := &es[j]
			switch {
			case e.key.hi != k.hi:
				if e.key.hi > k.hi {
					break walk
				}
			case e.key.lo != k.lo:
				if e.key.lo > k.lo {
					break walk
				}
			case e.key.partition != k.partition:
				if e.key.partition > k.partition {
					break walk
				}
			default: // c's channel is received
				if !e.known || c.Position > e.settled {
					dst = append(dst, newBlocker(*c, e.settled, e.known))
				}
				j++
				break walk
			}
		}
	}
	return dst
}

// appendBlockersGalloping is appendBlockers for a table much wider than the causes.
func (t *SettledTable) appendBlockersGalloping(dst []Blocker, causes Causes) []Blocker {
	j := 0
	for i := range causes.pairs {
		c := &causes.pairs[i]
		e, ok := t.next(&j, c)
		if !ok || (e.known && c.Position <= e.settled) {
			continue
		}
		dst = append(dst, newBlocker(*c, e.settled, e.known))
	}
	return dst
}

// satisfied is Satisfied over a table. Each entry the walk passes is compared with the cause once,
// field by field, most significant first; most entries differ in the topic ID's first half.
func (t *SettledTable) satisfied(causes Causes) bool {
	if !t.linear(len(causes.pairs)) {
		return t.satisfiedGalloping(causes)
	}
	es := t.entries
	j := 0
	for i := range causes.pairs {
		c := &causes.pairs[i]
		k := keyOf(&c.Channel)
	walk:
		for ; j < len(es); j++ {
			e := &es[j]
			switch {
			case e.key.hi != k.hi:
				if e.key.hi > k.hi {
					break walk
				}
			case e.key.lo != k.lo:
				if e.key.lo > k.lo {
					break walk
				}
			case e.key.partition != k.partition:
				if e.key.partition > k.partition {
					break walk
				}
			default: // c's channel is received
				if !e.known || c.Position > e.settled {
					return false
				}
				j++
				break walk
			}
		}
	}
	return true
}

// linear reports whether a walk over width causes should step through the entries one by one (a
// plain merge of two sorted sequences, O(width + entries), no calls in the loop) rather than
// gallop (O(width log(entries/width)) compares, a call per cause). Linear wins unless the table is
// much wider than the causes.
func (t *SettledTable) linear(width int) bool { return len(t.entries) <= 8*width+16 }

// satisfiedGalloping is satisfied for a table much wider than the causes.
func (t *SettledTable) satisfiedGalloping(causes Causes) bool {
	j := 0
	for i := range causes.pairs {
		c := &causes.pairs[i]
		e, ok := t.next(&j, c)
		if ok && (!e.known || c.Position > e.settled) {
			return false
		}
	}
	return true
}

// next advances *j to the first entry not below c's channel and returns that entry if it is c's
// channel, leaving *j past it: the causes ascend strictly, so the next cause sorts after it. The
// commonest step — the entry at *j is c's channel — costs one key comparison.
func (t *SettledTable) next(j *int, c *Cause) (*settledEntry, bool) {
	k := keyOf(&c.Channel)
	if *j < len(t.entries) && t.entries[*j].key != k {
		*j = t.seek(*j, k)
	}
	if *j < len(t.entries) && t.entries[*j].key == k {
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
	for ; hi < len(t.entries) && t.entries[hi].key.less(k); hi = lo + step - 1 {
		lo, step = hi+1, step*2
	}
	hi = min(hi, len(t.entries))
	for lo < hi { // the answer is in [lo, hi]: entries[hi] is not below k, or hi is the end
		mid := int(uint(lo+hi) >> 1)
		if t.entries[mid].key.less(k) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

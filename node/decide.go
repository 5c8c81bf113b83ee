package node

import (
	"encoding/binary"
	"math/bits"
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
// holds its views in a table. Each cause is one probe of the table's hash index (more only where
// keys collide), so a decision costs the same whatever the table's width and whichever lists
// came before; the deliverable path is one call, to a loop that calls nothing.
//
// Decide only reads the table: calls on one table may run concurrently with each other (not with
// Receive, Settle or Drop).
func (t *SettledTable) Decide(causes Causes) Verdict {
	if i := firstBlocked(t.slots, causes.pairs); i >= 0 {
		return t.blockedFrom(causes.pairs, i)
	}
	return Verdict{}
}

// firstBlocked returns the index of the first cause of cs blocked in slots (a table's index), or
// −1 when every cause is satisfied or not received. It calls nothing. It compares a slot's key
// before testing whether the slot is used, which is sound because a cause's channel is never the
// zero channel (a decoded topic ID is never zero), the key of every unused slot.
func firstBlocked(slots []settledEntry, cs []Cause) int {
	if len(slots) == 0 {
		return -1 // nothing received: every cause is skipped
	}
	m := uint64(len(slots) - 1)
	for i := range cs {
		c := &cs[i]
		s := slotHash(&c.Channel)
		e := &slots[s&m]
		for e.ch != c.Channel {
			if !e.used {
				break // not received: never blocks
			}
			s++
			e = &slots[s&m]
		}
		if c.Position > e.settled && e.used {
			return i
		}
	}
	return -1
}

// probe returns the index of ch's slot in slots (a table's index, not empty), or −1 when ch is
// not received. The gate's loops write the same walk out, comparing the key first.
func probe(slots []settledEntry, ch *Channel) int {
	m := uint64(len(slots) - 1)
	for s := slotHash(ch) & m; slots[s].used; s = (s + 1) & m {
		if slots[s].ch == *ch {
			return int(s)
		}
	}
	return -1
}

// blockedFrom is Decide's verdict when causes[i] is the first blocked cause.
func (t *SettledTable) blockedFrom(causes []Cause, i int) Verdict {
	var v Verdict
	t.appendBlockersFrom(&v.Blockers, causes, i)
	return v
}

// AppendBlockers is Decide for hot paths: it appends the blockers of causes to dst and returns
// the extended slice, so a caller can reuse one buffer; no blocker appended means deliverable.
func AppendBlockers(dst []Blocker, causes Causes, received ReceivedSet, settled SettledView) []Blocker {
	if t := sameTable(received, settled); t != nil {
		t.appendBlockersFrom(&dst, causes.pairs, 0)
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

// SettledTable is a ReceivedSet and a SettledView in one value: the received channels, each with
// its settled position once one is known. Decide and AppendBlockers recognise a *SettledTable
// passed as both views and answer each cause with one probe of its hash index instead of two
// interface calls and two searches per cause. Any other views take the general path.
//
// The index is open addressing with linear probing over a power-of-two array of 32-byte slots,
// at most half full, so a received channel costs 64 to 128 bytes. The hash is fixed (no seed):
// the table is as deterministic as the rest of the package, and a key that collides costs
// probes, never a wrong answer.
//
// The zero value receives nothing. Invariants: n slots are used; every used slot is reached from
// its key's home slot (slotHash) by probing forward without crossing an unused slot;
// len(slots) is 0 or a power of two at least 2n; unused slots are all zero.
type SettledTable struct {
	slots []settledEntry
	n     int
}

// settledEntry is one slot: a received channel and its settled position, or unused (all zero).
// Invariant: settled is −1 when known is false, so that the gate's test of a cause (whose
// position is at least 0) against an entry is the one comparison position ≤ settled.
type settledEntry struct {
	ch      Channel
	used    bool
	known   bool
	settled Offset
}

// channelKey is a channel as integers in channel order: the topic ID's big-endian halves, then
// the partition. Comparing two keys is at most three integer compares, inlined, where
// Channel.Compare is a call; the engine's gate and the frontier's search compare keys only.
type channelKey struct {
	hi, lo    uint64
	partition Partition
}

// keyOf takes a pointer so that a hot loop reads the topic ID in place: copying a Channel out of
// a slice and reloading it in halves stalls store-to-load forwarding.
func keyOf(ch *Channel) channelKey {
	return channelKey{binary.BigEndian.Uint64(ch.Topic[:8]), binary.BigEndian.Uint64(ch.Topic[8:]), ch.Partition}
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

// slotHash hashes a channel: masked to a table's size, it is the channel's home slot. It folds
// the topic ID's halves (read little-endian: the same hash on every machine; the second rotated,
// so that swapped halves differ) and the partition into one word, folds that word's top half onto
// its bottom half, multiplies by a 64-bit odd constant (Fibonacci hashing) and rotates the
// product's bits from 40 up down to where the mask keeps them. A product bit depends only on the
// bits at and below it, so the second fold is what lets every key bit reach the kept bits: IDs
// counting up in any of their bytes spread over the table. A table of over 2^24 slots also uses
// the product's low bits, which mix less: it probes more, never wrongly.
func slotHash(ch *Channel) uint64 {
	a, b := binary.LittleEndian.Uint64(ch.Topic[:8]), binary.LittleEndian.Uint64(ch.Topic[8:])
	x := a ^ bits.RotateLeft64(b, 29) ^ uint64(uint32(ch.Partition))
	return bits.RotateLeft64((x^x>>32)*0x9e3779b97f4a7c15, 24)
}

// lookup returns ch's slot, or nil when ch is not received.
func (t *SettledTable) lookup(ch *Channel) *settledEntry {
	if s := t.find(ch); s >= 0 {
		return &t.slots[s]
	}
	return nil
}

// find returns the index of ch's slot, or −1 when ch is not received.
func (t *SettledTable) find(ch *Channel) int {
	if t.n == 0 {
		return -1
	}
	return probe(t.slots, ch)
}

// Receive adds ch to the received set, with nothing settled, unless it is already there.
func (t *SettledTable) Receive(ch Channel) { t.entry(&ch) }

// Settle records ch as received with settled position pos: every position at or below pos has
// been delivered or never will yield a message here. pos may be −1 (the channel is known but
// nothing on it is settled) or MaxOffset (the channel was deleted). Settle sets, it does not
// raise: the settled position falls when a message is held (SPEC §1.4).
func (t *SettledTable) Settle(ch Channel, pos Offset) {
	e := t.entry(&ch)
	e.settled, e.known = pos, true
}

// entry returns ch's slot, adding ch with nothing known when it is not received yet (growing the
// index first when that would fill it past half).
func (t *SettledTable) entry(ch *Channel) *settledEntry {
	if e := t.lookup(ch); e != nil {
		return e
	}
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	e := t.place(ch)
	*e = settledEntry{ch: *ch, used: true, settled: -1}
	t.n++
	return e
}

// place returns the first unused slot from ch's home on, where ch goes.
func (t *SettledTable) place(ch *Channel) *settledEntry {
	mask := uint64(len(t.slots) - 1)
	s := slotHash(ch) & mask
	for t.slots[s].used {
		s = (s + 1) & mask
	}
	return &t.slots[s]
}

// grow doubles the index (8 slots at first) and places every entry again.
func (t *SettledTable) grow() {
	old := t.slots
	size := max(8, 2*len(old))
	t.slots = make([]settledEntry, size)
	for i := range old {
		if e := &old[i]; e.used {
			*t.place(&e.ch) = *e
		}
	}
}

// Drop removes ch from the received set and reports whether it was there. The slot is emptied
// by shifting back the entries of its probe run that could live there (no tombstones), so the
// index never fills with dead slots.
func (t *SettledTable) Drop(ch Channel) bool {
	i := t.find(&ch)
	if i < 0 {
		return false
	}
	mask, hole := uint64(len(t.slots)-1), uint64(i)
	for s := (hole + 1) & mask; t.slots[s].used; s = (s + 1) & mask {
		m := &t.slots[s]
		home := slotHash(&m.ch) & mask
		// m may move back to the hole iff its home is not cyclically within (hole, s].
		if (s-home)&mask >= (s-hole)&mask {
			t.slots[hole] = *m
			hole = s
		}
	}
	t.slots[hole] = settledEntry{}
	t.n--
	return true
}

// Len returns the number of received channels.
func (t *SettledTable) Len() int { return t.n }

// Receives reports whether ch is in the received set.
func (t *SettledTable) Receives(ch Channel) bool { return t.lookup(&ch) != nil }

// Settled returns ch's settled position, known false when ch is not received or nothing is
// settled on it yet.
func (t *SettledTable) Settled(ch Channel) (Offset, bool) {
	if e := t.lookup(&ch); e != nil && e.known {
		return e.settled, true
	}
	return 0, false
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

// appendBlockersFrom appends to *dst the blocker of every blocked cause from causes[i] on.
func (t *SettledTable) appendBlockersFrom(dst *[]Blocker, causes []Cause, i int) {
	*dst = appendSlotBlockers(*dst, t.slots, causes[i:])
}

// appendSlotBlockers appends to out the blocker of every blocked cause, probing slots as
// firstBlocked does, and returns the extended slice. It takes the slots and the buffer as values
// rather than the table and a pointer, so its walk keeps both in registers and stores nothing
// through memory but the blockers.
func appendSlotBlockers(out []Blocker, slots []settledEntry, causes []Cause) []Blocker {
	if len(slots) == 0 {
		return out
	}
	m := uint64(len(slots) - 1)
causes:
	for i := range causes {
		c := &causes[i]
		for s := slotHash(&c.Channel); ; s++ {
			e := &slots[s&m]
			if e.ch == c.Channel {
				if c.Position > e.settled {
					out = appendBlocker(out, c, e.settled, e.known)
				}
				continue causes
			}
			if !e.used {
				continue causes // not received: never blocks
			}
		}
	}
	return out
}

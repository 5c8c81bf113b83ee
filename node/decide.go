package node

import "strconv"

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
	return Verdict{Blockers: AppendBlockers(nil, causes, received, settled)}
}

// AppendBlockers is Decide for hot paths: it appends the blockers of causes to dst and returns
// the extended slice, so a caller can reuse one buffer; no blocker appended means deliverable.
func AppendBlockers(dst []Blocker, causes Causes, received ReceivedSet, settled SettledView) []Blocker {
	for _, c := range causes.pairs {
		if !received.Receives(c.Channel) {
			continue
		}
		pos, known := settled.Settled(c.Channel)
		if known && c.Position <= pos {
			continue
		}
		dst = append(dst, Blocker{Channel: c.Channel, Required: c.Position, Settled: pos, SettledKnown: known})
	}
	return dst
}

// Satisfied reports whether causes are all satisfied, without building blockers. It is the gate's
// fast check; Decide explains a hold.
func Satisfied(causes Causes, received ReceivedSet, settled SettledView) bool {
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

// itoa formats a signed integer.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

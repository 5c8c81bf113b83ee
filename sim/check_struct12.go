package sim

// STRUCT12 (SPEC §3, §6.1): a sent message names no position above the last one assigned on
// that channel at send time — except a position the sender learned from received metadata,
// which it cannot verify (SPEC §3). Judged at send time.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkAssigned stages a STRUCT12 violation for emission uid.
func (w *world) checkAssigned(p *proc, uid uint64) {
	m := w.msgs[uid-1]
	seen, cur := p.o.seen.c.Pairs(), 0
	for _, cause := range m.expressed.Pairs() {
		q := int64(cause.Position)
		if s, ok := lookupFrom(seen, &cur, cause.Channel); ok && q <= int64(s) {
			continue
		}
		c := w.nodeChan(cause.Channel)
		if c >= 0 && (q < int64(len(w.chans[c].slots)) || q < w.assignedEnd(c)) {
			continue
		}
		p.o.stage(p, spec.CritStruct12, fmt.Sprintf("%s names %v@%d, never assigned and never seen", w.msgName(uid), cause.Channel, q))
		return
	}
}

// assignedEnd returns one past the last position assigned on channel c so far.
func (w *world) assignedEnd(c int32) int64 {
	n := int64(len(w.chans[c].slots)) // every produced record has a slot; markers may follow
	if !w.alive(c) {
		return n
	}
	return max(n, int64(w.offsets(c).HighWatermark))
}

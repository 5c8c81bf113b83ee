package sim

// STRUCT14 (SPEC §3, §6.1): a message sent to a channel carries no pair for that channel at or
// above its own position. Judged at send time on the header the engine stamped.

import "fmt"

// checkOwnChannel stages a STRUCT14 violation for emission uid.
func (w *world) checkOwnChannel(p *proc, uid uint64) {
	m := w.msgs[uid-1]
	if q, ok := m.expressed.Lookup(w.chans[m.ch].nc); ok && int64(q) >= m.pos {
		p.o.stage(p, CritStruct14, fmt.Sprintf("%s names its own channel at %d", w.msgName(uid), q))
	}
}

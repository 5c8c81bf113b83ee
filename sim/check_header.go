package sim

// HEADER_MEANING (SPEC §2.1, §3, §4.4): a process acts on what a fed header says, as the
// reference decoder reads it (oracle_wire.go), not on what the node's codec makes of it. The
// causes a node decoded are not visible from outside, so the check watches what the node does
// with them:
//
//   - the gate: a record is delivered only when every cause its header names on a received
//     channel is settled at the process. S1 applies this rule to a record's true causes; this
//     applies it to the causes its header names beyond them, which a forged or corrupted header
//     can (no true past vouches for them, yet a conforming receiver must wait for them);
//   - the stamp: every emission expresses, on every channel not known dead, at least every
//     position its sender learned from a fed header (SPEC §3, the frontier's second source):
//     STRUCT15 asks the same of true causes only.
//
// A node whose decoder reads fewer causes or lower positions than the reference breaks one of
// the two once it delivers the record or stamps after reading it; one that reads more is
// OVEREXPRESSION's once it stamps, and a header it reads that the reference refuses is S7's
// (committed) or OVER_REFUSAL's (refused the other way round). Both judge at the same points as
// the checks they extend, with the same settledness: a received record, a dead channel, a
// position below the first read position or at or below the process's delivered past when the
// execution started (which is why that past takes in the causes delivered records' headers name,
// onDeliver).

import "fmt"

// checkHeaderGate stages a HEADER_MEANING violation when p delivers b while a cause its header
// names on a channel p receives, above b's true causes there, is not settled.
func (w *world) checkHeaderGate(p *proc, b uint64) {
	m := w.msgs[b-1]
	past, cur := m.past.Pairs(), 0
	for _, cause := range m.expressed.Pairs() {
		if q, ok := lookupFrom(past, &cur, cause.Channel); ok && q >= cause.Position {
			continue // a true cause: S1 judges it
		}
		c := w.nodeChan(cause.Channel)
		if c < 0 {
			continue
		}
		pc, ok := p.pcs.get(c)
		if !ok || !pc.received {
			continue
		}
		q := int64(cause.Position)
		if len(pc.pending) > 0 && pc.pending[0].pos <= q && pc.pending[0].uid != b {
			p.o.stage(p, CritHeaderMeaning, fmt.Sprintf("delivered %s, whose header names %s@%d, while still holding %s",
				w.msgName(b), w.chanName(c), q, w.msgName(pc.pending[0].uid)))
			return
		}
		if q <= pc.fedHigh || !w.alive(c) {
			continue
		}
		if a := w.firstRecordIn(c, max(pc.fedHigh+1, pc.firstRead, pc.clampAtStart+1), q); a >= 0 {
			p.o.stage(p, CritHeaderMeaning, fmt.Sprintf("delivered %s, whose header names %s@%d, before %s was even received",
				w.msgName(b), w.chanName(c), q, w.msgName(w.recordAt(c, a))))
			return
		}
	}
}

// checkReexpressed stages a HEADER_MEANING violation when emission uid does not express a
// position its sender learned from a fed header, on a channel not known dead.
func (w *world) checkReexpressed(p *proc, uid uint64) {
	m := w.msgs[uid-1]
	expressed, cur := m.expressed.Pairs(), 0
	for _, learned := range p.o.seen.c.Pairs() {
		if q, ok := lookupFrom(expressed, &cur, learned.Channel); ok && q >= learned.Position {
			continue
		}
		if c := w.nodeChan(learned.Channel); c >= 0 && !w.alive(c) {
			continue
		}
		p.o.stage(p, CritHeaderMeaning, fmt.Sprintf("%s does not re-express %v@%d, which a header fed to %s named",
			w.msgName(uid), learned.Channel, learned.Position, p.spec.Name))
		return
	}
}

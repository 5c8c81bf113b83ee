package sim

// HOST (SPEC §6.1 H1–H6): the host obligations, verified from outside the host. H1: within an
// execution each channel is fed in strictly increasing position order. H2: a start position
// never covers a committed record the process was not fed (below it everything was fed and
// committed, lies below the first read, or is within the true delivered past). H6: a step begun
// by a superseded execution never commits (the zombie's commit must be fenced). H3–H5 hold by
// construction of the step (one commit applies the substrate transaction and the ordering delta
// together; every start is node.Start from committed state; a crash discards the working
// positions) and show up through the other checkers when broken.

import "fmt"

// checkFeed checks H1 for feeding pos on pc, then the S8 reader-jump rule.
func (w *world) checkFeed(p *proc, pc *pcState, pos int64, uid uint64) {
	if pos <= pc.lastFed {
		w.violate(CritHost, p.idx, fmt.Sprintf("H1: fed %s after position %d in the same execution", w.msgName(uid), pc.lastFed))
	}
	w.checkSkippedRecords(p, pc, pos)
}

// checkStartPositions checks H2 for every received channel of a new execution.
func (w *world) checkStartPositions(p *proc) {
	for _, pc := range p.recv {
		if !pc.firstFixed || !w.alive(pc.ch) {
			continue
		}
		from := max(pc.fedHigh+1, pc.firstRead)
		if q, ok := p.o.tdp.c.Lookup(w.chans[pc.ch].nc); ok {
			from = max(from, int64(q)+1)
		}
		if a := w.firstRecordIn(pc.ch, from, pc.startPos-1); a >= 0 {
			w.violate(CritHost, p.idx, fmt.Sprintf("H2: start position %d on %s covers %s, which was never fed",
				pc.startPos, w.chanName(pc.ch), w.msgName(w.recordAt(pc.ch, a))))
		}
	}
}

// checkZombieFenced reports H6 when a superseded execution's commit went through.
func (w *world) checkZombieFenced(p *proc, err error) {
	if err == nil {
		w.violate(CritHost, p.idx, "H6: a superseded execution committed its step")
	}
}

package sim

// S1 causal order (SPEC §6.1): for every process p and messages A, B delivered by p with A a
// true cause of B, A is delivered first — judged over p's whole lifetime across restarts.
//
// At delivery time: when p delivers B, every true cause A of B on a channel p receives must
// already be delivered at p or settled by world truth (the channel is dead, A lies below p's
// first read position there, or A is within p's true delivered past at this execution's start,
// D41) — and never excused while p itself still holds A. Over the lifetime, at the end of the
// run: for every delivered B and every channel of its true past, the last first-delivery on that
// channel at or below B's cause has a smaller delivery index than B.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkCausalOrderAtDelivery is the delivery-time half of S1 (staged with the step).
func (w *world) checkCausalOrderAtDelivery(p *proc, b uint64) {
	m := w.or.Msg(b)
	for _, cause := range m.Past.Pairs() {
		c := w.or.NodeChan(cause.Channel)
		if c < 0 {
			continue
		}
		pc := p.o.chans.At(c)
		if pc == nil || !pc.received {
			continue
		}
		q := int64(cause.Position)
		if len(pc.pending) > 0 && pc.pending[0].pos <= q && pc.pending[0].uid != b {
			p.o.stage(p, spec.CritS1, fmt.Sprintf("delivered %s while still holding its true cause %s",
				w.or.MsgName(b), w.or.MsgName(pc.pending[0].uid)))
			return
		}
		if q <= pc.fedHigh || !w.or.Alive(c) {
			continue
		}
		from := max(pc.fedHigh+1, pc.firstRead, pc.clampAtStart+1)
		if a := w.or.FirstRecordIn(c, from, q); a >= 0 {
			p.o.stage(p, spec.CritS1, fmt.Sprintf("delivered %s before its true cause %s was even received",
				w.or.MsgName(b), w.or.MsgName(w.or.RecordAt(c, a))))
			return
		}
	}
}

// checkCausalOrderLifetime is the lifetime half of S1, run at the end of the run over committed
// history.
func (w *world) checkCausalOrderLifetime() {
	for _, p := range w.procs {
		for _, oc := range p.o.list {
			for _, d := range oc.delivered {
				if v, ok := w.inversionBefore(p, d); ok {
					w.report(spec.Violation{Criterion: spec.CritS1, Step: w.step, Process: p.idx, Detail: v})
				}
			}
		}
	}
}

// inversionBefore looks for a true cause of delivery d that p delivered after d.
func (w *world) inversionBefore(p *proc, d deliveredPos) (string, bool) {
	m := w.or.Msg(d.uid)
	for _, cause := range m.Past.Pairs() {
		c := w.or.NodeChan(cause.Channel)
		pc := p.o.chans.At(c)
		if c < 0 || pc == nil {
			continue
		}
		// Under FIFO the last first-delivery at or below the cause is the latest of them.
		i, found := slices.BinarySearchFunc(pc.delivered, int64(cause.Position), func(e deliveredPos, pos int64) int { return cmp.Compare(e.pos, pos) })
		if found {
			i++
		}
		if i == 0 {
			continue
		}
		if a := pc.delivered[i-1]; a.index > d.index {
			return fmt.Sprintf("delivered %s (delivery %d) after its effect %s (delivery %d)",
				w.or.MsgName(a.uid), a.index, w.or.MsgName(d.uid), d.index), true
		}
	}
	return "", false
}

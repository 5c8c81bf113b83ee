package oracle

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
func (o *Oracle) checkCausalOrderAtDelivery(at At, p *Proc, b uint64) {
	m := o.Msg(b)
	for _, cause := range m.Past.Pairs() {
		c := o.NodeChan(cause.Channel)
		if c < 0 {
			continue
		}
		pc := p.chans.At(c)
		if pc == nil || !pc.received {
			continue
		}
		q := int64(cause.Position)
		if len(pc.pending) > 0 && pc.pending[0].Pos <= q && pc.pending[0].UID != b {
			o.stage(at, p, spec.CritS1, fmt.Sprintf("delivered %s while still holding its true cause %s",
				o.MsgName(b), o.MsgName(pc.pending[0].UID)))
			return
		}
		if q <= pc.fedHigh || !o.Alive(c) {
			continue
		}
		from := max(pc.fedHigh+1, pc.firstRead, pc.clampAtStart+1)
		if a := o.FirstRecordIn(c, from, q); a >= 0 {
			o.stage(at, p, spec.CritS1, fmt.Sprintf("delivered %s before its true cause %s was even received",
				o.MsgName(b), o.MsgName(o.RecordAt(c, a))))
			return
		}
	}
}

// checkCausalOrderLifetime is the lifetime half of S1, run at the end of the run over committed
// history.
func (o *Oracle) checkCausalOrderLifetime(at At) {
	for _, p := range o.procs {
		for _, oc := range p.list {
			for _, d := range oc.delivered {
				if v, ok := o.inversionBefore(p, d); ok {
					o.report(spec.Violation{Criterion: spec.CritS1, Step: at.Step, Process: p.idx, Detail: v})
				}
			}
		}
	}
}

// HasInversion reports whether p delivered a true cause of one of its deliveries after it (the
// lifetime half of S1 would report it).
func (o *Oracle) HasInversion(p *Proc) bool {
	for _, oc := range p.list {
		for _, d := range oc.delivered {
			if _, bad := o.inversionBefore(p, d); bad {
				return true
			}
		}
	}
	return false
}

// inversionBefore looks for a true cause of delivery d that p delivered after d.
func (o *Oracle) inversionBefore(p *Proc, d deliveredPos) (string, bool) {
	m := o.Msg(d.uid)
	for _, cause := range m.Past.Pairs() {
		c := o.NodeChan(cause.Channel)
		pc := p.chans.At(c)
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
				o.MsgName(a.uid), a.index, o.MsgName(d.uid), d.index), true
		}
	}
	return "", false
}

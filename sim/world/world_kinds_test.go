package world

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The reference the action choice's list (shape.Kinds, filled from worldKinds and the memo's
// masks) is held to: each kind's enabledness asked one kind at a time, and the list written out.

// KindsChecked runs scn under seed's settings and before every action choice compares the kinds
// the choice draws from with the kinds the settings weigh that kindEnabledScan enables, and the
// list's Count, Total and Find with the list written out (Find at both ends of every kind's
// share of the total). It returns how many kinds it compared and how many were enabled, or the
// first disagreement.
func KindsChecked(scn *spec.Scenario, seed uint64) (checks, enabled int, err error) {
	err = beforeEachAction(scn, seed, nil, func(w *World) error {
		l := &w.kinds
		var any explore.Mask
		for _, p := range w.procs {
			any |= w.maskOf(p)
		}
		count, total := 0, uint64(0)
		for k := range l.Len() {
			wk := l.Weight(k)
			if want := w.set.Weights[k] > 0 && w.kindEnabledScan(spec.ActionKind(k), any); (wk > 0) != want {
				return fmt.Errorf("seed %d step %d: %v: weighs %d, enabled %v", seed, w.step, spec.ActionKind(k), wk, want)
			}
			if wk > 0 && wk < w.set.Weights[k] {
				return fmt.Errorf("seed %d step %d: %v weighs %d, below the settings' %d", seed, w.step, spec.ActionKind(k), wk, w.set.Weights[k])
			}
			checks++
			if wk > 0 {
				enabled++
				count++
				for _, r := range []uint64{total, total + uint64(wk) - 1} {
					if got := l.Find(r); got != k {
						return fmt.Errorf("seed %d step %d: Find(%d) is %v, the list's %v", seed, w.step, r, spec.ActionKind(got), spec.ActionKind(k))
					}
				}
				total += uint64(wk)
			}
		}
		if l.Count() != count || l.Total() != total {
			return fmt.Errorf("seed %d step %d: the list counts %d kinds weighing %d, written out %d weighing %d", seed, w.step, l.Count(), l.Total(), count, total)
		}
		return nil
	})
	return checks, enabled, err
}

// kindEnabledScan reports whether kind k has an eligible target, asked of k alone: a kind acting
// on a process where any, the union of the process masks, has it; another from the world's
// counts and topics.
func (w *World) kindEnabledScan(k spec.ActionKind, any explore.Mask) bool {
	if k.OnProcess() {
		return any&(1<<k) != 0
	}
	switch k {
	case spec.ActProducePlain, spec.ActTxnAbort, spec.ActDeleteTopic:
		return w.liveExternals > 0
	case spec.ActProduceCorrupt:
		return w.liveExternals > 0 && w.anyFaultable(k, true)
	case spec.ActProduceStamped:
		return w.recentN > 0 && w.liveExternals > 0
	case spec.ActTxnOpen:
		return !w.ext.open && w.liveExternals > 0
	case spec.ActTxnClose:
		return w.ext.open
	case spec.ActDeleteRecords:
		return true
	case spec.ActRetention:
		return w.set.RetentionMicros > 0 || w.set.RetentionRecords > 0
	case spec.ActRecreateTopic:
		return w.externals > 0 && w.anyFaultable(k, false)
	}
	return w.sessionEnabled(k)
}

package world

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The reference the memo's facts (factsOf) are held to: the same facts computed by a scan of
// every process.

// DueFactsChecked runs scn under seed's settings and before every action choice compares the
// facts the due fail-closed rule reads from the memo (shapeView's AimableReceivers and
// DeletionOnlyHeld, and AgedDeletionTarget, which asks the memo first) with their scans. It
// returns how many answers it compared and how many were not false or zero, or the first
// disagreement.
func DueFactsChecked(scn *spec.Scenario, seed uint64) (checks, yes int, err error) {
	err = beforeEachAction(scn, seed, nil, func(w *World) error {
		v := (*shapeView)(w)
		var err error
		compare := func(fact string, memo, scan any) {
			if err == nil && memo != scan {
				err = fmt.Errorf("seed %d step %d: %s: the memo says %v, the scan %v", seed, w.step, fact, memo, scan)
			}
			checks++
			if scan != false && scan != 0 {
				yes++
			}
		}
		compare("aimable receivers", v.AimableReceivers(), w.aimableScan())
		compare("deletion-only held", v.DeletionOnlyHeld(), w.deletionOnlyScan())
		for _, age := range []int{0, 30} {
			if w.set.FaultAtStep[spec.ActDeleteTopic] != 0 {
				compare(fmt.Sprintf("deletion target held %d steps", age), v.AgedDeletionTarget(w.step-age), w.agedDeletionScan(w.step-age))
			}
		}
		return err
	})
	return checks, yes, err
}

// aimableScan is aimableReceivers's scan of every process.
func (w *World) aimableScan() int {
	n := 0
	for _, p := range w.procs {
		if p.status == procFailed || p.readsDeletionOnly() {
			continue
		}
		live := slices.ContainsFunc(p.recv, func(pc *pcState) bool {
			return w.alive(pc.ch) && w.topics[w.chans[pc.ch].topic].spec.External
		})
		if live && !p.doomed() {
			n++
		}
	}
	return n
}

// deletionOnlyScan is deletionOnlyHeld's scan of every live deletion-only topic (topicBlocked).
func (w *World) deletionOnlyScan() bool {
	for t := range w.topics {
		if w.topics[t].spec.DeletionOnly && w.topics[t].inc >= 0 && w.topicBlocked(t) {
			return true
		}
	}
	return false
}

// agedDeletionScan is agedDeletionTarget without asking the memo first.
func (w *World) agedDeletionScan(since int) bool {
	return w.anyFaultTarget(spec.ActDeleteTopic, func(p *proc, t int) bool {
		return p.anyOnTopic(t, func(pc *pcState) bool {
			return p.committedBlockedHead(pc) && p.o.PendingHead(pc.ch).FedStep <= since
		})
	})
}

package node

import (
	"testing"

	"pgregory.net/rapid"
)

// TestCoveredPositionFedIsUnreachable is the evidence for exempting TREAT_COVERED_FEED_AS_REPLAY
// from the catch-rate goals: no sequence of host actions reaches the COVERED_POSITION_FED guard
// (SPEC §2.2 step 5), so no sweep or exploration can catch a mode that disarms it.
//
// The argument: at the end of initialisation the session floor equals fedUpTo on every received
// channel. Within the execution fedUpTo rises only by receipt, to the received position, which
// also becomes the last position fed; the identity report can only set the deleted marker, which
// step 5 refuses first as OUT_OF_ORDER_FEED. So whenever fedUpTo is above the floor it equals the
// last position fed, and any position in (floor, fedUpTo] is at or below the last position fed:
// the in-execution order check (step 3) refuses it before step 5 is reached.
//
// The property drives the engine with the reference model's host (modelWorld in model_test.go):
// receipts in order, gapped, regressed and undecodable; drains, stamps, commits; restarts from
// committed state with arbitrary received sets and start positions, directly or through the
// codecs; identity reports. That host is looser than any real one (it may regress a feed), and
// still the guard never fires. TestSabotageModesChangeTheirRule stages the honest and sabotaged
// engines side by side on a hand-built state, the only way to reach the guard.
func TestCoveredPositionFedIsUnreachable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newModelWorld(t, Options{})
		actions := w.actions()
		actions[""] = func(t *rapid.T) {
			if w.e != nil {
				if r := w.e.Refusal(); r != nil && r.Reason == ReasonCoveredPositionFed {
					t.Fatalf("COVERED_POSITION_FED reached: %v", r)
				}
			}
		}
		t.Repeat(actions)
	})
}

package sim

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestPersistentMemoMatchesPlain walks states of the reference topology with every fault the
// persistent sets handle and checks that each state's persistent-set filter is the same with the
// dependency memo (persistentSets.memo) as without it. It fails if the memo leaked from one state
// to the next or answered for the wrong actor.
func TestPersistentMemoMatchesPlain(t *testing.T) {
	for _, budget := range []string{"msgs=2,crash=1,delete=1,truncate=1", "msgs=3,crash=1"} {
		x := newExplorer(referenceScope(), ExploreOptions{Budget: mustBudget(t, budget), Reduce: true})
		ps := x.pers
		checked, reduced := 0, 0
		walkStates(x, 2000, func(s *exState) (bool, bool) {
			acts := new(stateActions).of(s.w)
			if !acts.enabled {
				return false, false
			}
			ps.noMemo = false
			memo := filterValue(x.persistentFilter(s, acts))
			ps.noMemo = true
			plain := filterValue(x.persistentFilter(s, acts))
			if memo != plain {
				t.Fatalf("%s: state %d: filter with the memo %+v, without %+v", budget, checked, memo, plain)
			}
			checked++
			if memo.set {
				reduced++
			}
			return true, true
		})
		if checked < 500 || reduced < 50 {
			t.Fatalf("%s: %d states checked, %d with a persistent set", budget, checked, reduced)
		}
	}
}

// filterResult is a filter's content, comparable (set is false for no filter).
type filterResult struct {
	set                                 bool
	kinds                               [spec.NumActionKinds]bool
	procs, produce, truncate, delTopics uint64
}

func filterValue(f *porFilter) filterResult {
	if f == nil {
		return filterResult{}
	}
	return filterResult{set: true, kinds: f.kinds, procs: f.procs, produce: f.produce, truncate: f.truncate, delTopics: f.delTopics}
}

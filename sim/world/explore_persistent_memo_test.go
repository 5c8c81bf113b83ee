package world

import (
	"testing"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestPersistentMemoMatchesPlain explores states of the reference topology with every fault the
// persistent sets handle and checks that each state's persistent-set filter is the same with the
// dependency memo (package persistent's) as without it. It fails if the memo leaked from one state
// to the next or answered for the wrong actor.
func TestPersistentMemoMatchesPlain(t *testing.T) {
	for _, budget := range []string{"msgs=2,crash=1,delete=1,truncate=1", "msgs=3,crash=1"} {
		opts := exploreOptions{Budget: mustBudget(t, budget), Reduce: true}
		ps := exploreConfig(referenceScope(), opts).Persistent()
		plainOpts := opts
		plainOpts.persistentTweaks.NoMemo = true
		noMemo := exploreConfig(referenceScope(), plainOpts).Persistent()
		checked, reduced := 0, 0
		visitStates(referenceScope(), opts, 2000, func(w *World, _ explore.HashKey, _ []byte, _ explore.Hasher) {
			acts := new(explore.Actions)
			w.Actions(acts)
			if !acts.Enabled {
				return
			}
			memo := filterValue(ps.Filter(w, acts, new(explore.Filter)))
			plain := filterValue(noMemo.Filter(w, acts, new(explore.Filter)))
			if memo != plain {
				t.Fatalf("%s: state %d: filter with the memo %+v, without %+v", budget, checked, memo, plain)
			}
			checked++
			if memo.set {
				reduced++
			}
		})
		if checked < 500 || reduced < 50 {
			t.Fatalf("%s: %d states checked, %d with a persistent set", budget, checked, reduced)
		}
	}
}

// filterResult is a filter's content, comparable (set is false for no filter): the options it
// allows of each decision it restricts, in filterLabels' order.
type filterResult struct {
	set     bool
	allowed [spec.NumActionKinds + 4]uint64
}

// filterLabels are the labels of the decisions a persistent-set filter restricts.
func filterLabels() []string {
	labels := []string{"action", "produce.topic", "truncate.channel", topicLabels[spec.ActDeleteTopic]}
	for k := range spec.NumActionKinds {
		if spec.ActionKind(k).OnProcess() {
			labels = append(labels, processLabels[k])
		}
	}
	return labels
}

func filterValue(f *explore.Filter) filterResult {
	if f == nil {
		return filterResult{}
	}
	r := filterResult{set: true}
	all := make([]uint32, 64)
	for i := range all {
		all[i] = 1
	}
	for i, label := range filterLabels() {
		for o, wt := range f.Apply(label, all) {
			if wt != 0 {
				r.allowed[i] |= 1 << o
			}
		}
	}
	return r
}

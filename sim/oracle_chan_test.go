package sim

import (
	"bytes"
	"slices"
	"testing"
)

// oracleWithChans returns an oracle that knows channels 1 and 4: a delivery and a pending
// message on 1, a pending message on 4.
func oracleWithChans() *procOracle {
	o := new(procOracle)
	a := o.chanState(4)
	a.pending = []pendingMsg{{uid: 9, pos: 3}}
	b := o.chanState(1)
	b.firstRead, b.firstFixed, b.clampAtStart, b.fedHigh = 0, true, -1, 2
	b.delivered = []deliveredPos{{pos: 0, index: 0, uid: 5}}
	b.pending = []pendingMsg{{uid: 7, pos: 2}}
	return o
}

// TestOracleOwnChansIsACopy gives a copy of an oracle (what a cloned process holds) its own
// channel states in a store whose index holds an earlier life's channels, changes the copy, and
// checks the original saw none of it and the copy's index and list name exactly its own states.
// It fails if ownChans shares a state, a delivered or pending slice, or keeps a stale channel.
func TestOracleOwnChansIsACopy(t *testing.T) {
	for _, stale := range [][]int32{{}, {0}, {1, 2}, {0, 1, 2, 3, 7, 9}} {
		orig := oracleWithChans()
		before := orig.appendChans(nil, false)
		cp := *orig
		var st chanStore
		for _, c := range stale {
			for int(c) >= len(st.index) {
				st.index = append(st.index, nil)
			}
			st.index[c] = &chanOracle{ch: c}
		}
		cp.ownChans(&st)
		if got := cp.appendChans(nil, false); !bytes.Equal(got, before) {
			t.Fatalf("stale %v: the copy encodes %x, the original %x", stale, got, before)
		}
		n := 0
		for c, oc := range cp.chans {
			if oc != nil {
				n++
				if oc.ch != int32(c) || orig.chans.at(int32(c)) == oc || !slices.Contains(cp.list, oc) {
					t.Fatalf("stale %v: channel %d maps to %+v", stale, c, oc)
				}
			}
		}
		if n != 2 || len(cp.list) != 2 || cp.list[0].ch != 1 || cp.list[1].ch != 4 {
			t.Fatalf("stale %v: index %v, list %v", stale, cp.chans, cp.list)
		}
		oc := cp.chanState(1)
		oc.pending = slices.Insert(oc.pending, 0, pendingMsg{uid: 6, pos: 1})
		oc.delivered = append(oc.delivered, deliveredPos{pos: 1, index: 1, uid: 6})
		oc.fedHigh = 5
		cp.chanState(4).pending[0].pos = 8
		cp.chanState(2)
		if got := orig.appendChans(nil, false); !bytes.Equal(got, before) {
			t.Fatalf("stale %v: changing the copy changed the original", stale)
		}
	}
}

// TestOracleChansHashSeesEveryField changes one field of the oracle's channel states at a time
// and checks the canonical encoding changes with it (firstFixed only when the process is not
// rollback-free): it fails if appendChans leaves out a field the checks read.
func TestOracleChansHashSeesEveryField(t *testing.T) {
	changes := map[string]func(o *procOracle){
		"received":        func(o *procOracle) { o.chanState(1).received = true },
		"startPos":        func(o *procOracle) { o.chanState(1).startPos = 1 },
		"lastFed":         func(o *procOracle) { o.chanState(1).lastFed = 1 },
		"firstRead":       func(o *procOracle) { o.chanState(1).firstRead = 1 },
		"clampAtStart":    func(o *procOracle) { o.chanState(1).clampAtStart = 0 },
		"fedHigh":         func(o *procOracle) { o.chanState(1).fedHigh = 3 },
		"firstFixed":      func(o *procOracle) { o.chanState(1).firstFixed = false },
		"delivered pos":   func(o *procOracle) { o.chanState(1).delivered[0].pos = 1 },
		"delivered index": func(o *procOracle) { o.chanState(1).delivered[0].index = 1 },
		"delivered":       func(o *procOracle) { o.chanState(4).delivered = []deliveredPos{{pos: 0}} },
		"pending pos":     func(o *procOracle) { o.chanState(4).pending[0].pos = 4 },
		"pending":         func(o *procOracle) { o.chanState(4).pending = nil },
		"channel":         func(o *procOracle) { o.chanState(2) },
	}
	for _, free := range []bool{false, true} {
		base := oracleWithChans().appendChans(nil, free)
		for name, change := range changes {
			o := oracleWithChans()
			change(o)
			same := bytes.Equal(o.appendChans(nil, free), base)
			if want := free && name == "firstFixed"; same != want {
				t.Errorf("free %v: changing %s leaves the encoding the same: %v (want %v)", free, name, same, want)
			}
		}
	}
}

package oracle

import (
	"bytes"
	"slices"
	"testing"
)

// oracleWithChans returns a process view that knows channels 1 and 4: a delivery and a pending
// message on 1, a pending message on 4.
func oracleWithChans() *Proc {
	o := new(Proc)
	a := o.chanState(4)
	a.pending = []Pending{{UID: 9, Pos: 3}}
	b := o.chanState(1)
	b.firstRead, b.firstFixed, b.clampAtStart, b.fedHigh = 0, true, -1, 2
	b.delivered = []deliveredPos{{pos: 0, index: 0, uid: 5}}
	b.pending = []Pending{{UID: 7, Pos: 2}}
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
		var st ProcStore
		for _, c := range stale {
			st.index.Insert(c, &chanState{ch: c})
		}
		cp.ownChans(&st)
		if got := cp.appendChans(nil, false); !bytes.Equal(got, before) {
			t.Fatalf("stale %v: the copy encodes %x, the original %x", stale, got, before)
		}
		n := cp.chans.Len()
		for _, oc := range cp.chans.Values() {
			if c := oc.ch; cp.chans.At(c) != oc || orig.chans.At(c) == oc || !slices.Contains(cp.list, oc) {
				t.Fatalf("stale %v: channel %d maps to %+v", stale, c, oc)
			}
		}
		if n != 2 || len(cp.list) != 2 || cp.list[0].ch != 1 || cp.list[1].ch != 4 {
			t.Fatalf("stale %v: index %v, list %v", stale, cp.chans, cp.list)
		}
		oc := cp.chanState(1)
		oc.pending = slices.Insert(oc.pending, 0, Pending{UID: 6, Pos: 1})
		oc.delivered = append(oc.delivered, deliveredPos{pos: 1, index: 1, uid: 6})
		oc.fedHigh = 5
		cp.chanState(4).pending[0].Pos = 8
		cp.chanState(2)
		if got := orig.appendChans(nil, false); !bytes.Equal(got, before) {
			t.Fatalf("stale %v: changing the copy changed the original", stale)
		}
	}
}

// TestOracleChansHashSeesEveryField changes one field of the oracle's channel states at a time
// and checks the canonical encoding changes with it (firstFixed only when the process is not
// rollback-free; never the per-execution facts, which repeat the host's): it fails if
// appendChans leaves out a field the checks read.
func TestOracleChansHashSeesEveryField(t *testing.T) {
	changes := map[string]func(o *Proc){
		"received":        func(o *Proc) { o.chanState(1).received = true },
		"startPos":        func(o *Proc) { o.chanState(1).startPos = 1 },
		"lastFed":         func(o *Proc) { o.chanState(1).lastFed = 1 },
		"firstRead":       func(o *Proc) { o.chanState(1).firstRead = 1 },
		"clampAtStart":    func(o *Proc) { o.chanState(1).clampAtStart = 0 },
		"fedHigh":         func(o *Proc) { o.chanState(1).fedHigh = 3 },
		"firstFixed":      func(o *Proc) { o.chanState(1).firstFixed = false },
		"delivered pos":   func(o *Proc) { o.chanState(1).delivered[0].pos = 1 },
		"delivered index": func(o *Proc) { o.chanState(1).delivered[0].index = 1 },
		"delivered":       func(o *Proc) { o.chanState(4).delivered = []deliveredPos{{pos: 0}} },
		"pending pos":     func(o *Proc) { o.chanState(4).pending[0].Pos = 4 },
		"pending":         func(o *Proc) { o.chanState(4).pending = nil },
		"channel":         func(o *Proc) { o.chanState(2) },
	}
	for _, free := range []bool{false, true} {
		base := oracleWithChans().appendChans(nil, free)
		for name, change := range changes {
			o := oracleWithChans()
			change(o)
			same := bytes.Equal(o.appendChans(nil, free), base)
			want := (free && name == "firstFixed") || name == "received" || name == "startPos" || name == "lastFed"
			if same != want {
				t.Errorf("free %v: changing %s leaves the encoding the same: %v (want %v)", free, name, same, want)
			}
		}
	}
}

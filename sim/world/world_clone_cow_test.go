package world

import (
	"maps"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestClonesLeaveTheirOriginalAlone explores scopes, no world reusing another's storage, and
// checks the copy-on-write clone and the cached hashes: every state's cached hash (the search's
// hasher) equals the hash a fresh hasher (no cached process, engine or committed-state hash)
// computes, and once the exploration is over every state the search entered and did not end
// still encodes as it did when entered (no later transition wrote into a part it shares with a
// world it was cloned from, or that was cloned from it).
func TestClonesLeaveTheirOriginalAlone(t *testing.T) {
	cases := []struct {
		name   string
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
	}{
		{"chain faults", chainScope(), "msgs=2,crash=1,truncate=1,delete=1,stop=1", node.SabotageNone},
		{"chain recreate", chainScope(), "msgs=2,recreate=1,rewind=1,stop=1", node.SabotageNone},
		{"pair DROP_HELD", pairScope(), "msgs=2,crash=1,zombie=1,migrate=1", node.SabotageDropHeld},
		{"pair txns", pairScope(), "msgs=1,open=1,redeclare=1,stop=1", node.SabotageNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab, MaxStates: 600}
			set := exploreSettings(opts)
			type entered struct {
				w     *World
				key   explore.HashKey
				extra []byte
			}
			var states []entered
			_, r := exploreRecorded(c.scn, opts, func(_ *explore.Config, r *stateRecorder) {
				r.noRecycle = true
				r.visit = func(w *World, k explore.HashKey, extra []byte, _ explore.Hasher) {
					if fresh := newStateHasher(&set).Hash(w, extra); fresh != k {
						t.Fatalf("state %d: its cached hash differs from a fresh one", len(states))
					}
					states = append(states, entered{w, k, slices.Clone(extra)})
				}
			})
			later := 0
			for i, s := range states {
				if r.terminals[s.key] {
					continue // the search ran it to its end
				}
				if newStateHasher(&set).Hash(s.w, s.extra) != s.key {
					t.Fatalf("state %d of %d changed after the search entered it", i, len(states))
				}
				later++
			}
			if later < 100 {
				t.Fatalf("checked only %d states", later)
			}
			t.Logf("%d states, %d checked after the exploration", len(states), later)
		})
	}
}

// TestRecycledWorldsExploreAlike explores scopes, the explorer recycling the worlds it is done
// with (World.cloneInto into a released world), and checks that it reaches exactly the states
// the exploration of the same scopes reaches when no world reuses a released one (unreduced,
// both), and reduced only states that one reaches: a world recycled while something still read
// it would change a state's hash.
func TestRecycledWorldsExploreAlike(t *testing.T) {
	for _, c := range []struct {
		scn    *spec.Scenario
		budget string
		sab    node.Sabotage
	}{
		{chainScope(), "msgs=1,crash=1,delete=1", node.SabotageNone},
		{chainScope(), "msgs=1,stop=1,redeclare=1,recreate=1", node.SabotageNone},
		{pairScope(), "msgs=1,crash=1,zombie=1", node.SabotageDropHeld},
	} {
		opts := exploreOptions{Budget: mustBudget(t, c.budget), Sabotage: c.sab}
		res, recycled := exploreRecorded(c.scn, opts, nil)
		_, fresh := exploreRecorded(c.scn, opts, func(_ *explore.Config, r *stateRecorder) { r.noRecycle = true })
		if res.States < 1000 || len(recycled.states) != res.States || !maps.Equal(recycled.states, fresh.states) {
			t.Fatalf("%s %s: %v; %d states hashed recycling, %d reached without", c.scn.Name, c.budget, res, len(recycled.states), len(fresh.states))
		}
		opts.Reduce = true
		reduced, rs := exploreRecorded(c.scn, opts, nil)
		if reduced.States == 0 || len(rs.states) != reduced.States {
			t.Fatalf("%s %s reduced: %v; %d states hashed", c.scn.Name, c.budget, reduced, len(rs.states))
		}
		for k := range rs.states {
			if !fresh.states[k] {
				t.Fatalf("%s %s reduced: %v reaches a state the exploration without recycling does not", c.scn.Name, c.budget, reduced)
			}
		}
		t.Logf("%s %s: %v; reduced %v", c.scn.Name, c.budget, res, reduced)
	}
}

// TestOwnChannelStatesDropsStaleChannels gives a process shell storage whose channel index holds
// the channels of an earlier life — more of them, other ones, the same ones — and checks that
// after ownChannelStates the process's index holds exactly its own channel states, each its own
// copy. It fails if a channel of the earlier life survives the reuse of the index.
func TestOwnChannelStatesDropsStaleChannels(t *testing.T) {
	for _, stale := range [][]int32{{}, {0}, {1, 2}, {0, 1, 2, 3, 7}, {5}, {1, 9}} {
		src := []*pcState{{ch: 1, received: true}, {ch: 2}}
		p := &proc{recv: src[:1]}
		p.pcs.Insert(1, src[0])
		p.pcs.Insert(2, src[1])
		p.store = &procStore{}
		for _, c := range stale {
			p.store.pcs.Insert(c, &pcState{ch: c})
		}
		p.ownChannelStates()
		n := p.pcs.Len()
		if n != len(src) || len(p.recv) != 1 || p.recv[0] != p.pcs.At(1) {
			t.Fatalf("stale %v: index %v, recv %v", stale, p.pcs, p.recv)
		}
		for _, pc := range src {
			if cp := p.pcs.At(pc.ch); cp == nil || cp == pc || cp.ch != pc.ch || cp.received != pc.received {
				t.Fatalf("stale %v: channel %d maps to %+v", stale, pc.ch, cp)
			}
		}
	}
}

// TestRefusalCountsAreCopyOnWrite shares one world's refusal counts with two clones, counts a
// refusal in each clone and in the original, and checks each sees only its own: it fails if a
// clone's count reaches the map another world reads.
func TestRefusalCountsAreCopyOnWrite(t *testing.T) {
	var orig World
	orig.countRefusal("R1")
	var a, b World
	orig.shareRefusals(&a)
	orig.shareRefusals(&b)
	a.countRefusal("R1")
	b.countRefusal("R2")
	b.countRefusal("R2")
	orig.countRefusal("R3")
	for _, c := range []struct {
		w    *World
		want map[string]int
	}{
		{&orig, map[string]int{"R1": 1, "R3": 1}},
		{&a, map[string]int{"R1": 2}},
		{&b, map[string]int{"R1": 1, "R2": 2}},
	} {
		if !maps.Equal(c.w.stats.Refusals, c.want) {
			t.Fatalf("refusals %v, want %v", c.w.stats.Refusals, c.want)
		}
	}
}

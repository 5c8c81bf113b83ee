package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestReferenceFiresAndCanBeSwitchedOff: an engine that stamps coverage (OVEREXPRESS) disagrees
// with the reference node on its first stamp that differs, named with both answers; the test
// switch leaves the other criteria to find what they find; honest runs never disagree.
func TestReferenceFiresAndCanBeSwitchedOff(t *testing.T) {
	scn := chainScope()
	found := false
	for seed := uint64(1); seed <= 30 && !found; seed++ {
		res := runWhole(scn, swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sabotage: node.SabotageOverexpress})
		for _, v := range res.Violations {
			if v.Criterion == spec.CritReference {
				if !strings.Contains(v.Detail, "stamp") || !strings.Contains(v.Detail, "engine") || !strings.Contains(v.Detail, "reference") {
					t.Fatalf("seed %d: the violation does not name the call and both answers: %v", seed, v)
				}
				found = true
			}
		}
		off := runWhole(scn, swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{Sabotage: node.SabotageOverexpress,
			Disabled: []spec.Criterion{spec.CritReference}})
		for _, v := range off.Violations {
			if v.Criterion == spec.CritReference {
				t.Fatalf("seed %d: REFERENCE fired while switched off: %v", seed, v)
			}
		}
	}
	if !found {
		t.Fatal("no seed in 1-30 of the chain scope made the reference node object to OVEREXPRESS")
	}
	for seed := uint64(1); seed <= 30; seed++ {
		if res := runWhole(scn, swarm.ExpandSettings(seed), choose.NewRandom(seed), RunOptions{}); res.Verdict != "pass" {
			t.Fatalf("seed %d, honest: %v", seed, res.Violations)
		}
	}
}

// TestReferenceNodeIsHashed walks explored states and checks, at every process with a live
// reference node, that the state hash tells the model apart: a refusal forced on the model alone
// changes the hash. And, for the honest engine, that the live model means what the engine means
// (the state it would commit against the engine's snapshot): the model is never ahead of or
// behind what the hash already holds on an honest path.
func TestReferenceNodeIsHashed(t *testing.T) {
	checked := 0
	for _, c := range []struct {
		scn    *spec.Scenario
		budget string
	}{
		{chainScope(), "msgs=2,crash=1"},
		{pairScope(), "msgs=2,crash=1,recreate=1"},
		{chainScope(), "msgs=1,stop=1,redeclare=1,delete=1"},
	} {
		opts := exploreOptions{Budget: mustBudget(t, c.budget)}
		visitStates(c.scn, opts, 600, func(w *World, k explore.HashKey, extra []byte, h explore.Hasher) {
			for _, p := range w.procs {
				if p.ref.Live() == nil || p.eng == nil {
					continue
				}
				st := p.ref.Live().Clone().Commit()
				if !oracle.SameCommitted(p.eng.View().Snapshot(), st, nil) {
					t.Fatalf("%s: the live model means other than the honest engine: %s", p.spec.Name, oracle.RefState(p.eng.View().Snapshot()).Diff(st))
				}
				cw := w.cloneInto(nil, &w.idsPCG, w.chooser)
				if h.Hash(cw, extra) != k {
					t.Fatal("a clone hashes differently from its original")
				}
				q := cw.procs[p.idx]
				q.own()
				undeclared := undeclaredChannel(cw, q)
				if undeclared < 0 {
					continue
				}
				// The model alone refuses an emission the engine (said to) refuse alike: no
				// violation, only the model changes.
				refusal := &node.Refusal{Reason: node.ReasonEmissionToUndeclaredChannel}
				cw.or.RefEmit(cw.at(), &q.ref, undeclared, node.Record{}, node.Record{}, refusal)
				if q.ref.Off() || q.ref.Live() == nil {
					t.Fatalf("%s: the reference node objected to a refusal it shares", p.spec.Name)
				}
				if h.Hash(cw, extra) == k {
					t.Fatalf("%s: a refusal of the reference node alone leaves the state hash unchanged", p.spec.Name)
				}
				checked++
			}
		})
	}
	if checked < 500 {
		t.Fatalf("checked only %d reference nodes", checked)
	}
}

// undeclaredChannel returns a live channel of a topic p does not send to (-1 if none).
func undeclaredChannel(w *World, p *proc) int32 {
	for c := range w.chans {
		if w.alive(int32(c)) && !slices.Contains(p.sends, w.chans[c].topic) {
			return int32(c)
		}
	}
	return -1
}

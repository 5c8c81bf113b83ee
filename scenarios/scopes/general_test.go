package scopes

import (
	"flag"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/scenarios/scenariofile"
	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// labelledWirings lists every labelled wiring with ext external and in internal topics and n
// processes in order (no symmetry taken out) that the family admits (Valid).
func labelledWirings(ext, in, n int) []Wiring {
	choices := procChoices(ext, in)
	var out []Wiring
	idx := make([]int, n)
	for {
		w := Wiring{Ext: ext, Int: in}
		for _, i := range idx {
			w.Procs = append(w.Procs, choices[i])
		}
		if w.Valid() {
			out = append(out, w)
		}
		k := 0
		for k < n && idx[k] == len(choices)-1 {
			idx[k] = 0
			k++
		}
		if k == n {
			return out
		}
		idx[k]++
	}
}

// key renders a labelled wiring exactly (process order and topic labels included).
func (w Wiring) key() string {
	b := []byte{byte('0' + w.Ext), byte('0' + w.Int)}
	for _, p := range w.Procs {
		b = append(b, p.Recv, p.Send)
	}
	return string(b)
}

// TestGeneralWiringsAreEveryClassOnce checks the enumeration against a count made without the
// canonical form: every labelled wiring the family admits is joined to the wirings one swap of
// two processes, or of two topics of one kind, away; the connected classes of that graph are
// the isomorphism classes (such swaps generate every renaming). The family must have exactly one
// member in each class, and every labelled wiring's canonical form must be that member.
func TestGeneralWiringsAreEveryClassOnce(t *testing.T) {
	family := map[string]Wiring{}
	for _, w := range GeneralWirings() {
		if !w.Valid() {
			t.Fatalf("family member %s is not a valid wiring", w.Name())
		}
		if _, dup := family[w.Name()]; dup {
			t.Fatalf("family member %s listed twice", w.Name())
		}
		if c := w.Canonical(); c.Name() != w.Name() || c.key() != w.key() {
			t.Fatalf("family member %s is not in canonical form (%s)", w.Name(), c.Name())
		}
		family[w.Name()] = w
	}
	classes := 0
	for n := 1; n <= generalMaxProcs; n++ {
		for ext := 1; ext <= generalMaxTopics; ext++ {
			for in := 0; ext+in <= generalMaxTopics; in++ {
				classes += countClasses(t, labelledWirings(ext, in, n), family)
			}
		}
	}
	if classes != len(family) {
		t.Fatalf("%d isomorphism classes, %d family members", classes, len(family))
	}
	t.Logf("%d wirings, one per isomorphism class", classes)
}

// countClasses counts the isomorphism classes of ws (all labelled wirings of one shape) by
// union-find over single swaps, and checks that each class maps to one family member and no two
// classes to the same one.
func countClasses(t *testing.T, ws []Wiring, family map[string]Wiring) int {
	t.Helper()
	index := make(map[string]int, len(ws))
	for i, w := range ws {
		index[w.key()] = i
	}
	parent := make([]int, len(ws))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i int, w Wiring) {
		j, ok := index[w.key()]
		if !ok {
			t.Fatalf("a swap of admitted wiring %s is not admitted", ws[i].Name())
		}
		parent[find(i)] = find(j)
	}
	for i, w := range ws {
		for a := range w.Procs {
			for b := a + 1; b < len(w.Procs); b++ {
				v := Wiring{Ext: w.Ext, Int: w.Int, Procs: slices.Clone(w.Procs)}
				v.Procs[a], v.Procs[b] = v.Procs[b], v.Procs[a]
				union(i, v)
			}
		}
		n := w.Ext + w.Int
		for a := range n {
			for b := a + 1; b < n; b++ {
				if (a < w.Ext) != (b < w.Ext) {
					continue
				}
				perm := make([]int, n)
				for k := range perm {
					perm[k] = k
				}
				perm[a], perm[b] = b, a
				union(i, w.relabel(perm))
			}
		}
	}
	member := map[int]string{} // class root -> the family member its wirings canonicalise to
	used := map[string]bool{}
	for i, w := range ws {
		name := w.Canonical().Name()
		if _, ok := family[name]; !ok {
			t.Fatalf("wiring %s canonicalises to %s, not in the family", w.Name(), name)
		}
		r := find(i)
		if m, ok := member[r]; ok && m != name {
			t.Fatalf("isomorphic wirings canonicalise to %s and %s", m, name)
		}
		if _, ok := member[r]; !ok {
			if used[name] {
				t.Fatalf("two isomorphism classes canonicalise to %s", name)
			}
			used[name] = true
			member[r] = name
		}
	}
	return len(member)
}

// TestCanonicalIgnoresRenaming renames random family members at random and checks the
// canonical name does not change, and that the scope names it yields can be looked up.
func TestCanonicalIgnoresRenaming(t *testing.T) {
	ws := GeneralWirings()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		w := ws[rng.IntN(len(ws))]
		perm := topicPerms(w.Ext, w.Int)
		v := w.relabel(perm[rng.IntN(len(perm))])
		rng.Shuffle(len(v.Procs), func(i, j int) { v.Procs[i], v.Procs[j] = v.Procs[j], v.Procs[i] })
		if got := v.Canonical().Name(); got != w.Name() {
			t.Fatalf("%s renamed to %s canonicalises to %s", w.Name(), v.Name(), got)
		}
	}
}

var exploreGeneral = flag.Bool("explore.general", false, "explore every scope of the general family completely (minutes)")

// TestGeneralFamilyCatches: every engine and host sabotage mode an honest host can reach is
// caught by the general family alone. Each mode explores the family in catalogue order (smallest
// wirings first) up to the first violation; the shortest counterexample of that violation is
// written as a scenario file and must reproduce it.
func TestGeneralFamilyCatches(t *testing.T) {
	for _, m := range reachableEngineHostModes() {
		sc, res, spent := firstGeneralCatch(t, m)
		if res.Verdict != "violation" {
			t.Errorf("no general scope catches %s (%d states explored)", m, spent)
			continue
		}
		opts, _ := sc.Options()
		opts.Sabotage, opts.HostSabotage, _ = spec.ParseSabotage(m)
		v := sim.ShortestViolation(sc.Build(), opts, res.Violations[0])
		if _, err := scenariofile.Counterexample(sc.Name, sc.Budget, sc.Build(), opts, m, v); err != nil {
			t.Errorf("%s under %s: %v", sc.Name, m, err)
		}
		t.Logf("%-24s caught by %-26s %-15s shortest %2d steps; %d states explored up to it", m, sc.Name, v.Criterion, v.Depth, spent)
	}
}

// firstGeneralCatch explores the general family under sabotage mode m in order and returns the
// first scope with a violation, its result, and the states explored in all.
func firstGeneralCatch(t *testing.T, m string) (Scope, sim.ExploreResult, int) {
	spent := 0
	for _, sc := range GeneralScopes() {
		res := exploreSabotaged(t, sc, m)
		spent += res.States
		if res.Verdict == "violation" {
			return sc, res, spent
		}
	}
	return Scope{}, sim.ExploreResult{}, spent
}

// TestGeneralFamilyHonest: the honest engine is clean in general scopes, each explored
// completely: those of the wirings of at most three arcs here, every one with -explore.general
// (the results of 'simrun explore --family general' say what that costs).
func TestGeneralFamilyHonest(t *testing.T) {
	scopes, states := 0, 0
	for _, sc := range GeneralScopes() {
		scn := sc.Build()
		arcs := 0
		for _, p := range scn.Processes {
			arcs += len(p.Receives) + len(p.Sends)
		}
		if arcs > 3 && !*exploreGeneral {
			continue
		}
		opts, err := sc.Options()
		if err != nil {
			t.Fatal(err)
		}
		res := sim.Explore(scn, opts)
		if res.Verdict != "pass" || !res.Complete || res.TerminalStates == 0 {
			t.Errorf("scope %s: the honest engine is not clean: %v %+v", sc.Name, res, res.Violations)
		}
		scopes++
		states += res.States
	}
	t.Logf("%d general scopes clean, %d states", scopes, states)
}

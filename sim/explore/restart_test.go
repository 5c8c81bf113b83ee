package explore

import (
	"math/rand/v2"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// TestCheckRestart runs the restart check on fake worlds: the process is chosen among the
// restartable ones by the hash, a restart that changes a delivery sequence is a
// RESTART_INVISIBILITY violation naming the process, a world with nothing restartable is not
// checked, a world whose end breaks without the restart reports nothing, and the two copies'
// storage is reused from the free list. It fails if the check restarted a process that cannot be
// restarted, missed the changed deliveries, or allocated copies with released ones at hand.
func TestCheckRestart(t *testing.T) {
	ids := rand.NewPCG(1, 2)
	var free freeList
	w := newFakeWorld([]bool{true, false, true}, 2)
	clean := checkRestart(w, HashKey{0, 0}, ids, 4, &free) // the first restartable: p0
	if !clean.Checked || clean.Process != "p0" || len(clean.Violations) != 0 {
		t.Fatalf("restarting p0: %+v", clean)
	}
	if *w.made != 2 {
		t.Fatalf("%d copies made for one check, want 2", *w.made)
	}
	bad := checkRestart(w, HashKey{0, 1}, ids, 4, &free) // the second restartable: p2, the buggy one
	if !bad.Checked || bad.Process != "p2" || len(bad.Violations) != 1 ||
		bad.Violations[0].Criterion != spec.CritRestartInvisibility || bad.Violations[0].Process != 2 {
		t.Fatalf("restarting p2: %+v", bad)
	}
	if *w.made != 2 {
		t.Fatalf("%d copies made for two checks, want 2: the released copies were not reused", *w.made)
	}
	if got := checkRestart(newFakeWorld([]bool{false, false}, -1), HashKey{}, ids, 0, nil); got.Checked {
		t.Fatalf("a world with nothing restartable was checked: %+v", got)
	}
	broken := newFakeWorld([]bool{true, true, true}, 2)
	broken.brokenEnd = true
	if got := checkRestart(broken, HashKey{0, 2}, ids, 0, nil); !got.Checked || len(got.Violations) != 0 {
		t.Fatalf("a world whose end breaks without the restart: %+v", got)
	}
	if restartSampled(HashKey{1 << 58, 0}) || !restartSampled(HashKey{1<<58 - 1, 0}) {
		t.Fatal("the sample is not the hashes whose top 6 bits are zero")
	}
}

// TestFreeListBounds checks that a free list hands back what it was given, last first, keeps at
// most freeWorldsMax worlds, and that a nil list holds nothing. It fails if a world were handed
// out twice or the list grew without bound.
func TestFreeListBounds(t *testing.T) {
	var l freeList
	worlds := make([]*fakeWorld, freeWorldsMax+1)
	for i := range worlds {
		worlds[i] = newFakeWorld(nil, -1)
		if got := l.Release(worlds[i]); got != (i < freeWorldsMax) {
			t.Fatalf("release %d: %v", i, got)
		}
	}
	for i := freeWorldsMax - 1; i >= 0; i-- {
		if w := l.Take(); w != World(worlds[i]) {
			t.Fatalf("take: not the world released %d-th", i)
		}
	}
	if l.Take() != nil {
		t.Fatal("an empty list handed out a world")
	}
	var none *freeList
	if none.Release(worlds[0]) || none.Take() != nil {
		t.Fatal("a nil list holds worlds")
	}
}

package explore

import (
	"sync"
	"testing"
)

// TestSharedVisit checks the shared visited set's answers: the first arrival at a state expands
// it, a later arrival with transitions awake that were asleep expands only those (and the stored
// sleep set becomes the intersection), a later arrival with nothing new does not expand, and the
// cap admits exactly maxStates states and stops the exploration. It fails if the state-caching
// correction or the cap were wrong.
func TestSharedVisit(t *testing.T) {
	p := newShared(2, 2, nil, 1, nil)
	defer p.Free()
	a, b, c := HashKey{1, 1}, HashKey{2, 2}, HashKey{3, 3 << 58}
	if only, expand, isNew := p.Visit(a, 0b1110, true); !expand || !isNew || only != 0 {
		t.Fatalf("first arrival: only %b expand %v new %v", only, expand, isNew)
	}
	if only, expand, isNew := p.Visit(a, 0b0110, true); !expand || isNew || only != 0b1000 {
		t.Fatalf("arrival waking 0b1000: only %b expand %v new %v", only, expand, isNew)
	}
	if _, expand, _ := p.Visit(a, 0b0111, true); expand {
		t.Fatal("an arrival with nothing awake that was asleep expands")
	}
	if _, expand, _ := p.Visit(a, 0, false); expand {
		t.Fatal("without reduction a revisit expands")
	}
	if _, expand, isNew := p.Visit(b, 0, true); !expand || !isNew || !p.Stopped() || !p.Capped() {
		t.Fatalf("the second state of a cap of 2: expand %v new %v stopped %v", expand, isNew, p.Stopped())
	}
	if _, expand, isNew := p.Visit(c, 0, true); expand || isNew {
		t.Fatal("a state past the cap was admitted")
	}
}

// TestSharedWorkPool runs three workers over a tree of work given away: each item of depth below
// 4 gives two children to the pool. However the workers interleave, every item is taken once and
// the pool ends when every worker is idle with nothing left: 1+2+4+8+16 items. It fails if an item
// were lost or taken twice, or the pool ended early or never.
func TestSharedWorkPool(t *testing.T) {
	const workers = 3
	p := newShared(workers, 0, nil, 1, nil)
	defer p.Free()
	var mu sync.Mutex
	taken := map[string]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := p.Take(); it != nil; it = p.Take() {
				name := "root"
				if !it.Root {
					name = string(rune('a' + len(it.Path)))
					for _, s := range it.Path {
						name += string(rune('0' + s[0]))
					}
				}
				mu.Lock()
				taken[name]++
				mu.Unlock()
				if len(it.Path) < 4 {
					for c := range 2 {
						p.Give(&workItem{Path: append(clonePaths(it.Path), []int{c})})
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(taken) != 31 || p.Given() != 30 {
		t.Fatalf("%d distinct items taken, %d given, want 31 and 30", len(taken), p.Given())
	}
	for name, n := range taken {
		if n != 1 {
			t.Fatalf("item %s taken %d times", name, n)
		}
	}
}

func clonePaths(path [][]int) [][]int { return append([][]int(nil), path...) }

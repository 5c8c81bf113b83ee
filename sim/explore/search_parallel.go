package explore

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Parallel exploration: one scope explored by several workers (goroutines) that share one visited
// set and hand each other work.
//
// Each worker is an explorer of its own (its worlds, buffers, hasher, persistent-set scratch and
// results), exploring depth-first as a sequential exploration does. They share (parallel.go):
//   - the visited set, split into stripes by the key's top bits, each behind its own lock. The
//     first worker to reach a state inserts it and expands it; a worker reaching it later applies
//     the state-caching correction under the same lock (it expands the transitions asleep in the
//     stored sleep set and awake in its own, and stores the intersection), so whatever the order
//     in which workers arrive, the transitions expanded from a state are every transition not
//     asleep in the intersection of the sleep sets it is reached with, as sequentially;
//   - the sleep sets' transition identities (SleepTable, interned up front so it is read-only);
//   - a pool of work. An idle worker says so (wanted); the next busy worker to take a transition
//     gives away the untried siblings of its shallowest state that has some: the path to that
//     state, its sleep set and the transitions already explored from it (which the untried ones'
//     sleep sets include, as sequentially), and the prefixes of Chooser answers not yet run. The
//     taker rebuilds the state by replaying the path from the root (as a shard rebuilds its
//     subtrees, search_shard.go) and runs those prefixes; the giver stops that state's
//     enumeration after its current transition. This is work stealing at the granularity of the
//     largest pending subtree, paid for only when a worker is idle.
//
// Why a complete exploration's results do not depend on the number of workers or on timing.
// Sleep sets prune transitions, not states (SleepTable), and persistent sets are a function
// of the state; so the states visited are the states reachable from the root through persistent
// sets, within the budget, whatever the order transitions are explored in: the same distinct
// states, the same terminal states and the same violations (criterion and process; a path that
// finds a violation is not continued, by whichever worker takes it; the end checks of a terminal
// state and the restart check of a sampled state are functions of the state, not of the path
// that reached it, search_restart.go). What may differ is the
// number of transitions (a state reached first with a large sleep set is expanded again for the
// transitions awake in a later arrival), the maximum depth (a state's depth is the depth it was
// first reached at) and which path found a violation first: the result lists
// violations sorted by criterion and process, each with the shortest path any worker found (the
// least by answers among equally short ones), and Shortest, which simrun runs on every
// violation, is sequential and gives the canonical shortest counterexample. A capped exploration
// (MaxStates) visits exactly MaxStates states, but which ones depends on timing, as does what one
// stopped at its first violation or an interrupted one finds; the first two are reported as
// sequentially (capped: incomplete), an interrupted one incomplete.
//
// A depth-bounded exploration, a sharded one, and one whose transitions do not all fit the
// sleep-set table explore sequentially whatever Workers says (workers).

// frame is a state being expanded by a worker: what giving its untried siblings away needs.
type frame struct {
	depth      int
	qbase      int // where its prefixes start in explorer.queue
	key        HashKey
	sleep      uint64
	only, done uint64
	cur        uint64 // the transition being explored from it
	given      bool   // its untried siblings were given away
}

// workers returns the number of workers an exploration uses.
func workers(cfg Config) int {
	if cfg.Workers <= 1 || cfg.MaxDepth > 0 || cfg.Shards > 0 || cfg.target != nil {
		return 1
	}
	if cfg.Sleep != nil && !cfg.Sleep().Fixed() {
		return 1
	}
	return cfg.Workers
}

// exploreParallel explores cfg's scope with cfg.Workers workers (see above).
func exploreParallel(cfg Config) Result {
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = 1 << 16
	}
	workers := cfg.Workers
	var progress func(int)
	if cfg.Progress != nil {
		progress = func(n int) { cfg.Progress(Result{States: n, Workers: workers}) }
	}
	p := newShared(workers, cfg.MaxStates, progress, cfg.ProgressEvery, cfg.Interrupt)
	defer p.Free()
	var por *SleepTable
	xs := make([]*explorer, workers)
	for i := range xs {
		x := newExplorer(cfg)
		if por == nil {
			por = x.por
		}
		x.por, x.par = por, p
		x.res.Complete = true
		xs[i] = x
	}
	var wg sync.WaitGroup
	for _, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.work()
		}()
	}
	wg.Wait()
	return parallelResult(p, cfg, xs)
}

// parallelResult merges the workers' results (see above for what is canonical).
func parallelResult(p *shared, cfg Config, xs []*explorer) Result {
	res := Result{Complete: !p.Capped() && !p.WasInterrupted(), Violations: []Violation{},
		terminals: map[HashKey]struct{}{}}
	best := map[violationKey]Violation{}
	for _, x := range xs {
		res.States += x.res.States
		res.Transitions += x.res.Transitions
		res.RestartChecks += x.res.RestartChecks
		res.restartFailures += x.res.restartFailures
		res.MaxDepth = max(res.MaxDepth, x.res.MaxDepth)
		for k := range x.res.terminals {
			res.terminals[k] = struct{}{}
		}
		for _, v := range x.res.Violations {
			k := violationKey{v.Criterion, v.Process}
			if b, ok := best[k]; !ok || shorterPath(v, b) {
				best[k] = v
			}
		}
	}
	for _, v := range best {
		res.Violations = append(res.Violations, v)
	}
	slices.SortFunc(res.Violations, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.Criterion, b.Criterion), cmp.Compare(a.Process, b.Process))
	})
	res.TerminalStates = len(res.terminals)
	res.Interrupted = p.WasInterrupted()
	res.Workers = len(xs)
	res.shared = p.Given()
	res.Verdict = "pass"
	if len(res.Violations) > 0 {
		res.Verdict = "violation"
	}
	if cfg.Progress != nil {
		cfg.Progress(res)
	}
	return res
}

// shorterPath reports whether a's path is shorter than b's, or as long and less by answers.
func shorterPath(a, b Violation) bool {
	if a.Depth != b.Depth {
		return a.Depth < b.Depth
	}
	return slices.CompareFunc(a.Path, b.Path, slices.Compare) < 0
}

// work is one worker: it explores work items until the exploration is over.
func (x *explorer) work() {
	for {
		it := x.par.Take()
		if it == nil {
			return
		}
		if it.Root {
			x.enterRoot()
			continue
		}
		s := x.replayTo(it.Path)
		if key := x.hash(s); key != it.Key {
			panic(fmt.Sprintf("explore: the path %v of a shared state leads to another state than it did", it.Path))
		}
		x.path = append(x.path[:0], it.Path...)
		x.expandFrom(s, it.Key, it.Sleep, it.Only, it.Done, it.Prefixes)
		x.path = x.path[:0]
		x.clearPath()
		x.release(s)
	}
}

// share gives away the untried siblings of the shallowest state being expanded that has some,
// when a worker is idle.
func (x *explorer) share() {
	for i := range x.frames {
		f := &x.frames[i]
		end := len(x.queue)
		if i+1 < len(x.frames) {
			end = x.frames[i+1].qbase
		}
		if f.given || end <= f.qbase {
			continue
		}
		it := &workItem{Path: clonePath(x.path[:f.depth]), Key: f.key, Sleep: f.sleep, Only: f.only, Done: f.done | f.cur}
		for _, sp := range x.queue[f.qbase:end] {
			it.Prefixes = append(it.Prefixes, slices.Clone(x.arena[sp.from:sp.to]))
		}
		f.given = true
		x.par.Give(it)
		return
	}
}

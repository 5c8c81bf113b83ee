package sim

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/visited"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Parallel exploration: one scope explored by several workers (goroutines) that share one visited
// set and hand each other work.
//
// Each worker is an explorer of its own (its worlds, buffers, hasher, persistent-set scratch and
// results), exploring depth-first as a sequential exploration does. They share:
//   - the visited set, split into stripes by the key's top bits, each behind its own lock. The
//     first worker to reach a state inserts it and expands it; a worker reaching it later applies
//     the state-caching correction under the same lock (it expands the transitions asleep in the
//     stored sleep set and awake in its own, and stores the intersection), so whatever the order
//     in which workers arrive, the transitions expanded from a state are every transition not
//     asleep in the intersection of the sleep sets it is reached with, as sequentially;
//   - the sleep sets' transition identities (explore.SleepTable, interned up front so it is read-only);
//   - a pool of work. An idle worker says so (wanted); the next busy worker to take a transition
//     gives away the untried siblings of its shallowest state that has some: the path to that
//     state, its sleep set and the transitions already explored from it (which the untried ones'
//     sleep sets include, as sequentially), and the prefixes of Chooser answers not yet run. The
//     taker rebuilds the state by replaying the path from the root (as a shard rebuilds its
//     subtrees, explore_shard.go) and runs those prefixes; the giver stops that state's
//     enumeration after its current transition. This is work stealing at the granularity of the
//     largest pending subtree, paid for only when a worker is idle.
//
// Why a complete exploration's results do not depend on the number of workers or on timing.
// Sleep sets prune transitions, not states (explore_por.go), and persistent sets are a function
// of the state; so the states visited are the states reachable from the root through persistent
// sets, within the budget, whatever the order transitions are explored in: the same distinct
// states, the same terminal states and the same violations (criterion and process; a path that
// finds a violation is not continued, by whichever worker takes it; the end checks of a terminal
// state and the restart check of a sampled state are functions of the state, not of the path
// that reached it, explore_restart.go). What may differ is the
// number of transitions (a state reached first with a large sleep set is expanded again for the
// transitions awake in a later arrival), the maximum depth (a state's depth is the depth it was
// first reached at) and which path found a violation first: the result lists
// violations sorted by criterion and process, each with the shortest path any worker found (the
// least by answers among equally short ones), and ShortestViolation, which simrun runs on every
// violation, is sequential and gives the canonical shortest counterexample. A capped exploration
// (MaxStates) visits exactly MaxStates states, but which ones depends on timing, as does what one
// stopped at its first violation or an interrupted one finds; the first two are reported as
// sequentially (capped: incomplete), an interrupted one incomplete.
//
// A depth-bounded exploration, a sharded one, and one whose transitions do not all fit the
// sleep-set table explore sequentially whatever Workers says (exploreWorkers).

// visitedStripes is the number of independently locked parts of a parallel exploration's visited
// set: enough that workers rarely wait for one another, few enough that a stripe of a
// large scope grows past the size the visited package maps in huge pages.
const visitedStripes = 64

// stripeMapBytes is the size from which a stripe's table is mapped outside the Go heap, far
// below the size the visited package maps a whole table from: the stripes of a scope of a few hundred thousand states are together
// as large as one table mapped whole, and in the heap they would make the collector's target
// (GOGC times the live heap) several times larger than a sequential exploration's.
const stripeMapBytes = 64 << 10

// parallelExplore is the state the workers of one exploration share.
type parallelExplore struct {
	opts    ExploreOptions
	workers int
	stripes [visitedStripes]visitedStripe
	// stop ends the exploration: the state cap, a violation with StopAtFirst, or an interrupt
	// (polled as states are counted; a worker waiting for work is woken by the last busy one).
	stop, capped, interrupted atomic.Bool
	states, given             atomic.Int64
	// wanted is the number of idle workers less the work items waiting for them: while it is
	// positive, busy workers give work away.
	wanted atomic.Int32

	mu    sync.Mutex // guards items, idle, done and the progress callback
	cond  sync.Cond
	items []*workItem
	idle  int
	done  bool
}

// visitedStripe is one locked part of the shared visited set.
type visitedStripe struct {
	mu  sync.Mutex
	set *visited.Set
	_   [40]byte // keeps stripes' locks on separate cache lines
}

// workItem is work given away: the untried siblings of one state (or, for root, the root).
type workItem struct {
	root     bool
	path     [][]int // the path from the root to the state
	key      hashKey // the state's hash, checked after the replay
	sleep    uint64  // the sleep set the state is expanded with
	only     uint64  // on a revisit, the transitions the expansion is restricted to
	done     uint64  // the transitions already explored from it
	prefixes [][]int // the Chooser answer prefixes not yet run, in queue order
}

// exploreFrame is a state being expanded by a worker: what giving its untried siblings away needs.
type exploreFrame struct {
	depth      int
	qbase      int // where its prefixes start in explorer.queue
	key        hashKey
	sleep      uint64
	only, done uint64
	cur        uint64 // the transition being explored from it
	given      bool   // its untried siblings were given away
}

// exploreWorkers returns the number of workers an exploration uses.
func exploreWorkers(scn *spec.Scenario, opts ExploreOptions) int {
	if opts.Workers <= 1 || opts.MaxDepth > 0 || opts.Shards > 0 || opts.target != nil {
		return 1
	}
	if opts.Reduce && !explore.NewSleepTable(scn, &swarm.Settings{}).Fixed() {
		return 1
	}
	return opts.Workers
}

// exploreParallel explores scn with opts.Workers workers (see above).
func exploreParallel(scn *spec.Scenario, opts ExploreOptions) ExploreResult {
	p := &parallelExplore{opts: opts, workers: opts.Workers, items: []*workItem{{root: true}}}
	p.cond.L = &p.mu
	for i := range p.stripes {
		p.stripes[i].set = visited.New(false, stripeMapBytes)
	}
	defer func() {
		for i := range p.stripes {
			p.stripes[i].set.Free()
		}
	}()
	if opts.ProgressEvery == 0 {
		opts.ProgressEvery = 1 << 16
	}
	p.opts = opts
	var por *explore.SleepTable
	xs := make([]*explorer, p.workers)
	for i := range xs {
		x := newExplorer(scn, opts)
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
	return p.result(xs)
}

// result merges the workers' results (see above for what is canonical).
func (p *parallelExplore) result(xs []*explorer) ExploreResult {
	res := ExploreResult{Complete: !p.capped.Load() && !p.interrupted.Load(), Violations: []ExploreViolation{},
		terminals: map[hashKey]struct{}{}, termsAlso: map[hashKey]struct{}{}}
	best := map[violationKey]ExploreViolation{}
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
	slices.SortFunc(res.Violations, func(a, b ExploreViolation) int {
		return cmp.Or(cmp.Compare(a.Criterion, b.Criterion), cmp.Compare(a.Process, b.Process))
	})
	res.TerminalStates = len(res.terminals)
	res.Interrupted = p.interrupted.Load()
	res.Workers = p.workers
	res.shared = int(p.given.Load())
	res.Verdict = "pass"
	if len(res.Violations) > 0 {
		res.Verdict = "violation"
	}
	if p.opts.Progress != nil {
		p.opts.Progress(res)
	}
	return res
}

// shorterPath reports whether a's path is shorter than b's, or as long and less by answers.
func shorterPath(a, b ExploreViolation) bool {
	if a.Depth != b.Depth {
		return a.Depth < b.Depth
	}
	return slices.CompareFunc(a.Path, b.Path, slices.Compare) < 0
}

// visit records that a worker reached the state key with sleep set sleep, under its stripe's
// lock: expand says whether the worker expands it, isNew whether it is the first to reach it, and
// only (on a later arrival) the transitions it expands (explorer.enter, sequentially). A new
// state past the cap is not recorded, so a capped exploration visits exactly MaxStates states
// however many workers reach new ones at once.
func (p *parallelExplore) visit(key hashKey, sleep uint64, reduce bool) (only uint64, expand, isNew bool) {
	st := &p.stripes[key[1]>>58]
	st.mu.Lock()
	defer st.mu.Unlock()
	v, seen := st.set.Get(key)
	switch {
	case !seen:
		if !p.admit() {
			return 0, false, false
		}
		st.set.Put(key, visited.Visit{Sleep: sleep})
		return 0, true, true
	case reduce && v.Sleep&^sleep != 0:
		st.set.Put(key, visited.Visit{Sleep: sleep & v.Sleep})
		return v.Sleep &^ sleep, true, false
	}
	return 0, false, false
}

// admit counts a state about to be recorded as new, reports it to the progress callback, and
// says whether it is within the cap; reaching the cap stops the exploration. The shared count is
// kept only when a cap or a progress callback reads it (every worker adding to one cache line
// would make it the exploration's bottleneck on many cores); the result adds the workers' own
// counts.
func (p *parallelExplore) admit() bool {
	if p.opts.MaxStates == 0 && p.opts.Progress == nil {
		return true
	}
	n := p.states.Add(1)
	if p.opts.MaxStates > 0 && n >= int64(p.opts.MaxStates) {
		p.capped.Store(true)
		p.stop.Store(true)
		if n > int64(p.opts.MaxStates) {
			return false
		}
	}
	if p.opts.Progress != nil && n%int64(p.opts.ProgressEvery) == 0 {
		p.mu.Lock()
		p.opts.Progress(ExploreResult{States: int(n), Workers: p.workers})
		p.mu.Unlock()
	}
	return true
}

// counted polls the interrupt as a new state is counted.
func (p *parallelExplore) counted() {
	if interrupted(p.opts.Interrupt) {
		p.interrupted.Store(true)
		p.stop.Store(true)
	}
}

// take returns the next work item for an idle worker, waiting for one, or nil when the
// exploration is over: stopped, or every worker idle with nothing left to give.
func (p *parallelExplore) take() *workItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.items) == 0 && !p.done && !p.stop.Load() {
		if p.idle+1 == p.workers {
			break
		}
		p.idle++
		p.setWanted()
		p.cond.Wait()
		p.idle--
		p.setWanted()
	}
	if p.done || p.stop.Load() || len(p.items) == 0 {
		p.done = true
		p.cond.Broadcast()
		return nil
	}
	it := p.items[len(p.items)-1]
	p.items = p.items[:len(p.items)-1]
	p.setWanted()
	return it
}

// setWanted updates wanted (p.mu held).
func (p *parallelExplore) setWanted() { p.wanted.Store(int32(p.idle - len(p.items))) }

// give adds a work item and wakes an idle worker.
func (p *parallelExplore) give(it *workItem) {
	p.given.Add(1)
	p.mu.Lock()
	p.items = append(p.items, it)
	p.setWanted()
	p.cond.Signal()
	p.mu.Unlock()
}

// work is one worker: it explores work items until the exploration is over.
func (x *explorer) work() {
	for {
		it := x.par.take()
		if it == nil {
			return
		}
		if it.root {
			x.enterRoot()
			continue
		}
		s := x.replayTo(it.path)
		if key := x.hash(s); key != it.key {
			panic(fmt.Sprintf("sim: explore: the path %v of a shared state leads to another state than it did", it.path))
		}
		x.path = append(x.path[:0], it.path...)
		x.expandFrom(s, it.key, it.sleep, it.only, it.done, it.prefixes)
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
		it := &workItem{path: clonePath(x.path[:f.depth]), key: f.key, sleep: f.sleep, only: f.only, done: f.done | f.cur}
		for _, sp := range x.queue[f.qbase:end] {
			it.prefixes = append(it.prefixes, slices.Clone(x.arena[sp.from:sp.to]))
		}
		f.given = true
		x.par.give(it)
		return
	}
}

// clonePath returns a deep copy of path (a path's answers live in reused storage).
func clonePath(path [][]int) [][]int {
	p := slices.Clone(path)
	for i := range p {
		p[i] = slices.Clone(p[i])
	}
	return p
}

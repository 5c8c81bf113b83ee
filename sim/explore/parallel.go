package explore

import (
	"sync"
	"sync/atomic"

	"github.com/parsleysim/parsleysim/sim/explore/visited"
)

// shared is what the workers of a parallel exploration share: one visited set, split into
// stripes each behind its own lock; the count of states against the cap; the stop signal; and a
// pool of work the workers hand each other. An idle worker says so (Wanted turns true); a busy
// worker seeing it gives away work (Give); Take hands an idle worker the next item, or ends the
// exploration when every worker is idle with nothing left to give.
type shared struct {
	workers       int
	maxStates     int
	progress      func(states int)
	progressEvery int
	interrupt     <-chan struct{}
	stripes       [visitedStripes]visitedStripe
	// stop ends the exploration: the state cap, a violation the search stops at, or an interrupt
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

// visitedStripes is the number of independently locked parts of a parallel exploration's visited
// set: enough that workers rarely wait for one another, few enough that a stripe of a
// large scope grows past the size the visited package maps in huge pages.
const visitedStripes = 64

// stripeMapBytes is the size from which a stripe's table is mapped outside the Go heap, far
// below the size the visited package maps a whole table from: the stripes of a scope of a few
// hundred thousand states are together as large as one table mapped whole, and in the heap they
// would make the collector's target (GOGC times the live heap) several times larger than a
// sequential exploration's.
const stripeMapBytes = 64 << 10

// visitedStripe is one locked part of the shared visited set.
type visitedStripe struct {
	mu  sync.Mutex
	set *visited.Set
	_   [40]byte // keeps stripes' locks on separate cache lines
}

// workItem is work given away: the untried siblings of one state (or, for Root, the root).
type workItem struct {
	Root     bool
	Path     [][]int // the path from the root to the state
	Key      HashKey // the state's hash, checked after the replay
	Sleep    uint64  // the sleep set the state is expanded with
	Only     uint64  // on a revisit, the transitions the expansion is restricted to
	Done     uint64  // the transitions already explored from it
	Prefixes [][]int // the Chooser answer prefixes not yet run, in queue order
}

// newShared returns the shared part of an exploration by workers workers, its pool holding the
// root: at most maxStates states (0: no cap), progress (when not nil) called with the count of
// states every progressEvery states, interrupt (when not nil) polled as states are counted. Free
// releases its visited set.
func newShared(workers, maxStates int, progress func(states int), progressEvery int, interrupt <-chan struct{}) *shared {
	p := &shared{workers: workers, maxStates: maxStates, progress: progress, progressEvery: progressEvery,
		interrupt: interrupt, items: []*workItem{{Root: true}}}
	p.cond.L = &p.mu
	for i := range p.stripes {
		p.stripes[i].set = visited.New(false, stripeMapBytes)
	}
	return p
}

// Free releases the visited set's storage (it may be mapped outside the Go heap).
func (p *shared) Free() {
	for i := range p.stripes {
		p.stripes[i].set.Free()
	}
}

// Visit records that a worker reached the state key with sleep set sleep, under its stripe's
// lock: expand says whether the worker expands it, isNew whether it is the first to reach it, and
// only (on a later arrival, with reduce) the transitions it expands: those asleep in the stored
// sleep set and awake in sleep, the stored set becoming the intersection (the state-caching
// correction). A new state past the cap is not recorded, so a capped exploration visits exactly
// maxStates states however many workers reach new ones at once.
func (p *shared) Visit(key HashKey, sleep uint64, reduce bool) (only uint64, expand, isNew bool) {
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
// would make it the exploration's bottleneck on many cores); the workers keep their own counts.
func (p *shared) admit() bool {
	if p.maxStates == 0 && p.progress == nil {
		return true
	}
	n := p.states.Add(1)
	if p.maxStates > 0 && n >= int64(p.maxStates) {
		p.capped.Store(true)
		p.stop.Store(true)
		if n > int64(p.maxStates) {
			return false
		}
	}
	if p.progress != nil && n%int64(p.progressEvery) == 0 {
		p.mu.Lock()
		p.progress(int(n))
		p.mu.Unlock()
	}
	return true
}

// Counted polls the interrupt as a worker counts a new state.
func (p *shared) Counted() {
	if interrupted(p.interrupt) {
		p.interrupted.Store(true)
		p.stop.Store(true)
	}
}

// Interrupted reports whether c is closed (nil: never).
func interrupted(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Stop ends the exploration; Stopped says whether it is ended.
func (p *shared) Stop()         { p.stop.Store(true) }
func (p *shared) Stopped() bool { return p.stop.Load() }

// Capped says the cap stopped the exploration, WasInterrupted the interrupt; Given is the number
// of work items given away.
func (p *shared) Capped() bool         { return p.capped.Load() }
func (p *shared) WasInterrupted() bool { return p.interrupted.Load() }
func (p *shared) Given() int           { return int(p.given.Load()) }

// Wanted says an idle worker waits for work: a busy one should give some away.
func (p *shared) Wanted() bool { return p.wanted.Load() > 0 }

// Take returns the next work item for an idle worker, waiting for one, or nil when the
// exploration is over: stopped, or every worker idle with nothing left to give.
func (p *shared) Take() *workItem {
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
func (p *shared) setWanted() { p.wanted.Store(int32(p.idle - len(p.items))) }

// Give adds a work item and wakes an idle worker.
func (p *shared) Give(it *workItem) {
	p.given.Add(1)
	p.mu.Lock()
	p.items = append(p.items, it)
	p.setWanted()
	p.cond.Signal()
	p.mu.Unlock()
}

package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/explore/visited"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The search. Depth-first over every answer the Chooser can give: a state is a world between two
// scheduler steps; its transitions are every complete sequence of decisions one step can make
// (which action, which process, which channel, offset, ...), enumerated by re-running the step
// on a clone of the world with a prefix of forced answers (search_step.go).
//
// Deduplication: a state is expanded once per canonical hash (the world's Hasher) plus the
// budget spent. Reduction: persistent (stubborn) sets, which expand only the transitions of a set
// of actors closed under dependency (Persistent: package persistent's rules), and sleep sets over independent
// transitions (SleepTable), with the state-caching correction (explorer.enter). Every terminal
// state — nothing enabled within the budget, or the depth bound reached — gets the checks a run
// ends with (World.Finish); a sampled share of all states gets the restart check
// (search_restart.go). Violations found on a transition are reported with the path that found
// them and stop that path; the shortest path to each is found by iterative deepening
// (search_shortest.go).

// Config is one exploration: how its root is built, the services of the world's side each
// search uses, its budget and bounds, and how it is driven. Package sim builds it from a scenario
// and its exploration options.
type Config struct {
	// Root returns a new root state: a world with every process started, and the topic-ID stream
	// the world's clones continue from.
	Root func() (World, *rand.PCG)
	// Hasher returns a canonical hasher for one search (each worker of a parallel search has its
	// own).
	Hasher func() Hasher
	// Persistent, when not nil, returns the persistent sets of one search (nil from it: none).
	// A depth-bounded search uses none: a depth bound breaks their argument.
	Persistent func() Persistent
	// Sleep, when not nil, returns the sleep sets' table of one search; nil: no sleep sets.
	Sleep func() *SleepTable
	// Budget bounds each path's actions by kind.
	Budget budget.Budget
	// MaxDepth bounds the steps after the root; 0: unbounded (the budget bounds the scope).
	MaxDepth int
	// RestartCheck runs the restart check at a sampled share of the states (search_restart.go).
	RestartCheck bool
	// StopAtFirst ends the exploration at the first violation.
	StopAtFirst bool
	// MaxStates stops the exploration (Complete false) after this many states; 0: no cap.
	MaxStates int
	// Shard of Shards (counting from 1; Shards 0: unsharded) explores one shard of the scope's
	// subtrees below SplitDepth (0: chosen), search_shard.go.
	Shard, Shards, SplitDepth int
	// Workers is the number of goroutines exploring the scope together (search_parallel.go); 0
	// or 1: one, on the caller's goroutine.
	Workers int
	// Interrupt, when closed, stops the exploration (Complete false, Interrupted true).
	Interrupt <-chan struct{}
	// Progress, when set, is called every ProgressEvery states (0: 65536) and at the end.
	Progress      func(Result)
	ProgressEvery int

	// target stops the search at the first violation with this key (Shortest); depthZero makes
	// depth 0 the bound (MaxDepth 0 means unbounded).
	target    *violationKey
	depthZero bool
}

// Result is what an exploration found.
type Result struct {
	States         int `json:"states"`
	Transitions    int `json:"transitions"`
	TerminalStates int `json:"terminal_states"`
	// MaxDepth is the largest depth a state was first reached at (with several workers it may
	// differ from run to run, as Transitions may: search_parallel.go).
	MaxDepth int `json:"max_depth"`
	// Complete says every schedule of the scope was explored: false when MaxStates stopped the
	// exploration, MaxDepth cut a path that could go on (DepthCut counts the states cut), or
	// Interrupt stopped it.
	Complete bool   `json:"complete"`
	DepthCut int    `json:"depth_cut,omitempty"`
	Verdict  string `json:"verdict"`
	// RestartChecks counts the states checked for RESTART_INVISIBILITY (search_restart.go).
	RestartChecks int `json:"restart_checks"`
	// Violations lists one entry per (criterion, process) found: in the order found by one
	// worker, sorted by criterion and process by several (search_parallel.go).
	Violations []Violation `json:"violations"`
	// Interrupted says Interrupt stopped the exploration; Workers is how many explored it
	// when more than one did.
	Interrupted bool `json:"interrupted,omitempty"`
	Workers     int  `json:"workers,omitempty"`
	// SplitDepth, Subtrees and OwnSubtrees describe a sharded exploration (search_shard.go): the
	// depth of the subtrees dealt to shards, their number, and how many this shard explored.
	SplitDepth  int `json:"split_depth,omitempty"`
	Subtrees    int `json:"subtrees,omitempty"`
	OwnSubtrees int `json:"own_subtrees,omitempty"`
	// terminals are the distinct terminal states' hashes (the workers' are merged); shared
	// counts the work items a parallel exploration's workers gave each other; restartFailures
	// the restart checks that found a violation (search_restart.go).
	terminals       map[HashKey]struct{}
	shared          int
	restartFailures int
}

// Violation is one violation and a path to it.
type Violation struct {
	Criterion spec.Criterion `json:"criterion"`
	Process   int            `json:"process"`
	Detail    string         `json:"detail"`
	// Depth is the number of steps of Path; Terminal says the end-of-run checks found it.
	Depth    int  `json:"depth"`
	Terminal bool `json:"terminal"`
	// Path is every step's Chooser answers (ReplayPath replays it).
	Path [][]int `json:"path"`
	// Restart, on a RESTART_INVISIBILITY violation, is the clean restart inserted into Path.
	Restart *Restart `json:"restart,omitempty"`
}

// String summarises a result on one line.
func (r Result) String() string {
	return fmt.Sprintf("%s: %d states, %d transitions, %d terminal states, max depth %d, %d violations",
		r.Verdict, r.States, r.Transitions, r.TerminalStates, r.MaxDepth, len(r.Violations))
}

// state is one explored state: a world, its ID stream, the budget it has spent and its depth.
type state struct {
	w     World
	ids   *rand.PCG
	spent spent
	depth int
}

// explorer is one search in progress.
type explorer struct {
	cfg     Config
	hasher  Hasher
	visited *visited.Set // made by start, when the depth bound is known
	res     Result
	found   map[violationKey]bool
	path    [][]int
	por     *SleepTable
	pers    Persistent
	stop    bool
	extra   []byte
	// free are released worlds to clone into, masks is the step's scratch (search_step.go).
	free  freeList
	masks []Mask
	// chooser, queue, arena and slots are eachSuccessor's reused storage (search_step.go);
	// actions the states' actions per depth, filters their persistent-set filters.
	chooser StepChooser
	queue   []span
	arena   []int
	slots   []*transition
	actions []*Actions
	filters []*Filter
	// offSettings are the settings of worlds that ran out of a budget (explorer.charge).
	offSettings settingsOff
	// split, in a sharded exploration's top phase, records the subtrees at its depth instead of
	// entering them (search_shard.go).
	split *split
	// par is the shared part of a parallel exploration, frames the states this worker is
	// expanding (search_parallel.go).
	par    *shared
	frames []frame
	// pathScript is the actions the steps of the path the search is on recorded, and
	// pathActions[d] how many of them the first d steps recorded (search_restart.go).
	pathScript  []spec.ScriptedAction
	pathActions []int
}

// violationKey is what a violation is reported once per.
type violationKey struct {
	crit spec.Criterion
	proc int
}

// Explore explores every schedule of the scope cfg describes and returns the result.
func Explore(cfg Config) Result {
	if cfg.Shards > 0 {
		return exploreShard(cfg)
	}
	if workers(cfg) > 1 {
		return exploreParallel(cfg)
	}
	x := newExplorer(cfg)
	res := x.run()
	x.visited.Free() // it may be a large mapping outside the Go heap
	return res
}

// run explores from the root and finishes the result.
func (x *explorer) run() Result {
	x.start()
	x.enterRoot()
	return x.finish()
}

// start prepares an exploration: the visited set.
func (x *explorer) start() {
	x.res.Complete = true
	x.visited = visited.New(x.bounded(), 0)
}

// finish completes the result: terminal states, verdict, completeness; and reports progress.
func (x *explorer) finish() Result {
	x.res.TerminalStates = len(x.res.terminals)
	x.res.Verdict = "pass"
	if len(x.res.Violations) > 0 {
		x.res.Verdict = "violation"
	}
	if x.stop && x.cfg.MaxStates > 0 && x.res.States >= x.cfg.MaxStates || x.res.DepthCut > 0 || x.res.Interrupted {
		x.res.Complete = false
	}
	if x.cfg.Progress != nil {
		x.cfg.Progress(x.res)
	}
	return x.res
}

// newExplorer returns a search of cfg, with its own hasher, persistent sets and sleep-set table.
func newExplorer(cfg Config) *explorer {
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = 1 << 16
	}
	x := &explorer{cfg: cfg, found: make(map[violationKey]bool), hasher: cfg.Hasher()}
	x.res.terminals = make(map[HashKey]struct{})
	if cfg.Sleep != nil {
		x.por = cfg.Sleep()
	}
	if cfg.Persistent != nil && !x.bounded() {
		x.pers = cfg.Persistent()
	}
	return x
}

// root builds the initial state: the world with every process started.
func (x *explorer) root() *state {
	w, ids := x.cfg.Root()
	return &state{w: w, ids: ids}
}

// enter visits state s reached at depth with sleep set sleep (a bitset of sleeping
// transitions, SleepTable).
//
// The state-caching correction: a state first visited with a larger sleep set than a later path
// to it has is expanded again for the transitions asleep then and awake now, and keeps the
// intersection, so every transition not asleep on some path to a state is explored from it.
func (x *explorer) enter(s *state, sleep uint64) {
	if x.stop {
		return
	}
	key := x.hash(s)
	if x.split.Cuts(s.depth) {
		x.split.Record(key, x.path, sleep)
		return
	}
	if x.par != nil {
		if x.par.Stopped() {
			x.stop = true
			return
		}
		only, expand, isNew := x.par.Visit(key, sleep, x.por != nil)
		if isNew {
			x.countState(s)
			if x.restartChecked(key) {
				x.checkRestartAt(s, key)
			}
		}
		if expand {
			x.expand(s, key, sleep, only)
		}
		return
	}
	v, seen := x.visited.Get(key)
	var only uint64 // on a revisit: the transitions to explore now (asleep before, awake now)
	switch {
	case !seen:
		x.visited.Put(key, visited.Visit{Sleep: sleep, Depth: int32(s.depth)})
		x.countState(s)
		if x.restartChecked(key) {
			x.checkRestartAt(s, key)
		}
	case x.bounded() && int32(s.depth) < v.Depth:
		x.visited.Put(key, visited.Visit{Sleep: sleep & v.Sleep, Depth: int32(s.depth)}) // reached shallower: expand again
	case x.por != nil && v.Sleep&^sleep != 0:
		only = v.Sleep &^ sleep
		x.visited.Put(key, visited.Visit{Sleep: sleep & v.Sleep, Depth: v.Depth})
	default:
		return
	}
	x.expand(s, key, sleep, only)
}

// countState counts a newly visited state and reports progress.
func (x *explorer) countState(s *state) {
	x.res.States++
	x.res.MaxDepth = max(x.res.MaxDepth, s.depth)
	if x.par != nil {
		x.par.Counted()
		return
	}
	if interrupted(x.cfg.Interrupt) {
		x.stop, x.res.Interrupted = true, true
	}
	if x.cfg.Progress != nil && x.res.States%x.cfg.ProgressEvery == 0 {
		x.cfg.Progress(x.res)
	}
	if x.cfg.MaxStates > 0 && x.res.States >= x.cfg.MaxStates {
		x.stop = true
	}
}

// hash returns s's canonical hash, spent budget included.
func (x *explorer) hash(s *state) HashKey {
	x.extra = s.spent.Append(x.extra[:0])
	return x.hasher.Hash(s.w, x.extra)
}

// expand computes s's transitions and enters each successor. only, when non-zero, restricts a
// revisit to those sleeping transitions.
func (x *explorer) expand(s *state, key HashKey, sleep, only uint64) {
	x.expandFrom(s, key, sleep, only, 0, nil)
}

// expandFrom is expand with done the local transitions already explored from s (it grows as
// transitions are explored: a later one's sleep set includes the earlier ones) and, when not nil,
// prefixes the Chooser answer prefixes still to run (a parallel exploration's shared work).
func (x *explorer) expandFrom(s *state, key HashKey, sleep, only, done uint64, prefixes [][]int) {
	enabled := x.anyEnabled(s)
	if prefixes == nil && (!enabled || (x.bounded() && s.depth >= x.cfg.MaxDepth)) {
		if only == 0 {
			if enabled {
				x.res.DepthCut++
			}
			x.terminal(s, key)
		}
		return
	}
	acts := x.actionsAt(s.depth) // filled by anyEnabled
	fi := -1                     // s's frame in a parallel exploration
	if x.par != nil {
		fi = len(x.frames)
		x.frames = append(x.frames, frame{depth: s.depth, qbase: len(x.queue), key: key, sleep: sleep, only: only})
		defer func() { x.frames = x.frames[:fi] }()
	}
	x.eachSuccessorFrom(s, acts, sleep, only, x.persistentFilter(s, acts), prefixes, func(t *transition) bool {
		x.res.Transitions++
		if x.noteViolations(t) {
			return true
		}
		if fi >= 0 {
			f := &x.frames[fi]
			f.done, f.cur = done, t.bit()
			if x.par.Wanted() {
				x.share()
			}
		}
		x.path = append(x.path, t.choices)
		x.pushPath(t.script)
		x.enter(&t.next, x.childSleep(sleep|done, t.id))
		x.popPath()
		x.path = x.path[:len(x.path)-1]
		done |= t.bit()
		return !x.stop && (fi < 0 || !x.frames[fi].given)
	})
}

// childSleep returns the sleep set of the state transition id leads to, given the sleep set of
// its source with every transition explored before it added (sleep).
func (x *explorer) childSleep(sleep uint64, id int) uint64 {
	if x.por == nil {
		return 0
	}
	return x.por.ChildSleep(sleep, id)
}

// persistentFilter returns the filter that restricts state s (whose actions are acts) to a
// persistent set, or nil to expand every enabled transition.
func (x *explorer) persistentFilter(s *state, acts *Actions) *Filter {
	if x.pers == nil {
		return nil
	}
	return x.pers.Filter(s.w, acts, x.filterAt(s.depth))
}

// filterAt returns the explorer's persistent-set filter for a state at depth d: one per depth, as
// a state's filter is used until its transitions are explored (and its weight buffer is reused).
func (x *explorer) filterAt(d int) *Filter {
	for len(x.filters) <= d {
		x.filters = append(x.filters, new(Filter))
	}
	return x.filters[d]
}

// terminal runs the end-of-run checks on terminal state s (consuming its world) and counts it.
func (x *explorer) terminal(s *state, key HashKey) {
	if _, ok := x.res.terminals[key]; ok {
		return
	}
	x.res.terminals[key] = struct{}{}
	w := s.w
	before := len(w.Violations())
	w.Finish()
	for _, v := range w.Violations()[before:] {
		x.report(v, true, nil)
	}
}

// noteViolations reports the violations transition t found and says whether it found any (a
// violating path is not continued).
func (x *explorer) noteViolations(t *transition) bool {
	before := t.violationsBefore
	vs := t.next.w.Violations()
	if len(vs) == before {
		return false
	}
	for _, v := range vs[before:] {
		x.report(v, false, t.choices)
	}
	return true
}

// report records violation v (once per criterion and process) with the current path (plus last,
// the step that found it, if any).
func (x *explorer) report(v spec.Violation, terminal bool, last []int) {
	k := violationKey{v.Criterion, v.Process}
	if x.found[k] {
		return
	}
	x.found[k] = true
	path := clonePath(x.path) // the path's answers live in reused storage (eachSuccessor)
	if last != nil {
		path = append(path, slices.Clone(last))
	}
	x.res.Violations = append(x.res.Violations, Violation{Criterion: v.Criterion, Process: v.Process,
		Detail: v.Detail, Depth: len(path), Terminal: terminal, Path: path})
	if x.cfg.StopAtFirst || (x.cfg.target != nil && *x.cfg.target == k) {
		x.stop = true
		if x.par != nil {
			x.par.Stop()
		}
	}
}

// bounded reports whether the exploration has a depth bound.
func (x *explorer) bounded() bool { return x.cfg.MaxDepth > 0 || x.cfg.depthZero }

package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/explore/visited"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Exhaustive exploration of a small scope. Depth-first over every answer the Chooser
// can give: a state is a world between two scheduler steps; its transitions are every complete
// sequence of decisions one step can make (which action, which process, which channel, offset,
// ...), enumerated by re-running the step on a clone of the world with a prefix of forced
// answers (explore_step.go). Durations, topic IDs and payloads come from their own streams and
// never branch: durations are constant, payloads constant, and topic IDs follow the seed's ID
// stream, cloned with each world, so a path's k-th incarnation has the ID a plain run of the
// same seed gives it.
//
// Deduplication: a state is expanded once per canonical hash (world_hash.go) plus the fault
// budget spent. Reduction: persistent (stubborn) sets, which expand only the transitions of a
// set of actors closed under dependency (explore_persistent.go), and sleep sets over independent
// transitions (explore_por.go), with the state-caching correction. Every terminal state — nothing enabled within the budget, or the
// depth bound reached — gets the checks a random run ends with: the liveness phase, LIVENESS at
// quiescence and lifetime S1; a sampled share of all states gets the restart check
// (explore_restart.go). Violations found on a transition are reported with the path that found
// them and stop that path; the shortest path to each is found by iterative deepening
// (explore_shortest.go).

// ExploreOptions configure one exploration.
type ExploreOptions struct {
	Budget       budget.Budget
	MaxDepth     int  // steps after the initial starts; 0 = unbounded (the budget bounds the scope)
	Reduce       bool // partial-order reduction: persistent sets and sleep sets
	Sabotage     node.Sabotage
	HostSabotage spec.HostSabotage
	// Seed draws the topic IDs (so the engines' channel order); 0 means 1.
	Seed uint64
	// LivenessStepsMax bounds the final phase at each terminal state; 0 means 1000.
	LivenessStepsMax int
	// HopsMax is the forwarding bound (Settings.ForwardHopsMax); 0 means 1.
	HopsMax int
	// Disabled lists criteria the oracle does not report, for tests only (RunOptions.Disabled).
	Disabled []spec.Criterion
	// NoRestartCheck switches the restart check at terminal states off (explore_restart.go), for
	// tests and to measure its cost.
	NoRestartCheck bool
	// VerifyHashCaches makes the state hasher recompute every digest it would take from a cache
	// (channel shadow logs, message contents, process, engine and committed-state encodings) and
	// panic when a cached one differs: a change to the world that did not clear a cache, which
	// would otherwise merge distinct states silently. Hashing is several times slower; the
	// exploration is the same.
	VerifyHashCaches bool
	// StopAtFirst ends the exploration at the first violation.
	StopAtFirst bool
	// MaxStates stops the exploration (Complete false) after this many states; 0 = no cap.
	MaxStates int
	// Shard of Shards (counting from 1; Shards 0: unsharded) explores one shard of the scope's
	// subtrees below SplitDepth (0: chosen), explore_shard.go.
	Shard, Shards, SplitDepth int
	// Workers is the number of goroutines exploring the scope together (explore_parallel.go); 0
	// or 1: one, on the caller's goroutine.
	Workers int
	// Interrupt, when closed, stops the exploration (Complete false, Interrupted true).
	Interrupt <-chan struct{}
	// Progress, when set, is called every ProgressEvery states (default 65536) and at the end.
	Progress      func(ExploreResult)
	ProgressEvery int

	hooks  *testHooks
	target *violationKey // stop at the first violation with this key (ShortestViolation)
	// sleepOnly switches persistent sets off (sleep sets only), for comparisons.
	sleepOnly bool
}

// ExploreResult is what an exploration found.
type ExploreResult struct {
	States         int `json:"states"`
	Transitions    int `json:"transitions"`
	TerminalStates int `json:"terminal_states"`
	// MaxDepth is the largest depth a state was first reached at (with several workers it may
	// differ from run to run, as Transitions may: explore_parallel.go).
	MaxDepth int `json:"max_depth"`
	// Complete says every schedule of the scope was explored: false when MaxStates stopped the
	// exploration, MaxDepth cut a path that could go on (DepthCut counts the states cut), or
	// Interrupt stopped it.
	Complete bool   `json:"complete"`
	DepthCut int    `json:"depth_cut,omitempty"`
	Verdict  string `json:"verdict"`
	// RestartChecks counts the states checked for RESTART_INVISIBILITY (explore_restart.go).
	RestartChecks int `json:"restart_checks"`
	// Violations lists one entry per (criterion, process) found: in the order found by one
	// worker, sorted by criterion and process by several (explore_parallel.go).
	Violations []ExploreViolation `json:"violations"`
	// Interrupted says Interrupt stopped the exploration; Workers is how many explored it
	// when more than one did.
	Interrupted bool `json:"interrupted,omitempty"`
	Workers     int  `json:"workers,omitempty"`
	// SplitDepth, Subtrees and OwnSubtrees describe a sharded exploration (explore_shard.go): the
	// depth of the subtrees dealt to shards, their number, and how many this shard explored.
	SplitDepth  int `json:"split_depth,omitempty"`
	Subtrees    int `json:"subtrees,omitempty"`
	OwnSubtrees int `json:"own_subtrees,omitempty"`
	// terminals are the distinct terminal states' hashes (for the reduction test); termsAlso
	// the same states under explorer.termHasher.
	terminals, termsAlso map[hashKey]struct{}
	// shared counts the work items a parallel exploration's workers gave each other.
	shared int
	// restartFailures counts the restart checks that found a violation (explore_restart.go).
	restartFailures int
}

// ExploreViolation is one violation and a path to it.
type ExploreViolation struct {
	Criterion spec.Criterion `json:"criterion"`
	Process   int            `json:"process"`
	Detail    string         `json:"detail"`
	// Depth is the number of steps of Path; Terminal says the end-of-run checks found it.
	Depth    int  `json:"depth"`
	Terminal bool `json:"terminal"`
	// Path is every step's Chooser answers (ReplayPath replays it).
	Path [][]int `json:"path"`
	// Restart, on a RESTART_INVISIBILITY violation, is the clean restart inserted into Path.
	Restart *ExploreRestart `json:"restart,omitempty"`
}

// exState is one explored state: a world, its ID stream, the budget it has spent and its depth.
type exState struct {
	w     explore.World
	ids   *rand.PCG
	spent explore.Spent
	depth int
}

// explorer is one exploration in progress.
type explorer struct {
	scn     *spec.Scenario
	opts    ExploreOptions
	set     swarm.Settings
	hasher  explore.Hasher
	visited *visited.Set // made by run, when the depth bound is known
	// mirror, when not nil, is given every visit the visited set is given (a test compares two
	// explorations' visits with it).
	mirror map[hashKey]visited.Visit
	res    ExploreResult
	found  map[violationKey]bool
	path   [][]int
	por    *explore.SleepTable
	pers   explore.Persistent
	stop   bool
	extra  []byte
	// free are released worlds to clone into, keepWorlds switches releasing off, masks is the
	// step's scratch (explore_step.go).
	free       explore.FreeList
	keepWorlds bool
	masks      []explore.Mask
	// chooser, queue, arena and slots are eachSuccessor's reused storage (explore_step.go);
	// actions the states' actions per depth (explore_choose.go).
	chooser explore.StepChooser
	queue   []span
	arena   []int
	slots   []*transition
	actions []*explore.Actions
	// filters are the persistent-set filters per depth.
	filters []*explore.Filter
	// offSettings are the settings of worlds that ran out of a budget (explorer.charge).
	offSettings explore.SettingsOff
	// maxDepthZero makes depth 0 the bound (MaxDepth 0 means unbounded).
	maxDepthZero bool
	// termHasher, when set, also hashes every terminal state into res.termsAlso (for tests).
	termHasher explore.Hasher
	// split, in a sharded exploration's top phase, records the subtrees at its depth instead of
	// entering them (explore_shard.go).
	split *explore.Split
	// par is the shared part of a parallel exploration, frames the states this worker is
	// expanding (explore_parallel.go).
	par    *explore.Shared
	frames []exploreFrame
	// pathScript is the actions the steps of the path the search is on recorded, and
	// pathActions[d] how many of them the first d steps recorded (explore_restart.go).
	pathScript  []spec.ScriptedAction
	pathActions []int
	// restartOn says the restart check runs (explore_restart.go).
	restartOn bool
}

type violationKey struct {
	crit spec.Criterion
	proc int
}

// Explore explores every schedule of scn within opts and returns the result.
func Explore(scn *spec.Scenario, opts ExploreOptions) ExploreResult {
	if err := scn.Validate(); err != nil {
		panic("sim: " + err.Error())
	}
	if opts.Shards > 0 {
		return exploreShard(scn, opts)
	}
	if exploreWorkers(scn, opts) > 1 {
		return exploreParallel(scn, opts)
	}
	x := newExplorer(scn, opts)
	res := x.run()
	x.visited.Free() // it may be a large mapping outside the Go heap
	return res
}

// run explores from the root and finishes the result.
func (x *explorer) run() ExploreResult {
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
func (x *explorer) finish() ExploreResult {
	opts := x.opts
	x.res.TerminalStates = len(x.res.terminals)
	x.res.Verdict = "pass"
	if len(x.res.Violations) > 0 {
		x.res.Verdict = "violation"
	}
	if x.stop && x.opts.MaxStates > 0 && x.res.States >= x.opts.MaxStates || x.res.DepthCut > 0 || x.res.Interrupted {
		x.res.Complete = false
	}
	if opts.Progress != nil {
		opts.Progress(x.res)
	}
	return x.res
}

func newExplorer(scn *spec.Scenario, opts ExploreOptions) *explorer {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.LivenessStepsMax == 0 {
		opts.LivenessStepsMax = 1000
	}
	if opts.ProgressEvery == 0 {
		opts.ProgressEvery = 1 << 16
	}
	x := &explorer{scn: scn, opts: opts, set: ExploreSettings(opts),
		found:     make(map[violationKey]bool),
		restartOn: !opts.NoRestartCheck && !slices.Contains(opts.Disabled, spec.CritRestartInvisibility)}
	x.res.terminals, x.res.termsAlso = make(map[hashKey]struct{}), make(map[hashKey]struct{})
	x.hasher = newStateHasher(&x.set, opts.VerifyHashCaches)
	if opts.Reduce {
		x.por = explore.NewSleepTable(scn, &x.set)
		if ps := newPersistentSets(scn, &x.set, opts); ps != nil && !opts.sleepOnly {
			x.pers = ps // not a nil *persistentSets: nil means none
		}
	}
	return x
}

// ExploreSettings are the run settings an exploration uses (and a reproduction must use):
// every kind the budget allows on, constant durations, the seed, the liveness budget and hop
// bound. With a retention budget, external topics keep their newest exploreRetentionRecords
// records when a retention sweep runs (a size policy: with constant durations a time policy
// would only say the same in microseconds); without one there is no retention policy.
func ExploreSettings(opts ExploreOptions) swarm.Settings {
	set := swarm.Settings{Seed: max(opts.Seed, 1), LivenessStepsMax: opts.LivenessStepsMax, ForwardHopsMax: max(opts.HopsMax, 1)}
	if set.LivenessStepsMax == 0 {
		set.LivenessStepsMax = 1000
	}
	if opts.Budget.Allows(spec.ActRetention) {
		set.RetentionRecords = exploreRetentionRecords
	}
	for k := range spec.NumActionKinds {
		if opts.Budget.Allows(spec.ActionKind(k)) {
			set.Weights[k] = 1
		}
		set.DurationMicros[k] = swarm.Range{Min: exploreStepMicros, Max: exploreStepMicros}
	}
	return set
}

// exploreRetentionRecords is the size retention of external topics in an exploration with a
// retention budget: a sweep drops every record but the newest of each partition, so a receiver
// behind the newest record finds its next record gone.
const exploreRetentionRecords = 1

// exploreStepMicros is every action's virtual duration in an exploration.
const exploreStepMicros = 100

// constSource is the payload and durations stream of an exploration: every bounded draw is zero,
// so every external record carries the same bytes and a transaction writes one record, whatever
// the order. Its word is constWord, not 0: math/rand/v2 draws a bound n that is not a power of
// two by Lemire's method, which rejects a word w whose low product w*n mod 2^64 falls below
// 2^64 mod n and draws again, so an all-zero source made IntN(3) (an aborted transaction's record
// count) loop forever. constWord*n < 2^64 for every n below 2^24, so the draw is 0 and never
// rejected, and its low 40 bits (the bytes world.payload takes) are zero, as 0's were.
type constSource struct{}

// constWord is every word constSource returns (see there).
const constWord = 1 << 40

func (constSource) Uint64() uint64 { return constWord }

// exploreStreams returns the data streams of an exploration, and the ID stream's PCG (cloned with
// every world). An explored corrupt produce draws nothing from its stream (drawCorruption).
func exploreStreams(seed uint64) (Streams, *rand.PCG) {
	ids := rand.NewPCG(seed, idsStream)
	return Streams{Durations: rand.New(constSource{}), IDs: rand.New(ids), Payloads: rand.New(constSource{}),
		Corruptions: rand.New(constSource{})}, ids
}

// root builds the initial state: the world with every process started, as Run begins.
func (x *explorer) root() *exState {
	streams, ids := exploreStreams(x.set.Seed)
	opts := &RunOptions{Sabotage: x.opts.Sabotage, HostSabotage: x.opts.HostSabotage, Streams: streams,
		RecordScript: true, explored: true, hooks: x.opts.hooks, Disabled: x.opts.Disabled}
	set := x.set
	return &exState{w: newExploredWorld(x.scn, &set, opts), ids: ids}
}

// enter visits state s reached at depth with sleep set sleep (a bitset of sleeping
// transitions, explore_por.go).
func (x *explorer) enter(s *exState, sleep uint64) {
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
		x.visit(key, visited.Visit{Sleep: sleep, Depth: int32(s.depth)})
		x.countState(s)
		if x.restartChecked(key) {
			x.checkRestartAt(s, key)
		}
	case x.bounded() && int32(s.depth) < v.Depth:
		x.visit(key, visited.Visit{Sleep: sleep & v.Sleep, Depth: int32(s.depth)}) // reached shallower: expand again
	case x.por != nil && v.Sleep&^sleep != 0:
		only = v.Sleep &^ sleep
		x.visit(key, visited.Visit{Sleep: sleep & v.Sleep, Depth: v.Depth})
	default:
		return
	}
	x.expand(s, key, sleep, only)
}

// visit records v as the visit of the state whose hash is key.
func (x *explorer) visit(key hashKey, v visited.Visit) {
	x.visited.Put(key, v)
	if x.mirror != nil {
		x.mirror[key] = v
	}
}

// countState counts a newly visited state and reports progress.
func (x *explorer) countState(s *exState) {
	x.res.States++
	x.res.MaxDepth = max(x.res.MaxDepth, s.depth)
	if x.par != nil {
		x.par.Counted()
		return
	}
	if explore.Interrupted(x.opts.Interrupt) {
		x.stop, x.res.Interrupted = true, true
	}
	if x.opts.Progress != nil && x.res.States%x.opts.ProgressEvery == 0 {
		x.opts.Progress(x.res)
	}
	if x.opts.MaxStates > 0 && x.res.States >= x.opts.MaxStates {
		x.stop = true
	}
}

// hash returns s's canonical hash, spent budget included.
func (x *explorer) hash(s *exState) hashKey {
	x.extra = s.spent.Append(x.extra[:0])
	return x.hasher.Hash(s.w, x.extra)
}

// expand computes s's transitions and enters each successor. only, when non-zero, restricts a
// revisit to those sleeping transitions.
func (x *explorer) expand(s *exState, key hashKey, sleep, only uint64) {
	x.expandFrom(s, key, sleep, only, 0, nil)
}

// expandFrom is expand with done the local transitions already explored from s (it grows as
// transitions are explored: a later one's sleep set includes the earlier ones) and, when not nil,
// prefixes the Chooser answer prefixes still to run (a parallel exploration's shared work).
func (x *explorer) expandFrom(s *exState, key hashKey, sleep, only, done uint64, prefixes [][]int) {
	enabled := x.anyEnabled(s)
	if prefixes == nil && (!enabled || (x.bounded() && s.depth >= x.opts.MaxDepth)) {
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
		x.frames = append(x.frames, exploreFrame{depth: s.depth, qbase: len(x.queue), key: key, sleep: sleep, only: only})
		defer func() { x.frames = x.frames[:fi] }()
	}
	x.eachSuccessorFrom(s, acts, sleep, only, x.persistentFilter(s, acts), prefixes, func(t *transition) bool {
		x.res.Transitions++
		if x.noteViolations(s, t) {
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

// terminal runs the end-of-run checks on terminal state s (consuming its world) and counts it.
func (x *explorer) terminal(s *exState, key hashKey) {
	if _, ok := x.res.terminals[key]; ok {
		return
	}
	x.res.terminals[key] = struct{}{}
	if x.termHasher != nil {
		x.extra = s.spent.Append(x.extra[:0])
		x.res.termsAlso[x.termHasher.Hash(s.w, x.extra)] = struct{}{}
	}
	w := s.w
	before := len(w.Violations())
	w.Finish()
	for _, v := range w.Violations()[before:] {
		x.report(v, true, nil)
	}
}

// noteViolations reports the violations transition t found and says whether it found any (a
// violating path is not continued).
func (x *explorer) noteViolations(s *exState, t *transition) bool {
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
	path := slices.Clone(x.path)
	for i := range path {
		path[i] = slices.Clone(path[i]) // the path's answers live in reused storage (eachSuccessor)
	}
	if last != nil {
		path = append(path, slices.Clone(last))
	}
	x.res.Violations = append(x.res.Violations, ExploreViolation{Criterion: v.Criterion, Process: v.Process,
		Detail: v.Detail, Depth: len(path), Terminal: terminal, Path: path})
	if x.opts.StopAtFirst || (x.opts.target != nil && *x.opts.target == k) {
		x.stop = true
		if x.par != nil {
			x.par.Stop()
		}
	}
}

// String summarises a result on one line.
func (r ExploreResult) String() string {
	return fmt.Sprintf("%s: %d states, %d transitions, %d terminal states, max depth %d, %d violations",
		r.Verdict, r.States, r.Transitions, r.TerminalStates, r.MaxDepth, len(r.Violations))
}

// bounded reports whether the exploration has a depth bound.
func (x *explorer) bounded() bool { return x.opts.MaxDepth > 0 || x.maxDepthZero }

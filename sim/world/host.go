package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/chanindex"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// The host: one Kafka-Streams-like task per process (DESIGN "host model", SPEC §6.1 H1–H6).
//
// A step fetches records read_committed from the received channels in order (one per feed
// action), feeds them to the engine, drains what is deliverable, hands deliveries to application
// logic and stamps each emission with the engine's frontier (a transactional produce), and
// commits atomically: the engine's ordering-state delta, the transaction with its emissions and
// the consumed read positions. A crash rolls all of the step back; a stop commits and closes; a
// start is full initialisation from committed state with start positions = committed read
// positions, then the identity report. A superseded execution (zombie) never commits: its
// transactional producer is fenced.
//
// H1 holds because each channel is fetched from a working position that only moves forward
// within an execution; H2 because start positions are the committed group offsets (coverage + 1
// or the log start when none); H3 because the delta is applied only after the substrate
// transaction committed; H4 because every start builds a fresh engine with node.Start; H5 because
// a crash discards the working positions and the next start resumes from the committed ones; H6
// because InitTransactions fences the previous epoch. The HOST checker verifies them from outside.

// procStatus is a process's lifecycle state.
type procStatus uint8

const (
	procDown    procStatus = iota // never started, stopped or crashed
	procRunning                   // an execution is live
	procFailed                    // failed closed: never restarted (an operator would have to act)
)

// proc is one process: its declaration, its host state and its oracle.
type proc struct {
	w     *World
	idx   int
	spec  *spec.ProcessSpec
	group string // consumer group = application.id
	txnID string

	sends    []int // topic indexes the process sends to
	declared []int // topic indexes currently declared received, sorted
	// resolved maps a declared topic to the incarnation resolved at the last full start: a task
	// re-initialisation keeps it (as Kafka Streams keeps the IDs resolved at application start).
	resolved map[int]int32
	// everResolved marks every topic the process ever resolved (the refusal ledger's view of
	// which recreations may change an identity it recorded).
	everResolved map[int]bool
	// resolvedDigest caches the digest of resolved and everResolved's canonical encoding
	// (package canon); 0: stale. Whatever replaces the maps clears it.
	resolvedDigest uint64

	status    procStatus
	committed *node.State
	// committedShared says committed is shared with an engine journal or a cloned world, so it
	// is cloned before the next delta is applied (copy-on-write; world_clone.go).
	committedShared bool
	eng             *engineRef
	// engStore is the storage of eng after own copies it (so the copy costs no allocation), then
	// the engine the next start builds in, and started the last start's reference (deadEngine). A
	// cloned shell reads the eng it was given, its original's, until it owns its state.
	engStore  engineRef
	started   *startedEngine
	execution int
	txn       substrate.TxnProducer
	txnOpen   bool
	// recv are the current execution's received channels, sorted by channel index.
	recv []*pcState
	// pcs is every channel the process ever received, lifetime, by channel index.
	pcs chanindex.Index[pcState]

	stepDirty  bool // the current step has work a commit would persist
	drainable  bool // something was fed or restored since the last drain
	stepChans  []int32
	workMark   uint64
	fetchBuf   []substrate.FetchedRecord
	refusalWhy string

	o oracle.Proc
	// ref is the process's reference node, in lockstep with its engine (oracle.Reference).
	ref oracle.Reference
	// share is the copy-on-write state and cached hash of an explored process (world_clone.go).
	share procShare
	// store is storage this process shell allocated when it owned its state in an earlier world,
	// reused by own (world_clone.go); nil until first needed. Never shared with another shell (a
	// pointer, so cloning a shell does not copy it).
	store *procStore
}

// pcState is the host's read state of one (process, channel) pair for the current execution.
// The oracle keeps its own view of the pair (package oracle, chan.go).
type pcState struct {
	ch           int32
	received     bool  // in the current execution's received set
	readPos      int64 // next offset to fetch
	lastFed      int64 // last position fed this execution (startPos-1 before the first)
	startPos     int64
	committedPos int64 // the committed group offset as the host last wrote or read it; -1 none
}

func newProc(w *World, i int) *proc {
	spec := &w.scn.Processes[i]
	p := &proc{
		w: w, idx: i, spec: spec,
		group:        "app-" + spec.Name,
		txnID:        "txn-" + spec.Name,
		sends:        w.sortedTopicsOf(spec.Sends),
		declared:     w.sortedTopicsOf(spec.Receives),
		resolved:     make(map[int]int32),
		everResolved: make(map[int]bool),
		o:            oracle.NewProc(i),
		ref:          oracle.NewReference(i),
	}
	w.or.SetProc(i, &p.o)
	for _, t := range p.declared {
		w.declarers.Add(t, int32(i))
	}
	return p
}

// pc returns the lifetime state of channel c, creating it.
func (p *proc) pc(c int32) *pcState {
	s := p.pcs.At(c)
	if s == nil {
		s = &pcState{ch: c, committedPos: -1}
		p.pcs.Insert(c, s)
		p.w.readers.Add(int(c), int32(p.idx))
	}
	return s
}

// hopsMax is the forwarding bound in force for this process.
func (p *proc) hopsMax() int {
	switch {
	case p.spec.HopsMax > 0:
		return p.spec.HopsMax
	case p.w.set.ForwardHopsMax > 0:
		return p.w.set.ForwardHopsMax
	}
	return 1
}

// feedable reports whether channel pc has something at or past its read position to fetch.
func (p *proc) feedable(pc *pcState) bool {
	return p.w.alive(pc.ch) && pc.readPos < p.w.chans[pc.ch].lso
}

// anyFeedable reports whether some received channel is feedable.
func (p *proc) anyFeedable() bool {
	if p.status != procRunning {
		return false
	}
	for _, pc := range p.recv {
		if p.feedable(pc) {
			return true
		}
	}
	return false
}

// declares reports whether topic t is in the current declaration.
func (p *proc) declares(t int) bool {
	_, ok := slices.BinarySearch(p.declared, t)
	return ok
}

// chargeWork adds the engine work done since the last charge to the virtual clock.
func (p *proc) chargeWork() {
	if p.eng == nil {
		return
	}
	units := workUnits(p.eng.Counters())
	if units > p.workMark {
		p.w.clock.ChargeWork(units - p.workMark)
	}
	p.workMark = units
}

// workUnits sums the engine's deterministic work counters into one figure.
func workUnits(c node.Counters) uint64 {
	return c.HeadsOffered + c.CausesCompared + c.CausesMerged + c.HoldsAdded + c.HoldsRemoved +
		(c.HeaderBytesDecoded+c.HeaderBytesEncoded)/64
}

package world

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/chanindex"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/targets"
	"github.com/parsleysim/parsleysim/sim/tiers"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/sim/vclock"
	"github.com/parsleysim/parsleysim/sim/world/shape"
	"github.com/parsleysim/parsleysim/sim/world/streams"
	"github.com/parsleysim/parsleysim/substrate"
)

// World is one run's simulated universe: the substrate model, the topics and their incarnations,
// the processes with their hosts and engines, the oracle (its model of the world, with the
// message table and every channel's shadow log, its view of each process, the violations it
// found), the clock and the stats.
//
// Indexes, not pointers, name things across the world: a topic by its scenario index, an
// incarnation by creation order (the substrate's incarnation number), a channel by its index in
// chans, a message by its uid (index in the oracle's message table plus one; 0 means "no message").
type World struct {
	scn     *spec.Scenario
	set     *swarm.Settings
	opts    *RunOptions
	chooser *choose.Recorder
	// sub is the world's Kafka; model is sub when that is the model (else nil), for the model's own calls.
	sub     substrate.Substrate
	model   *substrate.Model
	streams streams.Streams
	clock   vclock.Clock
	budget  int // metadata budget handed to every engine (0 = node default)

	topics      []topicState
	topicByName map[string]int
	incs        []incarnation
	chans       []channel

	procs []*proc
	// or is the oracle's model of the world: the message table and its model of every channel's
	// log (package oracle), which the world tells what happens to them.
	or oracle.Oracle

	// recent holds the uids of the latest committed records (a ring), the candidates a stamped
	// external producer observes.
	recent  [recentRing]uint64
	recentN int

	ext extProducers
	// sess is the session clients, tiers and projections (package tiers); nil without sessions.
	sess *tiers.Actors

	step     int
	action   spec.ActionKind
	liveness bool // the final phase: faults off
	stats    spec.Stats
	// refusalsShared says stats.Refusals is shared copy-on-write with a clone's (world_clone.go):
	// countRefusal copies it before its first count.
	refusalsShared bool

	tracing   bool
	ev        trace.Event
	hooks     *testHooks
	weights   choose.Weights          // reused weight lists for target choices
	offsetBuf []int64                 // reused buffer of shape.TruncationOffsets
	procBuf   []*proc                 // reused buffer of rollbackReceivers
	groupBuf  []substrate.GroupOffset // reused buffer of proc.committedOffsets and commitSequence
	kinds     shape.Kinds             // reused list of the action choice
	// externals counts the scenario's external topics, liveExternals those live now.
	externals, liveExternals int
	// readers (per channel: the processes with a host state for it, proc.pcs), declarers and
	// topicIncs (per topic: the processes declaring it, its incarnations) are what the target
	// choices (world_targets.go) visit instead of every process.
	readers, declarers, topicIncs chanindex.Sets
	script                        []spec.ScriptedAction
	// idsPCG is a cloned world's own copy of the ID stream, drawn through idsRand and idsFn, which
	// point at it (World.bindIDs); unset in a world that was never cloned into.
	idsPCG  rand.PCG
	idsRand *rand.Rand
	idsFn   func() substrate.TopicID
	// commitCrashPCG draws which scheduled crashes land inside a commit, and where
	// (Settings.CommitCrashPct; seeded at the first draw, commitCrashSeeded). A value, so a clone
	// draws on from its own copy.
	commitCrashPCG    rand.PCG
	commitCrashSeeded bool
	// targets is faultHasTarget's and the masks' memo, built at the first question; a clone builds
	// its own.
	targets *targets.Memo
	// identity is identityReport's last answer, for the incarnation and death counts it holds
	// at; a clone shares it (the lists are never changed, only replaced).
	identity struct {
		at              [2]int
		dead, recreated []node.TopicID
	}
	deaths int // incarnations that died (deleted, or replaced by a recreation): identityReport's key
}

const recentRing = 16

// topicState is one scenario topic and its current incarnation.
type topicState struct {
	spec *spec.TopicSpec
	inc  int32 // current live incarnation, -1 while deleted
	// senders are the processes that send to it (fixed by the scenario).
	senders []int
}

// incarnation is one topic ID a topic name was bound to.
type incarnation struct {
	topic     int
	id        substrate.TopicID
	firstChan int32 // channel index of partition 0; partitions are consecutive
	parts     int
	alive     bool
}

// recreated reports whether incarnation inc is dead and its name is bound to another
// incarnation now (what the substrate describes as TopicRecreated).
func (w *World) recreated(inc int32) bool {
	in := &w.incs[inc]
	cur := w.topics[in.topic].inc
	return !in.alive && cur >= 0 && cur != inc
}

// channel is one partition of one incarnation (its log, as the oracle models it, is
// oracle.Oracle.Slots).
type channel struct {
	inc   int32
	topic int
	part  int32
	tp    substrate.TopicPartition
	nc    node.Channel
	// lso mirrors the substrate's last stable offset, refreshed after every operation that can
	// move it; feeding is enabled below it.
	lso int64
	// offs mirrors the model's offsets of the channel (World.offsets; refreshLSO, logMoved).
	offs substrate.Offsets
}

// newWorld builds the world of a scenario: the model with every topic created (incarnation 0 of
// each), retention set on external topics, and one host per process.
func newWorld(scn *spec.Scenario, set *swarm.Settings, ch choose.Chooser, opts *RunOptions) *World {
	ds := opts.streams
	if ds.IsZero() {
		ds = streams.New(set.Seed)
	}
	w := &World{
		scn: scn, set: set, opts: opts, streams: ds,
		chooser:     choose.NewRecorder(ch),
		clock:       vclock.New(set, ds.Durations),
		budget:      set.MetadataBudget(scn.MetadataBudgetBytes),
		topicByName: make(map[string]int, len(scn.Topics)),
		tracing:     len(opts.Sinks) > 0,
	}
	if opts.Substrate != nil {
		w.sub = opts.Substrate(ds.TopicIDs(), func() int { return w.step })
	} else {
		w.model = substrate.NewModel(ds.TopicIDs())
		w.sub = w.model
	}
	if opts.explored { // clones share the sets by value
		w.readers, w.declarers, w.topicIncs = chanindex.Persistent(), chanindex.Persistent(), chanindex.Persistent()
	}
	w.topics = make([]topicState, len(scn.Topics))
	names := make([]string, len(scn.Topics))
	for i := range scn.Topics {
		names[i] = scn.Topics[i].Name
		w.topics[i] = topicState{spec: &scn.Topics[i], inc: -1}
		w.topicByName[scn.Topics[i].Name] = i
		if scn.Topics[i].External {
			w.externals++
		}
	}
	disabled := opts.Disabled
	if opts.noReference {
		disabled = append(slices.Clip(disabled), spec.CritReference)
	}
	w.or = oracle.New(names, disabled, w.budget)
	w.or.SetReporter(w)
	for i := range scn.Topics {
		w.createIncarnation(i)
	}
	w.procs = make([]*proc, len(scn.Processes))
	for i := range scn.Processes {
		w.procs[i] = newProc(w, i)
		for _, t := range w.procs[i].sends {
			w.topics[t].senders = append(w.topics[t].senders, i)
		}
	}
	w.ext.init(w)
	w.sess = newSessions(w)
	return w
}

// createIncarnation creates (or creates again) topic t on the substrate with a fresh ID and
// registers its channels.
func (w *World) createIncarnation(t int) int32 {
	ts := w.topics[t].spec
	var id substrate.TopicID
	var err error
	if w.topics[t].inc >= 0 {
		id, err = w.sub.RecreateTopic(ts.Name)
		old := &w.incs[w.topics[t].inc]
		old.alive = false
		w.deaths++
		w.or.OnIncarnationDead(old.firstChan, old.parts)
	} else {
		id, err = w.sub.CreateTopic(ts.Name, ts.Partitions)
	}
	if err != nil {
		panic(fmt.Sprintf("world: creating topic %q: %v", ts.Name, err))
	}
	inc := int32(len(w.incs))
	w.incs = append(w.incs, incarnation{topic: t, id: id, firstChan: int32(len(w.chans)), parts: ts.Partitions, alive: true})
	for p := range ts.Partitions {
		c := channel{inc: inc, topic: t, part: int32(p),
			tp: substrate.TopicPartition{Topic: id, Partition: substrate.Partition(p)},
			nc: node.Channel{Topic: node.TopicID(id), Partition: node.Partition(p)}}
		w.or.OnChannelCreated(int32(len(w.chans)), c.nc, t, inc, int32(p))
		w.chans = append(w.chans, c)
	}
	if ts.External && w.topics[t].inc < 0 {
		w.liveExternals++
	}
	w.topics[t].inc = inc
	w.topicIncs.Add(t, inc)
	if ts.External && !ts.Spares(spec.ActRetention) && (w.set.RetentionMicros > 0 || w.set.RetentionRecords > 0) {
		pol := substrate.RetentionPolicy{TimeMicros: w.set.RetentionMicros, MaxOffsets: int64(w.set.RetentionRecords)}
		if err := w.sub.SetRetention(ts.Name, pol); err != nil {
			panic(fmt.Sprintf("world: retention on %q: %v", ts.Name, err))
		}
	}
	return inc
}

// chanOf returns channel i of incarnation inc's partition part, or -1 if it has no such partition.
func (w *World) chanOf(inc int32, part int) int32 {
	in := &w.incs[inc]
	if part < 0 || part >= in.parts {
		return -1
	}
	return in.firstChan + int32(part)
}

// alive reports whether channel c's incarnation is live.
func (w *World) alive(c int32) bool { return w.incs[w.chans[c].inc].alive }

// refreshLSO re-reads live channel c's offsets (and LSO) from the substrate.
func (w *World) refreshLSO(c int32) {
	ch := &w.chans[c]
	if !w.incs[ch.inc].alive {
		w.logMoved(c)
		return
	}
	offs := w.listOffsets(c)
	ch.lso, ch.offs = int64(offs.LastStable), offs
	w.staleChannelTargets(c)
	w.or.OnLogMoved(c, int64(offs.LogStart), int64(offs.HighWatermark))
}

// logMoved re-reads channel c's mirror where refreshLSO comes later or never: a record of an
// open transaction, a fence. For a dead c it is the same partition of the name's current
// incarnation, where a transaction that wrote to c puts its marker (substrate.Model's endTxn).
func (w *World) logMoved(c int32) {
	ch := &w.chans[c]
	if cur := w.topics[ch.topic].inc; !w.incs[ch.inc].alive && cur >= 0 {
		c = w.chanOf(cur, int(ch.part))
	}
	if w.model != nil && c >= 0 && w.alive(c) {
		w.chans[c].offs = w.listOffsets(c)
	}
}

// offsets returns the substrate's offsets of a live channel (on the model, its mirror).
func (w *World) offsets(c int32) substrate.Offsets {
	if w.model != nil {
		return w.chans[c].offs
	}
	return w.listOffsets(c)
}

// listOffsets asks the substrate for the offsets of live channel c.
func (w *World) listOffsets(c int32) substrate.Offsets {
	offs, err := w.sub.ListOffsets(w.chans[c].tp)
	if err != nil {
		panic(fmt.Sprintf("world: list offsets of %s: %v", w.chanName(c), err))
	}
	return offs
}

// appendCommittedOffsets appends group's committed offsets to dst (on the model, in place).
func (w *World) appendCommittedOffsets(dst []substrate.GroupOffset, group string) []substrate.GroupOffset {
	if w.model != nil {
		return w.model.AppendCommittedOffsets(dst, group)
	}
	offs, err := w.sub.CommittedOffsets(group)
	must(err)
	return append(dst, offs...)
}

// noteCommitted remembers a newly committed record as a candidate for stamped observers.
func (w *World) noteCommitted(uid uint64) {
	w.recent[w.recentN%recentRing] = uid
	w.recentN++
}

// at dates an event for the oracle: the step and the virtual time now.
func (w *World) at() oracle.At { return oracle.At{Step: w.step, Micros: w.clock.Now()} }

// ReportViolation implements oracle.Reporter: a violation goes to the trace as it is found.
func (w *World) ReportViolation(proc int, text string) {
	if w.tracing {
		w.emitRaw("violation", proc, text)
	}
}

// chanName renders a channel as topic#incarnation/partition.
func (w *World) chanName(c int32) string { return w.or.ChanName(c) }

// nodeChan maps a node channel to the world's channel index, or -1 if the world never created it.
func (w *World) nodeChan(nc node.Channel) int32 { return w.or.NodeChan(nc) }

// sortedTopicsOf returns topic indexes for names (unknown names dropped), sorted.
func (w *World) sortedTopicsOf(names []string) []int {
	out := make([]int, 0, len(names))
	for _, n := range names {
		if t, ok := w.topicByName[n]; ok {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

package world

import (
	"fmt"
	"maps"
	"slices"

	"github.com/parsleysim/parsleysim/node/statecodec"
	"github.com/parsleysim/parsleysim/substrate"
)

// deleteRecords raises channel c's log start to before.
func (w *World) deleteRecords(c int32, before int64) {
	must(w.sub.DeleteRecords(w.chans[c].tp, substrate.Offset(before)))
	w.refreshLSO(c)
	w.stats.Truncations++
	if w.tracing {
		w.emitChan("truncated", nil, c, before, 0, "")
	}
}

// retention advances the substrate's clock to now, which enforces every retention policy.
func (w *World) retention() {
	must(w.sub.AdvanceClock(w.clock.Now()))
	for i := range w.chans {
		if w.alive(int32(i)) && w.topics[w.chans[i].topic].spec.External {
			w.refreshLSO(int32(i))
		}
	}
	w.stats.Retentions++
	w.emitRaw("retention", -1, "")
}

// deleteTopic deletes external topic t and re-initialises its running receivers (as Kafka Streams
// re-creates the task). Processes holding messages from it (in committed history: the receivers'
// steps roll back first) are entitled to refuse.
func (w *World) deleteTopic(t int) {
	inc := w.topics[t].inc
	affected := w.rollbackReceivers(t, inc)
	w.noteDeleted(inc, false)
	must(w.sub.DeleteTopic(w.topics[t].spec.Name))
	w.incs[inc].alive = false
	w.deaths++
	w.or.OnIncarnationDead(w.incs[inc].firstChan, w.incs[inc].parts)
	w.topics[t].inc = -1
	w.liveExternals--
	w.stats.Deletions++
	if w.tracing { // the detail is formatted only for a trace
		w.emitRaw("deleted", -1, fmt.Sprintf("%s#%d", w.topics[t].spec.Name, inc))
	}
	w.restart(affected)
}

// ownTopicReaders is proc.own for every process with a channel state on a channel of topic t, any
// incarnation: the only processes deleting t can change. Its running receivers roll back and
// restart, those holding its messages are marked, and the group offsets the substrate drops with it
// were committed on received channels; a process without such a channel state keeps sharing its
// state and its cached hash. With sessions every process is owned (their actors read the engines).
func (w *World) ownTopicReaders(t int) {
	if w.sess != nil {
		w.ownAll()
		return
	}
	for _, p := range w.procs {
		for _, pc := range p.pcs.Values() {
			if w.chans[pc.ch].topic == t {
				p.own()
				break
			}
		}
	}
}

// recreateTopic deletes (if live) and creates external topic t again under a new ID. Every
// process that ever resolved the name is entitled to refuse CHANNEL_IDENTITY_CHANGED, and its
// running receivers of any earlier incarnation are re-initialised.
func (w *World) recreateTopic(t int) {
	old := w.topics[t].inc
	affected := w.rollbackReceivers(t, old)
	for _, p := range w.procs {
		if p.everResolved[t] {
			p.o.OnIdentityChanged()
		}
	}
	// Held messages on any earlier incarnation: a task re-initialisation reports it deleted or
	// recreated; an application start resolves the name to the new incarnation, so the old
	// channel leaves the received set with its holds.
	for i := range w.incs {
		if w.incs[i].topic == t {
			w.noteDeleted(int32(i), true)
		}
	}
	inc := w.createIncarnation(t)
	w.stats.Recreations++
	if w.tracing { // the detail is formatted only for a trace
		w.emitRaw("recreated", -1, fmt.Sprintf("%s#%d replaces #%d", w.topics[t].spec.Name, inc, old))
	}
	w.restart(affected)
}

// noteDeleted tells every process's oracle that incarnation inc's channels were deleted (or, when
// recreated, that its topic was recreated).
func (w *World) noteDeleted(inc int32, recreated bool) {
	in := &w.incs[inc]
	for _, p := range w.procs {
		p.o.OnChannelsDeleted(in.firstChan, int(in.parts), recreated)
	}
}

// rollbackReceivers rolls back the step of every running process that receives a channel of
// topic t that is dead or about to die (incarnation dying; -1 for none) and returns them: Kafka
// Streams re-creates the task when its source topic goes or comes back. The list is in a buffer
// of the world's, valid until the next call.
func (w *World) rollbackReceivers(t int, dying int32) []*proc {
	out := w.procBuf[:0]
	defer func() { w.procBuf = out[:0] }()
	for _, p := range w.procs {
		if p.status != procRunning {
			continue
		}
		hit := slices.ContainsFunc(p.recv, func(pc *pcState) bool {
			ch := &w.chans[pc.ch]
			return ch.topic == t && (ch.inc == dying || !w.alive(pc.ch))
		})
		if hit {
			p.rollback()
			out = append(out, p)
		}
	}
	return out
}

// restart starts a task initialisation of every process in ps.
func (w *World) restart(ps []*proc) {
	for _, p := range ps {
		p.start(false)
	}
}

// redeclare adds topic t to, or removes it from, down process p's declaration. Removing a
// channel p holds messages on entitles it to refuse CHANNEL_REMOVED_WITH_HELD_MESSAGES.
func (w *World) redeclare(p *proc, t int) {
	if i, ok := slices.BinarySearch(p.declared, t); ok {
		if inc, ok := p.resolved[t]; ok {
			if c := w.chanOf(inc, p.spec.Task); c >= 0 {
				p.o.OnChannelRemoved(c)
			}
		}
		// declared and resolved are shared with cloned worlds: replaced, never changed in place.
		p.declared = slices.Delete(slices.Clone(p.declared), i, i+1)
		w.declarers.Remove(t, int32(p.idx))
		p.resolved = maps.Clone(p.resolved)
		delete(p.resolved, t)
		p.resolvedDigest = 0
		w.emitProc("redeclared", p, "removed "+w.topics[t].spec.Name)
	} else {
		p.declared = slices.Insert(slices.Clip(p.declared), i, t) // full: Insert copies it
		w.declarers.Add(t, int32(p.idx))
		w.emitProc("redeclared", p, "added "+w.topics[t].spec.Name)
	}
	w.stats.Redeclares++
}

// rewind moves p's committed read position on pc back to target (never clamped to the log
// start, as an operator's reset is not).
func (w *World) rewind(p *proc, pc *pcState, target int64) {
	must(w.sub.CommitOffsets(p.group, []substrate.GroupOffset{{TopicPartition: w.chans[pc.ch].tp, Offset: substrate.Offset(target)}}))
	pc.committedPos = target
	w.stats.Rewinds++
	if w.tracing {
		w.emitChan("rewound", p, pc.ch, target, 0, "")
	}
}

// migrate moves running process p to another instance: the old instance stops without
// committing, the ordering state travels through its changelog encoding, and the new instance
// initialises the task from it.
func (w *World) migrate(p *proc) {
	p.rollback()
	if p.committed != nil {
		st, err := statecodec.DecodeState(statecodec.EncodeState(p.committed))
		if err != nil {
			panic(fmt.Sprintf("world: %s: committed ordering state does not round-trip: %v", p.spec.Name, err))
		}
		p.committed = st
	}
	w.stats.Migrations++
	w.emitProc("migrated", p, "")
	p.start(false)
}

// zombie supersedes running process p's execution with a new one while the old one still tries
// to commit its step: the new instance's InitTransactions fences the old producer (aborting its
// open transaction), then the old execution runs the host's own commit sequence with its read
// positions, emissions and delta (host_commit.go), then the new instance starts from whatever
// that left. The attempt must change neither the group offsets nor the state store (H6, judged
// on them), and the state store must still hold what the reference node committed (REFERENCE);
// none of the zombie's step counts.
func (w *World) zombie(p *proc) {
	oldChans := slices.Clone(p.stepChans)
	_, err := w.sub.InitTransactions(p.txnID)
	must(err)
	for _, c := range oldChans { // the fence aborted the old execution's transaction
		w.logMoved(c)
	}
	offs := w.appendCommittedOffsets(nil, p.group)
	state := p.committed
	p.committedShared = true // a write to the state store replaces it: the check sees it
	var cerr error
	if p.commitCalls() > 0 { // with nothing to persist the sequence makes no call
		_, cerr = p.commitSequence(-1)
	}
	w.or.OnZombieCommit(w.at(), &p.o, offs, w.appendCommittedOffsets(nil, p.group), state, p.committed)
	w.or.RefCheckStored(w.at(), &p.ref, p.committed, "after a fenced execution's commit")
	for _, c := range oldChans {
		w.refreshLSO(c)
	}
	p.rollback()
	p.start(false)
	w.stats.Zombies++
	if w.tracing {
		w.emitProc("zombie-fenced", p, fmt.Sprint(cerr))
	}
}

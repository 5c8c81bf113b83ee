package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// Executing one chosen action: pick its targets through the Chooser, advance the virtual clock,
// act. Every action is one scheduler step.

// do performs action kind k chosen by the scheduler.
func (w *World) do(k spec.ActionKind, masks []explore.Mask) {
	w.action = k
	w.stats.Actions[k]++
	w.clock.Advance(k)
	switch k {
	case spec.ActFeed, spec.ActDrain, spec.ActCommit, spec.ActCrash, spec.ActStop, spec.ActStart, spec.ActRewind, spec.ActRedeclare, spec.ActMigrate, spec.ActZombie, spec.ActCommitCrash:
		w.doProcess(k, w.chooseProc(processLabels[k], k, masks))
	case spec.ActProducePlain, spec.ActProduceCorrupt, spec.ActProduceStamped, spec.ActTxnAbort, spec.ActTxnOpen:
		w.doProduce(k)
	case spec.ActTxnClose:
		commit := w.chooser.Choose("txn-close.commit", []uint32{1, 1}) == 1
		w.record(spec.ScriptedAction{Kind: k, Commit: commit})
		w.txnClose(commit)
	case spec.ActDeleteRecords:
		w.doDeleteRecords()
	case spec.ActRetention:
		w.record(spec.ScriptedAction{Kind: k})
		w.retention()
	case spec.ActSessionWrite, spec.ActSessionRead, spec.ActTokenDamage:
		w.ownAll() // session actions read and stamp through the processes' engines
		w.doSession(k)
	case spec.ActDeleteTopic, spec.ActRecreateTopic:
		t := w.chooseExternal(topicLabels[k], k, 0)
		w.record(spec.ScriptedAction{Kind: k, Topic: w.topics[t].spec.Name})
		if k == spec.ActDeleteTopic {
			w.ownTopicReaders(t) // its receivers roll back, restart and may be marked (world_faults.go)
			w.deleteTopic(t)
		} else {
			w.ownAll() // as a deletion, and every process that ever resolved the name is marked
			w.recreateTopic(t)
		}
	}
}

// processLabels and topicLabels are the Chooser labels of target choices, per action kind.
var processLabels, topicLabels [spec.NumActionKinds]string

func init() {
	for k := range spec.NumActionKinds {
		processLabels[k] = spec.ActionKind(k).String() + ".process"
		topicLabels[k] = spec.ActionKind(k).String() + ".topic"
	}
}

// doProduce performs an external produce or transaction on a chosen live external partition,
// preferably one with live receivers. A stamped record first picks the record it names, then a
// partition whose receivers also receive that record's channel (where it may arrive first and
// be held).
func (w *World) doProduce(k spec.ActionKind) {
	var r uint64
	if k == spec.ActProduceStamped {
		r = w.chooseObserved()
	}
	t := w.chooseExternal("produce.topic", k, r)
	c := w.chooseProducePartition("produce.partition", k, t, r)
	a := spec.ScriptedAction{Kind: k, Topic: w.topics[t].spec.Name, Partition: w.chans[c].part}
	switch k {
	case spec.ActProducePlain:
		w.record(a)
		w.producePlain(c)
	case spec.ActProduceCorrupt:
		a.Headers = w.drawCorruption().Values
		w.record(a)
		w.produceCorrupt(c, a.Headers, nil, nil)
	case spec.ActProduceStamped:
		m := w.or.Msg(r)
		a.Observe = spec.CauseRef{Topic: w.topics[w.chans[m.Ch].topic].spec.Name, Partition: w.chans[m.Ch].part, Position: m.Pos}
		if inc := w.chans[m.Ch].inc; inc != w.topics[w.chans[m.Ch].topic].inc {
			a.ObserveIncarnation = w.incarnationNumber(inc) + 1
		}
		w.record(a)
		w.produceStamped(c, r)
	case spec.ActTxnAbort:
		a.Records = 1 + w.streams.Payloads.IntN(3)
		w.record(a)
		w.txnAbort(c, a.Records)
	case spec.ActTxnOpen:
		a.Records = 1 + w.streams.Payloads.IntN(2)
		w.record(a)
		w.txnOpen(c, a.Records)
	}
}

// doProcess performs a process action on p.
func (w *World) doProcess(k spec.ActionKind, p *proc) {
	p.own() // a process action changes only its process (a cloned world copies it now)
	a := spec.ScriptedAction{Kind: k, Process: p.spec.Name}
	switch k {
	case spec.ActFeed:
		pc := w.chooseFeedChannel(p)
		a.Topic = w.topics[w.chans[pc.ch].topic].spec.Name
		w.record(a)
		p.feed(pc)
	case spec.ActRewind:
		pc := w.chooseRewindChannel(p)
		lo := int64(w.offsets(pc.ch).LogStart)
		cands := shape.RewindOffsets(lo, pc.committedPos, w.lastRecordBelow(pc.ch, lo, pc.committedPos))
		target := w.chooseOffset("rewind.offset", cands)
		a.Topic, a.Offset = w.topics[w.chans[pc.ch].topic].spec.Name, target
		w.record(a)
		w.rewind(p, pc, target)
	case spec.ActRedeclare:
		if t := w.chooseRedeclareTopic(p); t >= 0 {
			a.Topic, a.Add = w.topics[t].spec.Name, !p.declares(t)
			w.record(a)
			w.redeclare(p, t)
		}
	case spec.ActCrash:
		if n := w.crashInsideCommit(p); n > 0 {
			w.stats.Actions[spec.ActCommitCrash]++ // a crash and a crash inside a commit
			a.Kind, a.Calls = spec.ActCommitCrash, n
			w.record(a)
			w.commitCrash(p, n)
			break
		}
		w.record(a)
		w.doLifecycle(k, p)
	case spec.ActCommitCrash:
		a.Calls = 1 + w.chooser.ChooseFrom("commit-crash.calls", choose.Uniform(p.commitCalls()))
		w.record(a)
		w.commitCrash(p, a.Calls)
	default:
		w.record(a)
		w.doLifecycle(k, p)
	}
}

// doLifecycle performs a process action that needs no further target.
func (w *World) doLifecycle(k spec.ActionKind, p *proc) {
	switch k {
	case spec.ActDrain:
		p.drain()
	case spec.ActCommit:
		if err := p.commit(); err != nil {
			panic("world: commit of a live execution failed: " + err.Error())
		}
	case spec.ActCrash:
		p.crash()
	case spec.ActStop:
		p.stop()
	case spec.ActStart:
		p.start(true)
	case spec.ActMigrate:
		w.migrate(p)
	case spec.ActZombie:
		w.zombie(p)
	}
}

// chooseFeedChannel picks one of p's feedable received channels that no pause keeps off
// (feedPaused), weighed by the feed rules (shape.FeedWeight).
func (w *World) chooseFeedChannel(p *proc) *pcState {
	weights := w.weights.Zeroed(len(p.recv))
	lag := shape.LagChannel(p.idx, len(p.recv), w.step)
	for i, pc := range p.recv {
		if p.feedable(pc) && !p.feedPaused(pc, w.step) {
			weights[i] = shape.FeedWeight(w.set, i == lag, func() shape.Waits { return p.waits(pc) })
		}
	}
	return p.recv[w.chooser.Choose("feed.channel", weights)]
}

// chooseRewindChannel picks one of down process p's channels with a committed position above 0.
func (w *World) chooseRewindChannel(p *proc) *pcState {
	weights := w.weights.Zeroed(len(p.recv))
	for i, pc := range p.recv {
		if pc.committedPos > 0 && w.alive(pc.ch) {
			weights[i] = shape.RewindChannelWeight(w.lastRecordBelow(pc.ch, int64(w.offsets(pc.ch).LogStart), pc.committedPos) >= 0)
		}
	}
	return p.recv[w.chooser.Choose("rewind.channel", weights)]
}

// chooseRedeclareTopic picks a topic to add to or remove from p's declaration: any topic p does
// not send to.
func (w *World) chooseRedeclareTopic(p *proc) int {
	weights := w.weights.Zeroed(len(w.topics))
	for t := range w.topics {
		weights[t] = shape.RedeclareWeight((*shapeView)(w), p.idx, t)
	}
	for _, t := range p.sends {
		weights[t] = 0
	}
	if !slices.ContainsFunc(weights, func(x uint32) bool { return x != 0 }) {
		return -1
	}
	return w.chooser.Choose("redeclare.topic", weights)
}

// chooseObserved picks the record a stamped observer names: one of the latest committed records,
// most recent first, or the last committed record of a channel some receiver lags on
// (shape.LaggingRecords), weighed by shape.ObservedWeight.
func (w *World) chooseObserved() uint64 {
	n := min(w.recentN, recentRing)
	cands := make([]uint64, n, recentRing+8) // on the stack, unless lagging records outgrow it
	for i := range cands {
		cands[i] = w.recent[(w.recentN-1-i)%recentRing]
	}
	cands = shape.LaggingRecords(w.shapeRun(), cands)
	weights := w.weights.Zeroed(len(cands))
	for i, uid := range cands {
		weights[i] = shape.ObservedWeight(i, n, shape.UnfedReceivers((*shapeView)(w), uid))
	}
	return cands[w.chooser.Choose("stamped.observe", weights)]
}

// doDeleteRecords truncates a live channel at one of its interesting offsets, preferring channels
// with unread records at live receivers and offsets past their read positions.
func (w *World) doDeleteRecords() {
	weights := w.weights.Zeroed(len(w.chans))
	r := w.shapeRun()
	for c := range w.chans {
		if w.alive(int32(c)) && len(w.or.Slots(int32(c))) > 0 {
			weights[c] = shape.TruncationWeight(r, int32(c))
		}
	}
	if !slices.ContainsFunc(weights, func(x uint32) bool { return x != 0 }) {
		w.truncateNothing()
		return
	}
	c := int32(w.chooser.Choose("truncate.channel", weights))
	cands := shape.TruncationOffsets((*shapeView)(w), c, w.offsetBuf)
	w.offsetBuf = cands
	if len(cands) == 0 {
		w.truncateNothing()
		return
	}
	weights = w.weights.Zeroed(len(cands))
	for i, o := range cands {
		weights[i] = shape.TruncationOffsetWeight(r, c, o)
	}
	before := cands[w.chooser.Choose("truncate.offset", weights)]
	w.record(spec.ScriptedAction{Kind: spec.ActDeleteRecords, Topic: w.topics[w.chans[c].topic].spec.Name, Partition: w.chans[c].part, Offset: before})
	w.deleteRecords(c, before)
}

// truncateNothing is a delete-records step that found nothing to truncate. It is recorded (with no
// topic) so a replayed script takes the step too, keeping step counts and the clock aligned.
func (w *World) truncateNothing() {
	w.record(spec.ScriptedAction{Kind: spec.ActDeleteRecords})
	w.emitRaw("truncated", -1, "nothing to truncate")
}

// record appends an executed action to the recorded script (RunOptions.RecordScript).
func (w *World) record(a spec.ScriptedAction) {
	if w.opts.RecordScript {
		if w.script == nil && !w.explored() { // room at once for the safety steps, one action each
			w.script = make([]spec.ScriptedAction, 0, w.set.SafetySteps)
		}
		w.script = append(w.script, a)
	}
}

// procByName returns the named process (Validate guarantees it exists).
func (w *World) procByName(name string) *proc {
	for _, p := range w.procs {
		if p.spec.Name == name {
			return p
		}
	}
	panic("world: unknown process " + name)
}

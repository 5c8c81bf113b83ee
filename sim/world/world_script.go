package world

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Scripted runs: a fixed action list (Scenario.Script) executed in order instead of scheduled
// actions. An action that does not apply in the current world (feeding a process that is down, a
// channel with nothing to fetch, ...) is skipped with a "skipped" event, so a script derived from
// another run can be replayed with actions removed or inserted.

// runScripted performs script action a, the i-th of the script, as one step.
func (w *World) runScripted(i int, a *spec.ScriptedAction) {
	w.step++
	w.action = a.Kind
	w.stats.Actions[a.Kind]++
	w.clock.Advance(a.Kind)
	if !w.doScripted(a) {
		w.emitRaw("skipped", -1, fmt.Sprintf("script action %d (%s %s %s) does not apply", i, a.Kind, a.Process, a.Topic))
	}
}

// record appends an executed action to the recorded script (RunOptions.RecordScript).
func (w *World) record(a spec.ScriptedAction) {
	if w.opts.RecordScript {
		w.script = append(w.script, a)
	}
}

// doScripted performs one scripted action and reports whether it applied.
func (w *World) doScripted(a *spec.ScriptedAction) bool {
	if a.Process != "" {
		return w.doScriptedProcess(a, w.procByName(a.Process))
	}
	if a.Kind.Session() {
		return w.sess.DoScripted(a)
	}
	t, named := w.topicByName[a.Topic]
	switch a.Kind {
	case spec.ActRetention:
		w.retention()
		return true
	case spec.ActTxnClose:
		if !w.ext.open {
			return false
		}
		w.txnClose(a.Commit)
		return true
	case spec.ActDeleteRecords:
		if a.Topic == "" { // a recorded step that found nothing to truncate
			w.emitRaw("truncated", -1, "nothing to truncate")
			return true
		}
	case spec.ActRecreateTopic:
		if !named || !w.topics[t].spec.External {
			return false
		}
		w.recreateTopic(t)
		return true
	}
	if !named || w.topics[t].inc < 0 {
		return false
	}
	c := w.chanOf(w.topics[t].inc, int(a.Partition))
	if c < 0 {
		return false
	}
	return w.doScriptedTopic(a, t, c)
}

// doScriptedTopic performs a scripted action on live channel c of topic t.
func (w *World) doScriptedTopic(a *spec.ScriptedAction, t int, c int32) bool {
	switch a.Kind {
	case spec.ActProducePlain, spec.ActProduceCorrupt:
		switch {
		case a.Causes != nil || a.Header != nil:
			w.produceForged(c, w.causesOf(a.Causes), a.Header, a.Key, a.Value)
		case a.Kind == spec.ActProduceCorrupt && a.Headers != nil:
			w.produceCorrupt(c, a.Headers, a.Key, a.Value)
		case a.Kind == spec.ActProduceCorrupt:
			w.produceCorrupt(c, [][]byte{corruptHeader}, a.Key, a.Value)
		case a.Key != nil || a.Value != nil:
			w.produce(c, oracle.MsgPlain, 0, a.Key, a.Value, nil)
		default:
			w.producePlain(c)
		}
	case spec.ActProduceStamped:
		r := w.resolveObserved(a)
		if r == 0 {
			return false
		}
		w.produceStamped(c, r)
	case spec.ActTxnAbort:
		w.txnAbort(c, w.scriptedRecords(a, 3))
	case spec.ActTxnOpen:
		if w.ext.open {
			return false
		}
		w.txnOpen(c, w.scriptedRecords(a, 2))
	case spec.ActDeleteRecords:
		if a.Offset > int64(w.offsets(c).HighWatermark) {
			return false
		}
		w.deleteRecords(c, a.Offset)
	case spec.ActDeleteTopic:
		if !w.topics[t].spec.External {
			return false
		}
		w.deleteTopic(t)
	default:
		return false
	}
	return true
}

// scriptedRecords returns the record count of a scripted txn-abort or txn-open whose chosen
// counterpart draws 1 to maxRecords records. A recorded count (a.Records > 0) consumes the same
// payload-stream draw the chosen action made, so the payloads drawn after it stay aligned with
// the chosen run; a hand-written action (0) writes 1 record and draws nothing extra.
func (w *World) scriptedRecords(a *spec.ScriptedAction, maxRecords int) int {
	if a.Records <= 0 {
		return 1
	}
	w.streams.Payloads.IntN(maxRecords)
	return a.Records
}

// doScriptedProcess performs a scripted action on process p.
func (w *World) doScriptedProcess(a *spec.ScriptedAction, p *proc) bool {
	running := p.status == procRunning
	switch a.Kind {
	case spec.ActFeed:
		pc := w.scriptedChannel(p, a)
		if !running || pc == nil || !pc.received || !p.feedable(pc) {
			return false
		}
		p.feed(pc)
	case spec.ActStart:
		if p.status != procDown {
			return false
		}
		p.start(true)
	case spec.ActRewind:
		pc := w.scriptedChannel(p, a)
		if p.status != procDown || pc == nil || !w.alive(pc.ch) {
			return false
		}
		w.rewind(p, pc, a.Offset)
	case spec.ActRedeclare:
		t, ok := w.topicByName[a.Topic]
		if p.status != procDown || !ok || p.declares(t) == a.Add {
			return false
		}
		w.redeclare(p, t)
	case spec.ActCommitCrash:
		if !running { // with nothing to persist, a crash inside the commit is a crash
			return false
		}
		w.commitCrash(p, max(a.Calls, 1))
	default:
		if !running {
			return false
		}
		w.doLifecycle(a.Kind, p)
	}
	return true
}

// scriptedChannel returns p's state for the channel a names (its task partition of a.Topic's
// resolved incarnation), or the first received channel when a.Topic is empty.
func (w *World) scriptedChannel(p *proc, a *spec.ScriptedAction) *pcState {
	if a.Topic == "" {
		for _, pc := range p.recv {
			if p.feedable(pc) {
				return pc
			}
		}
		return nil
	}
	t := w.topicByName[a.Topic]
	for _, pc := range p.recv {
		if w.chans[pc.ch].topic == t {
			return pc
		}
	}
	return nil
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

// causesOf resolves scripted cause references against current incarnations.
func (w *World) causesOf(refs []spec.CauseRef) node.Causes {
	var out node.Causes
	for _, r := range refs {
		t, ok := w.topicByName[r.Topic]
		if !ok || w.topics[t].inc < 0 {
			continue
		}
		if c := w.chanOf(w.topics[t].inc, int(r.Partition)); c >= 0 {
			out.Merge(w.chans[c].nc, node.Offset(r.Position))
		}
	}
	return out
}

// resolveRef returns the committed record a reference names, or 0.
func (w *World) resolveRef(r spec.CauseRef) uint64 {
	t, ok := w.topicByName[r.Topic]
	if !ok || w.topics[t].inc < 0 {
		return 0
	}
	c := w.chanOf(w.topics[t].inc, int(r.Partition))
	if c < 0 {
		return 0
	}
	return w.or.RecordAt(c, r.Position)
}

// resolveObserved returns the committed record a scripted stamped produce observes, or 0: on the
// current incarnation of its topic, or on the one a.ObserveIncarnation counts.
func (w *World) resolveObserved(a *spec.ScriptedAction) uint64 {
	if a.ObserveIncarnation <= 0 {
		return w.resolveRef(a.Observe)
	}
	t, ok := w.topicByName[a.Observe.Topic]
	if !ok {
		return 0
	}
	n := 0
	for inc := range w.incs {
		if w.incs[inc].topic != t {
			continue
		}
		if n++; n == a.ObserveIncarnation {
			c := w.chanOf(int32(inc), int(a.Observe.Partition))
			if c < 0 {
				return 0
			}
			return w.or.RecordAt(c, a.Observe.Position)
		}
	}
	return 0
}

// incarnationOrdinal returns incarnation inc's place among its topic's incarnations, from 1.
func (w *World) incarnationOrdinal(inc int32) int {
	n := 0
	for i := range inc + 1 {
		if w.incs[i].topic == w.incs[inc].topic {
			n++
		}
	}
	return n
}

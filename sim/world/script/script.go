// Package script performs scripted runs: a scenario file's fixed action list, or a script
// recorded from another run (Scenario.Script), carried out in order, each action one world step
// in place of a scheduled one.
//
// A scripted action names its target as a scenario file does (process and topic names, a
// partition, an offset, a record by its coordinate and its topic's incarnation), where a
// scheduled action's target is chosen among the world's. This package decides what the names
// mean against the world's facts at the step (which channel, which committed record, which
// causes) and whether the action applies there; the world only performs the operation it is
// given. An action that does not apply (feeding a process that is down, a channel with nothing
// to fetch, a record that was never committed, ...) still takes its step and is reported
// skipped, so a script derived from another run can be replayed with actions removed or inserted
// and its clock and step counts stay aligned with the run it came from.
//
// Package world implements World, the interface of facts and operations this package reads and
// drives the world through; the package holds no state of its own. Session actions are resolved
// by the session tiers (World.Session).
package script

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// corruptHeader is the parsley.causes value of a scripted corrupt produce that names no headers
// (version 0x63, undecodable), so a hand-written scenario's corrupt record is always refused.
var corruptHeader = []byte{0x63, 0x01, 0x02, 0x03}

// Do performs action a, the i-th of its script, as one world step: the step is taken whether or
// not the action applies, so a script's steps, clock and step counts stay aligned with the run
// it was recorded from; one that does not apply is reported skipped.
func Do(w World, i int, a *spec.ScriptedAction) {
	w.BeginStep(a.Kind)
	if !do(w, a) {
		w.Skipped(fmt.Sprintf("script action %d (%s %s %s) does not apply", i, a.Kind, a.Process, a.Topic))
	}
}

// do performs one scripted action and reports whether it applied.
func do(w World, a *spec.ScriptedAction) bool {
	if a.Process != "" {
		return doProcess(w, a, w.Process(a.Process))
	}
	if a.Kind.Session() {
		return w.Session(a)
	}
	t, named := w.Topic(a.Topic)
	switch a.Kind {
	case spec.ActRetention:
		w.Retention()
		return true
	case spec.ActTxnClose:
		if !w.TxnOpen() {
			return false
		}
		w.CloseTxn(a.Commit)
		return true
	case spec.ActDeleteRecords:
		if a.Topic == "" { // a recorded step that found nothing to truncate
			w.NothingToTruncate()
			return true
		}
	case spec.ActRecreateTopic:
		if !named || !w.External(t) {
			return false
		}
		w.RecreateTopic(t)
		return true
	}
	if !named {
		return false
	}
	c := w.Channel(t, 0, int(a.Partition))
	if c < 0 {
		return false
	}
	return doTopic(w, a, t, c)
}

// doTopic performs a scripted action on live channel c of topic t.
func doTopic(w World, a *spec.ScriptedAction, t int, c int32) bool {
	switch a.Kind {
	case spec.ActProducePlain, spec.ActProduceCorrupt:
		switch {
		case a.Causes != nil || a.Header != nil:
			w.ProduceForged(c, causesOf(w, a.Causes), a.Header, a.Key, a.Value)
		case a.Kind == spec.ActProduceCorrupt && a.Headers != nil:
			w.ProduceCorrupt(c, a.Headers, a.Key, a.Value)
		case a.Kind == spec.ActProduceCorrupt:
			w.ProduceCorrupt(c, [][]byte{corruptHeader}, a.Key, a.Value)
		default:
			w.ProducePlain(c, a.Key, a.Value)
		}
	case spec.ActProduceStamped:
		r := observed(w, a)
		if r == 0 {
			return false
		}
		w.ProduceStamped(c, r)
	case spec.ActTxnAbort:
		w.AbortTxn(c, records(w, a, 3))
	case spec.ActTxnOpen:
		if w.TxnOpen() {
			return false
		}
		w.OpenTxn(c, records(w, a, 2))
	case spec.ActDeleteRecords:
		if a.Offset > w.HighWatermark(c) {
			return false
		}
		w.DeleteRecords(c, a.Offset)
	case spec.ActDeleteTopic:
		if !w.External(t) {
			return false
		}
		w.DeleteTopic(t)
	default:
		return false
	}
	return true
}

// records returns the record count of a scripted txn-abort or txn-open whose chosen counterpart
// draws 1 to maxRecords records. A recorded count (a.Records > 0) consumes the same
// payload-stream draw the chosen action made, so the payloads drawn after it stay aligned with
// the chosen run; a hand-written action (0) writes 1 record and draws nothing extra.
func records(w World, a *spec.ScriptedAction, maxRecords int) int {
	if a.Records <= 0 {
		return 1
	}
	w.DrawRecordCount(maxRecords)
	return a.Records
}

// doProcess performs a scripted action on process p.
func doProcess(w World, a *spec.ScriptedAction, p int) bool {
	status := w.Status(p)
	switch a.Kind {
	case spec.ActFeed:
		c := channel(w, p, a)
		if status != Running || c < 0 || !w.Feedable(p, c) {
			return false
		}
		w.Feed(p, c)
	case spec.ActStart:
		if status != Down {
			return false
		}
		w.Lifecycle(a.Kind, p)
	case spec.ActRewind:
		c := channel(w, p, a)
		if status != Down || c < 0 || !w.Alive(c) {
			return false
		}
		w.Rewind(p, c, a.Offset)
	case spec.ActRedeclare:
		t, ok := w.Topic(a.Topic)
		if status != Down || !ok || w.Declares(p, t) == a.Add {
			return false
		}
		w.Redeclare(p, t)
	case spec.ActCommitCrash:
		if status != Running { // with nothing to persist, a crash inside the commit is a crash
			return false
		}
		w.CommitCrash(p, max(a.Calls, 1))
	default:
		if status != Running {
			return false
		}
		w.Lifecycle(a.Kind, p)
	}
	return true
}

// channel returns the channel of p's received set that a names (p's partition of the
// incarnation of a.Topic that p resolved), or p's first feedable received channel when a.Topic
// is empty; -1 for none.
func channel(w World, p int, a *spec.ScriptedAction) int32 {
	t, _ := w.Topic(a.Topic)
	for i := range w.Received(p) {
		c := w.ReceivedChannel(p, i)
		if a.Topic == "" && w.Feedable(p, c) || a.Topic != "" && w.ChannelTopic(c) == t {
			return c
		}
	}
	return -1
}

// causesOf resolves scripted cause references against the topics' current incarnations; a
// reference to a topic or partition that does not exist now is left out.
func causesOf(w World, refs []spec.CauseRef) node.Causes {
	var out node.Causes
	for _, r := range refs {
		t, ok := w.Topic(r.Topic)
		if !ok {
			continue
		}
		if c := w.Channel(t, 0, int(r.Partition)); c >= 0 {
			out.Merge(w.NodeChannel(c), node.Offset(r.Position))
		}
	}
	return out
}

// observed returns the committed record a scripted stamped produce observes, or 0: on the
// current incarnation of its topic, or on the one a.ObserveIncarnation counts (from 1).
func observed(w World, a *spec.ScriptedAction) uint64 {
	t, ok := w.Topic(a.Observe.Topic)
	if !ok {
		return 0
	}
	c := w.Channel(t, max(a.ObserveIncarnation, 0), int(a.Observe.Partition))
	if c < 0 {
		return 0
	}
	return w.RecordAt(c, a.Observe.Position)
}

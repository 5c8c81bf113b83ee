package world

import (
	"github.com/parsleysim/parsleysim/sim/explore"
	"github.com/parsleysim/parsleysim/sim/explore/persistent"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// The world's side of the persistent sets (package persistent computes them): the view its
// dependency rules read a state through, and the filter a selection becomes, in the choice
// labels of the world's decisions.

// persistentFilter implements explore.Persistent for the worlds of this package.
type persistentFilter struct{ sets *persistent.Sets }

// ExplorePersistent returns the persistent sets of an exploration of scn under set with opts'
// sabotage (package explore's Config.Persistent), or nil when they do not apply: test hooks can
// break the world's rules, and package persistent declines the rest.
func ExplorePersistent(scn *spec.Scenario, set swarm.Settings, opts RunOptions) explore.Persistent {
	if opts.hooks != nil {
		return nil
	}
	if s := persistent.New(scn, &set, opts.persistentTweaks); s != nil {
		return &persistentFilter{s}
	}
	return nil // not a nil *persistentFilter: nil means none
}

// Filter implements explore.Persistent: the filter (written into into) that restricts w, whose
// actions are acts, to a persistent set, or nil to expand every enabled transition.
func (ps *persistentFilter) Filter(w explore.World, acts *explore.Actions, into *explore.Filter) *explore.Filter {
	sel, ok := ps.sets.Select((*persistentView)(w.(*World)), acts)
	if !ok {
		return nil
	}
	into.Reset()
	into.Allow("action", sel.Kinds)
	into.Allow("produce.topic", sel.Produce)
	into.Allow("truncate.channel", sel.Truncate)
	into.Allow(topicLabels[spec.ActDeleteTopic], sel.Delete)
	for k := range spec.NumActionKinds {
		if spec.ActionKind(k).OnProcess() {
			into.Allow(processLabels[k], sel.Procs)
		}
	}
	return into
}

// persistentView is a world as package persistent's rules read it (persistent.View).
type persistentView World

func (v *persistentView) w() *World { return (*World)(v) }

// Read implements persistent.View.
func (v *persistentView) Read(st *persistent.State) {
	st.ExternalTxnOpen = v.ext.open
	st.Channels = st.Channels[:0]
	for c := range v.chans {
		ch := &v.chans[c]
		st.Channels = append(st.Channels, persistent.Channel{Topic: ch.topic, Alive: v.incs[ch.inc].alive, LSO: ch.lso})
	}
	st.LiveTopics = 0
	for t := range v.topics {
		if v.topics[t].inc >= 0 {
			st.LiveTopics |= 1 << t
		}
	}
	st.Processes = st.Processes[:0]
	for _, p := range v.procs {
		st.Processes = append(st.Processes, persistent.Process{Status: persistentStatus[p.status], TxnOpen: p.txnOpen, Drainable: p.drainable})
	}
}

// HasEntries implements persistent.View.
func (v *persistentView) HasEntries(c int32) bool { return len(v.or.Slots(c)) > 0 }

// NonCommittedIn implements persistent.View: a slot without a committed record (uid 0).
func (v *persistentView) NonCommittedIn(c int32, from int64) bool {
	for o := from; o < v.chans[c].lso; o++ {
		if v.or.RecordAt(c, o) == 0 {
			return true
		}
	}
	return false
}

// FeedSkips implements persistent.View: a feed below the log start refuses, except under the
// host sabotage that resets such a position to the log start.
func (v *persistentView) FeedSkips(i int, c int32) bool {
	from := v.procs[i].pcs.At(c).readPos
	if logStart := int64(v.w().offsets(c).LogStart); from < logStart {
		if v.opts.HostSabotage != spec.HostResetPastLogStart {
			return false // it refuses: reads the log start, not the LSO
		}
		from = logStart
	}
	return v.or.FirstRecordIn(c, from, v.chans[c].lso-1) < 0
}

// persistentStatus is each procStatus as package persistent names it.
var persistentStatus = [...]persistent.Status{procDown: persistent.Down, procRunning: persistent.Running, procFailed: persistent.Failed}

// Received implements persistent.View.
func (v *persistentView) Received(i int, dst []persistent.Position) []persistent.Position {
	for _, pc := range v.procs[i].recv {
		dst = append(dst, persistentPosition(pc))
	}
	return dst
}

// PositionAt implements persistent.View.
func (v *persistentView) PositionAt(i int, c int32) (persistent.Position, bool) {
	if pc := v.procs[i].pcs.At(c); pc != nil {
		return persistentPosition(pc), true
	}
	return persistent.Position{}, false
}

// persistentPosition is pc as package persistent reads it.
func persistentPosition(pc *pcState) persistent.Position {
	return persistent.Position{Chan: pc.ch, Received: pc.received, ReadPos: pc.readPos, CommittedPos: pc.committedPos}
}

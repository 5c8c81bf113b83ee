package world

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/tiers"
)

// The world's side of the session actors (package tiers): the Host they run in, and the world's
// calls into them.

// sessionHost is a world as the session actors' Host.
type sessionHost World

// newSessions builds the session actors of w's scenario (nil without sessions).
func newSessions(w *World) *tiers.Actors {
	s, err := tiers.New(w.scn, w.opts.HostSabotage, &w.or, w.sub, (*sessionHost)(w))
	if err != nil {
		panic("world: " + err.Error())
	}
	return s
}

// sessionEnabled reports whether session action kind k has a target.
func (w *World) sessionEnabled(k spec.ActionKind) bool { return w.sess.Enabled(k) }

// doSession performs a scheduled session action.
func (w *World) doSession(k spec.ActionKind) { w.sess.Do(k) }

func (h *sessionHost) Choose(label string, w []uint32) int { return h.chooser.Choose(label, w) }
func (h *sessionHost) Record(a spec.ScriptedAction)        { (*World)(h).record(a) }
func (h *sessionHost) At() oracle.At                       { return (*World)(h).at() }
func (h *sessionHost) Tracing() bool                       { return h.tracing }
func (h *sessionHost) Emit(kind string, proc int, detail string) {
	(*World)(h).emitRaw(kind, proc, detail)
}
func (h *sessionHost) EmitChan(kind string, ch int32, pos int64, uid uint64, detail string) {
	(*World)(h).emitChan(kind, nil, ch, pos, uid, detail)
}
func (h *sessionHost) ChooseFrom(label string, o choose.Options) int {
	return h.chooser.ChooseFrom(label, o)
}
func (h *sessionHost) Payload() (key, value []byte) { return (*World)(h).payload() }
func (h *sessionHost) Frontier(p int) node.Causes   { return h.procs[p].eng.Frontier() }
func (h *sessionHost) HighWatermark(ch int32) int64 {
	return int64((*World)(h).listOffsets(ch).HighWatermark) // asked before Produced refreshes the mirror
}

func (h *sessionHost) Count(name string) {
	st := &h.stats
	if st.Session == nil {
		st.Session = make(map[string]int)
	}
	st.Session[name]++
}

func (h *sessionHost) LiveChannel(t, part int) int32 {
	inc := h.topics[t].inc
	if inc < 0 {
		return -1
	}
	return (*World)(h).chanOf(inc, part)
}

func (h *sessionHost) Produced(ch int32, pos int64, uid uint64, committed bool) {
	w := (*World)(h)
	if committed {
		w.noteCommitted(uid)
	}
	w.refreshLSO(ch)
	w.stats.Produced++
	if committed && w.tracing {
		w.emitChan("produced", nil, ch, pos, uid, oracle.MsgSession.String())
	}
}

func (h *sessionHost) HoldsBack(p int) bool {
	pr := h.procs[p]
	if pr.status != procRunning {
		return false
	}
	for _, pc := range pr.recv {
		if pr.o.HeldBack(pc.ch) {
			return true
		}
	}
	return false
}

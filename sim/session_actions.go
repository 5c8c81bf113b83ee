package sim

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// Session actions: the scheduler's session-write, session-read and token-damage, chosen like any
// other action and recorded as scripted actions (ScriptedAction.Session), so a recorded script
// replays them with the same clients, targets and outcomes.

// sessionEnabled reports whether session action kind k has a target: the run has sessions and,
// for a write, some written topic is live.
func (w *world) sessionEnabled(k spec.ActionKind) bool {
	s := w.sess
	if s == nil {
		return false
	}
	if k == spec.ActSessionWrite {
		return slices.ContainsFunc(s.writes, func(t int) bool { return w.topics[t].inc >= 0 }) &&
			slices.ContainsFunc(s.clients, func(cl sessionClient) bool { return !cl.reading })
	}
	return true
}

// doSession performs a scheduled session action.
func (w *world) doSession(k spec.ActionKind) {
	s := w.sess
	a := spec.SessionAction{Client: s.chooseClient(k)}
	sa := spec.ScriptedAction{Kind: k, Session: &a}
	switch k {
	case spec.ActSessionWrite:
		t := s.chooseWriteTopic()
		c := w.choosePartition("session-write.partition", t)
		a.Txn = w.chooser.Choose("session-write.txn", pctWeights(s.spec.TxnPct)) == 1
		if a.Txn {
			a.Commit = w.chooser.Choose("session-write.commit", pctWeights(100-s.spec.AbortPct)) == 1
		}
		sa.Topic, sa.Partition = w.topics[t].spec.Name, w.chans[c].part
		w.record(sa)
		s.write(a.Client, c, a.Txn, a.Commit)
	case spec.ActSessionRead:
		mi := s.chooseReadModel()
		a.Model = s.models[mi].spec.Name
		a.Replica = w.chooseUniform("session-read.replica", s.models[mi].replicasMax())
		w.record(sa)
		s.read(a.Client, mi, a.Replica)
	case spec.ActTokenDamage:
		a.Damage = spec.TokenDamage(1 + w.chooseUniform("token-damage.how", int(spec.NumTokenDamages)-1))
		w.record(sa)
		s.damage(a.Client, a.Damage)
	}
}

// doScriptedSession performs a scripted session action and reports whether it applied.
func (w *world) doScriptedSession(a *spec.ScriptedAction) bool {
	s := w.sess
	if s == nil || a.Session == nil || a.Session.Client < 0 || a.Session.Client >= len(s.clients) {
		return false
	}
	sa := a.Session
	switch a.Kind {
	case spec.ActSessionWrite:
		t, ok := w.topicByName[a.Topic]
		if !ok || !slices.Contains(s.writes, t) || w.topics[t].inc < 0 {
			return false
		}
		c := w.chanOf(w.topics[t].inc, int(a.Partition))
		if c < 0 {
			return false
		}
		s.write(sa.Client, c, sa.Txn, sa.Commit)
	case spec.ActSessionRead:
		mi := slices.IndexFunc(s.models, func(m readModel) bool { return m.spec.Name == sa.Model })
		if mi < 0 {
			return false
		}
		s.read(sa.Client, mi, max(sa.Replica, 0))
	case spec.ActTokenDamage:
		if sa.Damage == spec.TokenIntact || sa.Damage >= spec.NumTokenDamages {
			return false
		}
		s.damage(sa.Client, sa.Damage)
	default:
		return false
	}
	return true
}

// chooseClient picks the client of a session action: any client, or for a write one that is not
// due to read; for a read, SessionSpec.BrowseReadWeight favours clients not due to read.
func (s *sessionWorld) chooseClient(k spec.ActionKind) int {
	weights := s.w.weightBuf(len(s.clients))
	for i := range s.clients {
		switch {
		case k == spec.ActSessionRead && !s.clients[i].reading && s.spec.BrowseReadWeight > 1:
			weights[i] = uint32(s.spec.BrowseReadWeight)
		case k != spec.ActSessionWrite || !s.clients[i].reading:
			weights[i] = 1
		}
	}
	return s.w.chooser.Choose("session.client", weights)
}

// chooseWriteTopic picks a live topic the write tier writes.
func (s *sessionWorld) chooseWriteTopic() int {
	weights := s.w.weightBuf(len(s.writes))
	for i, t := range s.writes {
		if s.w.topics[t].inc >= 0 {
			weights[i] = 1
		}
	}
	return s.writes[s.w.chooser.Choose("session-write.topic", weights)]
}

// chooseReadModel picks the model a read reads: uniformly, or with SessionSpec.HeldReadWeight
// favouring models a projector of which holds records back.
func (s *sessionWorld) chooseReadModel() int {
	weights := s.w.weightBuf(len(s.models))
	for i := range s.models {
		weights[i] = 1
		if s.spec.HeldReadWeight > 1 && s.models[i].holdsBack(s.w) {
			weights[i] = uint32(s.spec.HeldReadWeight)
		}
	}
	return s.w.chooser.Choose("session-read.model", weights)
}

// holdsBack reports whether a running projector of the model holds a record back: one fed
// before its latest drain and still undelivered.
func (m *readModel) holdsBack(w *world) bool {
	for _, replicas := range m.partitions {
		for _, pi := range replicas {
			p := w.procs[pi]
			if p.status != procRunning {
				continue
			}
			for _, pc := range p.recv {
				if p.o.HeldBack(pc.ch) {
					return true
				}
			}
		}
	}
	return false
}

// damage makes the simulator damage client c's token on its next request.
func (s *sessionWorld) damage(c int, d spec.TokenDamage) {
	s.clients[c].damage = d
	s.count("tokens_damaged")
	if s.w.tracing {
		s.w.emitRaw("token-damaged", -1, fmt.Sprintf("client %d session %d: next token in flight %s", c, s.clients[c].session, d))
	}
}

// replicasMax is the largest replica count of any partition of the model.
func (m *readModel) replicasMax() int {
	n := 1
	for _, r := range m.partitions {
		n = max(n, len(r))
	}
	return n
}

// chooseUniform picks one of n options with equal weights.
func (w *world) chooseUniform(label string, n int) int {
	weights := w.weightBuf(n)
	for i := range weights {
		weights[i] = 1
	}
	return w.chooser.Choose(label, weights)
}

// pctWeights returns the weights of a yes/no choice that says yes pct percent of the time.
func pctWeights(pct int) []uint32 {
	return []uint32{uint32(100 - pct), uint32(pct)}
}

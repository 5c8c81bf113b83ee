package tiers

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// Session actions: the scheduler's session-write, session-read and token-damage, chosen like any
// other action and recorded as scripted actions (ScriptedAction.Session), so a recorded script
// replays them with the same clients, targets and outcomes.

// Enabled reports whether session action kind k has a target: the run has sessions and, for a
// write, some written topic is live and some client is not due to read. A nil Actors (a run
// without sessions) has none.
func (s *Actors) Enabled(k spec.ActionKind) bool {
	if s == nil {
		return false
	}
	if k == spec.ActSessionWrite {
		return slices.ContainsFunc(s.writes, s.live) &&
			slices.ContainsFunc(s.clients, func(cl client) bool { return !cl.reading })
	}
	return true
}

// live reports whether topic t has a live incarnation.
func (s *Actors) live(t int) bool { return s.host.LiveChannel(t, 0) >= 0 }

// Do performs a session action of kind k the scheduler chose (Enabled), choosing its client and
// targets and recording it.
func (s *Actors) Do(k spec.ActionKind) {
	h := s.host
	a := spec.SessionAction{Client: s.chooseClient(k)}
	sa := spec.ScriptedAction{Kind: k, Session: &a}
	switch k {
	case spec.ActSessionWrite:
		t := s.chooseWriteTopic()
		part := h.ChooseFrom("session-write.partition", choose.Uniform(s.scn.Topics[t].Partitions))
		c := h.LiveChannel(t, part)
		a.Txn = h.Choose("session-write.txn", pctWeights(s.spec.TxnPct)) == 1
		if a.Txn {
			a.Commit = h.Choose("session-write.commit", pctWeights(100-s.spec.AbortPct)) == 1
		}
		sa.Topic, sa.Partition = s.scn.Topics[t].Name, int32(part)
		h.Record(sa)
		s.write(a.Client, c, a.Txn, a.Commit)
	case spec.ActSessionRead:
		mi := s.chooseReadModel()
		a.Model = s.models[mi].spec.Name
		a.Replica = h.ChooseFrom("session-read.replica", choose.Uniform(s.models[mi].replicasMax()))
		h.Record(sa)
		s.read(a.Client, mi, a.Replica)
	case spec.ActTokenDamage:
		a.Damage = spec.TokenDamage(1 + h.ChooseFrom("token-damage.how", choose.Uniform(int(spec.NumTokenDamages)-1)))
		h.Record(sa)
		s.damage(a.Client, a.Damage)
	}
}

// DoScripted performs a scripted session action and reports whether it applied: not in a run
// without sessions (a nil Actors), nor when it names no client, topic, partition or model of
// the run, a topic the write tier does not write or one that is deleted.
func (s *Actors) DoScripted(a *spec.ScriptedAction) bool {
	if s == nil || a.Session == nil || a.Session.Client < 0 || a.Session.Client >= len(s.clients) {
		return false
	}
	sa := a.Session
	switch a.Kind {
	case spec.ActSessionWrite:
		t := slices.IndexFunc(s.writes, func(t int) bool { return s.scn.Topics[t].Name == a.Topic })
		if t < 0 {
			return false
		}
		c := s.host.LiveChannel(s.writes[t], int(a.Partition))
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
func (s *Actors) chooseClient(k spec.ActionKind) int {
	weights := s.weights.Zeroed(len(s.clients))
	for i := range s.clients {
		switch {
		case k == spec.ActSessionRead && !s.clients[i].reading && s.spec.BrowseReadWeight > 1:
			weights[i] = uint32(s.spec.BrowseReadWeight)
		case k != spec.ActSessionWrite || !s.clients[i].reading:
			weights[i] = 1
		}
	}
	return s.host.Choose("session.client", weights)
}

// chooseWriteTopic picks a live topic the write tier writes.
func (s *Actors) chooseWriteTopic() int {
	weights := s.weights.Zeroed(len(s.writes))
	for i, t := range s.writes {
		if s.live(t) {
			weights[i] = 1
		}
	}
	return s.writes[s.host.Choose("session-write.topic", weights)]
}

// chooseReadModel picks the model a read reads: uniformly, or with SessionSpec.HeldReadWeight
// favouring models a projector of which holds records back.
func (s *Actors) chooseReadModel() int {
	weights := s.weights.Zeroed(len(s.models))
	for i := range s.models {
		weights[i] = 1
		if s.spec.HeldReadWeight > 1 && s.models[i].holdsBack(s.host) {
			weights[i] = uint32(s.spec.HeldReadWeight)
		}
	}
	return s.host.Choose("session-read.model", weights)
}

// holdsBack reports whether a running projector of the model holds a record back.
func (m *readModel) holdsBack(h Host) bool {
	for _, replicas := range m.partitions {
		for _, p := range replicas {
			if h.HoldsBack(p) {
				return true
			}
		}
	}
	return false
}

// damage makes the simulator damage client c's token on its next request.
func (s *Actors) damage(c int, d spec.TokenDamage) {
	s.clients[c].damage = d
	s.host.Count("tokens_damaged")
	if s.host.Tracing() {
		s.host.Emit("token-damaged", -1, fmt.Sprintf("client %d session %d: next token in flight %s", c, s.clients[c].session, d))
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

// pctWeights returns the weights of a yes/no choice that says yes pct percent of the time.
func pctWeights(pct int) []uint32 {
	return []uint32{uint32(100 - pct), uint32(pct)}
}

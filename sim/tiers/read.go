package tiers

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/node/session"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The read tier (SPEC §5.3 read path): decode and bound the token (refused: the client starts a
// new session), pick a replica per partition of the model, and serve only when the recorded past
// covers the token — for a collection, when the meet of the partitions' recorded pasts does (a
// channel missing from any partition is absent). A replica that does not cover is passed over
// for the next one that does (a redirect to a caught-up replica); when none covers, the tier
// answers "retry" and the client waits, giving its session up after Patience unanswered reads.
// A served read refreshes the token from the gate plus the contributing partitions' own
// coordinates, never from a max-merged superset.

// read performs one session read of model mi by client c, trying replica start first.
func (s *Actors) read(c, mi, start int) {
	cl := &s.clients[c]
	op := s.nextOp()
	damage, intended := cl.damage, cl.token
	s.host.Count("reads")
	token, err := s.tierDecode(s.inFlight(cl))
	if err != nil {
		s.refused(c, &op, "read", err.Error())
		return
	}
	m := &s.models[mi]
	s.or.OnTokenAccepted(s.host.At(), &s.truth, c, op, damage, func() string {
		return fmt.Sprintf("read op %d of %s used it as %s", op, m.spec.Name, token)
	})
	served := make([]int, len(m.partitions))
	recorded := make([]session.CausalPast, len(m.partitions))
	redirected := false
	for i, replicas := range m.partitions {
		var moved bool
		served[i], moved = s.pickReplica(replicas, start, token)
		redirected = redirected || moved
		recorded[i] = session.Of(s.projections[served[i]].recorded)
	}
	gate := session.Meet(recorded...)
	if !s.covers(gate, token) {
		s.unanswered(c, op, m, gate.CoverageOf(token))
		return
	}
	minted := token.MergePast(gate)
	for _, p := range served {
		minted = minted.MergePast(session.Of(s.projections[p].own))
	}
	cl.waiting, cl.reading = 0, false
	s.host.Count("reads_served")
	if redirected {
		s.host.Count("reads_redirected")
	}
	s.or.OnSessionRead(s.host.At(), &s.truth, &oracle.SessionRead{Client: c, Op: op, Model: m.spec.Name,
		OwnOnly: m.spec.OwnCoordinatesOnly, Served: served, Presented: intended, Minted: minted.Causes()})
	s.traceRead(c, op, m, served, minted)
	cl.token = minted.Encode()
}

// pickReplica returns the first replica, from index start on, whose recorded past covers the
// token, and whether that is not the replica tried first; when none covers, the first tried.
func (s *Actors) pickReplica(replicas []int, start int, token session.CausalPast) (int, bool) {
	first := start % len(replicas)
	for j := range replicas {
		p := replicas[(first+j)%len(replicas)]
		if s.covers(session.Of(s.projections[p].recorded), token) {
			return p, j > 0
		}
	}
	return replicas[first], false
}

// covers is the read tier's coverage decision: CoverageOf, which fails on a token channel the
// past never recorded — or, under READ_SKIPS_UNKNOWN_CHANNELS, the gate's disposition, which
// skips such channels.
func (s *Actors) covers(past, token session.CausalPast) bool {
	if s.mode == spec.SessionReadSkipsUnknownChannels {
		var known []node.Cause
		for _, pair := range token.Causes().Pairs() {
			if _, ok := past.Lookup(pair.Channel); ok {
				known = append(known, pair)
			}
		}
		token = session.Of(node.CausesOf(known...))
	}
	return past.CoverageOf(token).Covered()
}

// unanswered records a read the tier did not serve: the client waits (retries on a later read)
// and gives the session up after Patience unanswered reads in a row.
func (s *Actors) unanswered(c, op int, m *readModel, cov session.Coverage) {
	cl := &s.clients[c]
	cl.waiting++
	s.host.Count("reads_retry")
	if s.host.Tracing() {
		s.host.Emit("session-retry", -1, fmt.Sprintf("client %d session %d read op %d of %s: %s (wait %d of %d)",
			c, cl.session, op, m.spec.Name, cov, cl.waiting, s.patience))
	}
	if cl.waiting >= s.patience {
		s.host.Count("sessions_abandoned")
		s.newSession(c)
	}
}

// traceRead emits a served read's event.
func (s *Actors) traceRead(c, op int, m *readModel, served []int, minted session.CausalPast) {
	if !s.host.Tracing() {
		return
	}
	names := ""
	for i, p := range served {
		if i > 0 {
			names += ","
		}
		names += s.scn.Processes[p].Name
	}
	s.host.Emit("session-read", -1, fmt.Sprintf("client %d session %d read op %d of %s served by %s; token now %s",
		c, s.clients[c].session, op, m.spec.Name, names, minted))
}

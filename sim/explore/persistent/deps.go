package persistent

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The dependency rules of the persistent-set closure (the package doc has the argument):
// which actors must join a set containing a process, a producer, a truncation or a deletion.
// Actor B must join a set containing actor A when a transition u of B followed by a transition
// t of A cannot be reordered into t then u with the same outcome (t·u not executable, another
// state, or other violations), judged over every state reachable from here by transitions of
// actors outside the set. Pairs that exclude each other through a shared budget (two crashes,
// two truncations, two produces with one message left) never run as u·t, so they need not join.

// procDeps returns the actors that must join a persistent set containing process i.
func (ps *Sets) procDeps(v View, i int) uint64 {
	p := ps.st.Processes[i]
	if p.Status == Failed {
		return 0 // no transition, ever
	}
	var out uint64
	running := p.Status == Running
	// Feeds of p that read the LSO (skips) or wait for it to move: every actor that may move it.
	if running {
		ps.recv = v.Received(i, ps.recv[:0])
		for k := range ps.recv {
			r := &ps.recv[k]
			if ch := &ps.st.Channels[r.Chan]; ch.Alive && (!ps.feedable(r) || v.FeedSkips(i, r.Chan)) {
				out |= ps.writers(v, ch.Topic, i)
			}
		}
	}
	// p's LSO moves and appends on the topics it sends to: receivers that may skip there, other
	// writers.
	moves := running && (p.TxnOpen || (p.Drainable && !ps.drainSafe))
	appends := running && (p.TxnOpen || p.Drainable)
	sends := ps.sends[i]
	for _, u := range sends {
		if moves && !ps.tweaks.LeaveOutSkipRule {
			for _, r := range ps.receivers[u] {
				if r != i && ps.mayMeetNonCommitted(v, r, u, i) {
					out |= 1 << r
				}
			}
		}
		if appends {
			out |= ps.writers(v, u, i)
		}
	}
	for t := range ps.env {
		// p's positions on a topic it receives are truncation candidates. On a topic it sends to,
		// its transactions move the LSO and the high watermark beyond it (candidates); with no
		// transaction open the LSO is the high watermark, and an append keeps it a candidate.
		mine := ps.recvTopics[i]&(1<<t) != 0 || (p.TxnOpen && slices.Contains(sends, t))
		if mine && ps.left(spec.ActDeleteRecords) {
			out |= 1 << ps.trunc[t]
		}
		if ps.del[t] < 0 || !ps.st.live(t) || !ps.left(spec.ActDeleteTopic) {
			continue
		}
		// A deletion rolls back its receivers; the identity report a start reads and the
		// liveness STRUCT15 reads at a send change for every process downstream.
		if ps.recvTopics[i]&(1<<t) != 0 || (ps.upstream[i]&(1<<t) != 0 && (!running || len(sends) > 0)) {
			out |= 1 << ps.del[t]
		}
	}
	return out
}

// envDeps returns the actors that must join a persistent set containing the producer of topic t:
// receivers that may skip there (a produce moves the LSO) and truncation of t (a produce moves
// the high watermark and LSO its candidates include).
func (ps *Sets) envDeps(v View, t int) uint64 {
	var out uint64
	for _, r := range ps.receivers[t] {
		if ps.mayMeetNonCommitted(v, r, t, ps.env[t]) {
			out |= 1 << r
		}
	}
	if ps.left(spec.ActDeleteRecords) {
		out |= 1 << ps.trunc[t]
	}
	return out
}

// truncDeps returns the actors that must join a persistent set containing the truncation of
// topic t: its receivers and writers (they change its candidates; a fetch or start after the
// truncation reads the new log start) and the deletions that roll any of them back.
func (ps *Sets) truncDeps(v View, t int) uint64 {
	var out uint64
	touch := ps.toucherMask(t)
	for i := range ps.nProcs {
		if touch&(1<<i) != 0 && ps.st.Processes[i].Status != Failed {
			out |= 1 << i
		}
	}
	if ps.env[t] >= 0 && ps.st.live(t) && ps.left(spec.ActProducePlain) {
		out |= 1 << ps.env[t]
	}
	return out | ps.deletionsRollingBack(v, touch, t)
}

// delDeps returns the actors that must join a persistent set containing the deletion of topic
// t: its producer, its receivers (rolled back, their transactions aborted), every live process
// downstream that may start or send (a start reads the identity report, a send's STRUCT15 reads
// liveness), and the truncations whose candidates a rollback of a receiver changes.
func (ps *Sets) delDeps(v View, t int) uint64 {
	var out uint64
	if ps.left(spec.ActProducePlain) {
		out |= 1 << ps.env[t]
	}
	var rolled uint64
	for i := range ps.nProcs {
		if ps.recvTopics[i]&(1<<t) != 0 {
			rolled |= 1 << i
		}
		if ps.upstream[i]&(1<<t) == 0 {
			continue
		}
		p := ps.st.Processes[i]
		if p.Status == Failed {
			continue
		}
		// A downstream process that does not receive t reads its liveness only when it starts
		// (the identity report) or sends (STRUCT15): not while it runs and cannot crash.
		if rolled&(1<<i) != 0 || p.Status != Running || ps.left(spec.ActCrash) || len(ps.sends[i]) > 0 {
			out |= 1 << i
		}
	}
	if ps.left(spec.ActDeleteRecords) {
		for u := range ps.env {
			if u == t || ps.toucherMask(u)&rolled != 0 {
				out |= 1 << ps.trunc[u]
			}
		}
	}
	return out
}

// toucherMask returns the processes that receive or send topic t.
func (ps *Sets) toucherMask(t int) uint64 {
	var m uint64
	for _, r := range ps.receivers[t] {
		m |= 1 << r
	}
	for _, s := range ps.senders[t] {
		m |= 1 << s
	}
	return m
}

// deletionsRollingBack returns the deletions (other than of t) that roll back one of procs.
func (ps *Sets) deletionsRollingBack(v View, procs uint64, t int) uint64 {
	var out uint64
	if !ps.left(spec.ActDeleteTopic) {
		return 0
	}
	for u := range ps.env {
		if u == t || ps.del[u] < 0 || !ps.st.live(u) {
			continue
		}
		for _, r := range ps.receivers[u] {
			if procs&(1<<r) != 0 {
				out |= 1 << ps.del[u]
			}
		}
	}
	return out
}

// writers returns the actors other than self that may append to topic t or move its LSO: its
// producer (external topics, budget left) and its senders that have not failed.
func (ps *Sets) writers(v View, t, self int) uint64 {
	var out uint64
	if a := ps.env[t]; a >= 0 && a != self && ps.st.live(t) && ps.left(spec.ActProducePlain) {
		out |= 1 << a
	}
	for _, q := range ps.senders[t] {
		if q != self && ps.st.Processes[q].Status != Failed {
			out |= 1 << q
		}
	}
	return out
}

// mayMeetNonCommitted reports whether process r might, while mover waits, feed topic t at a
// position where a skip happens: a live channel of t has a non-committed entry (marker, aborted
// or open record) between the lowest position r could read from and the LSO, or another actor
// than mover might add one.
func (ps *Sets) mayMeetNonCommitted(v View, r, t, mover int) bool {
	p := ps.st.Processes[r]
	if p.Status == Failed {
		return false
	}
	if ps.writers(v, t, mover) != 0 {
		return true
	}
	for c := range len(ps.st.Channels) {
		if ch := &ps.st.Channels[c]; ch.Topic != t || !ch.Alive {
			continue
		}
		lo := int64(0)
		if pos, ok := v.PositionAt(r, int32(c)); ok {
			switch {
			case p.Status == Running && pos.Received && !ps.left(spec.ActCrash):
				lo = pos.ReadPos // no restart can take it back
			case pos.CommittedPos >= 0:
				lo = min(pos.ReadPos, pos.CommittedPos)
			}
		}
		if v.NonCommittedIn(int32(c), lo) {
			return true
		}
	}
	return false
}

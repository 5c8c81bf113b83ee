package world

import (
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// The dependency rules of the persistent-set closure (explore_persistent.go has the argument):
// which actors must join a set containing a process, a producer, a truncation or a deletion.
// Actor B must join a set containing actor A when a transition u of B followed by a transition
// t of A cannot be reordered into t then u with the same outcome (t·u not executable, another
// state, or other violations), judged over every state reachable from here by transitions of
// actors outside the set. Pairs that exclude each other through a shared budget (two crashes,
// two truncations, two produces with one message left) never run as u·t, so they need not join.

// procDeps returns the actors that must join a persistent set containing process i.
func (ps *persistentSets) procDeps(w *World, i int) uint64 {
	p := w.procs[i]
	if p.status == procFailed {
		return 0 // no transition, ever
	}
	var out uint64
	running := p.status == procRunning
	// Feeds of p that read the LSO (skips) or wait for it to move: every actor that may move it.
	if running {
		for _, pc := range p.recv {
			if w.alive(pc.ch) && (!p.feedable(pc) || ps.feedMaySkip(w, pc)) {
				out |= ps.writers(w, w.chans[pc.ch].topic, i)
			}
		}
	}
	// p's LSO moves and appends on the topics it sends to: receivers that may skip there, other
	// writers.
	moves := running && (p.txnOpen || (p.drainable && !ps.drainSafe))
	appends := running && (p.txnOpen || p.drainable)
	for _, u := range p.sends {
		if moves && !ps.unsoundForTest {
			for _, r := range ps.receivers[u] {
				if r != i && ps.mayMeetNonCommitted(w, r, u, i) {
					out |= 1 << r
				}
			}
		}
		if appends {
			out |= ps.writers(w, u, i)
		}
	}
	for t := range w.topics {
		// p's positions on a topic it receives are truncation candidates. On a topic it sends to,
		// its transactions move the LSO and the high watermark beyond it (candidates); with no
		// transaction open the LSO is the high watermark, and an append keeps it a candidate.
		mine := ps.recvTopics[i]&(1<<t) != 0 || (p.txnOpen && slices.Contains(p.sends, t))
		if mine && left(w, spec.ActDeleteRecords) {
			out |= 1 << ps.trunc[t]
		}
		if ps.del[t] < 0 || w.topics[t].inc < 0 || !left(w, spec.ActDeleteTopic) {
			continue
		}
		// A deletion rolls back its receivers; the identity report a start reads and the
		// liveness STRUCT15 reads at a send change for every process downstream.
		if ps.recvTopics[i]&(1<<t) != 0 || (ps.upstream[i]&(1<<t) != 0 && (!running || len(p.sends) > 0)) {
			out |= 1 << ps.del[t]
		}
	}
	return out
}

// envDeps returns the actors that must join a persistent set containing the producer of topic t:
// receivers that may skip there (a produce moves the LSO) and truncation of t (a produce moves
// the high watermark and LSO its candidates include).
func (ps *persistentSets) envDeps(w *World, t int) uint64 {
	var out uint64
	for _, r := range ps.receivers[t] {
		if ps.mayMeetNonCommitted(w, r, t, ps.env[t]) {
			out |= 1 << r
		}
	}
	if left(w, spec.ActDeleteRecords) {
		out |= 1 << ps.trunc[t]
	}
	return out
}

// truncDeps returns the actors that must join a persistent set containing the truncation of
// topic t: its receivers and writers (they change its candidates; a fetch or start after the
// truncation reads the new log start) and the deletions that roll any of them back.
func (ps *persistentSets) truncDeps(w *World, t int) uint64 {
	var out uint64
	touch := ps.toucherMask(t)
	for i, p := range w.procs {
		if p.status != procFailed && touch&(1<<i) != 0 {
			out |= 1 << i
		}
	}
	if ps.env[t] >= 0 && w.topics[t].inc >= 0 && left(w, spec.ActProducePlain) {
		out |= 1 << ps.env[t]
	}
	return out | ps.deletionsRollingBack(w, touch, t)
}

// delDeps returns the actors that must join a persistent set containing the deletion of topic
// t: its producer, its receivers (rolled back, their transactions aborted), every live process
// downstream that may start or send (a start reads the identity report, a send's STRUCT15 reads
// liveness), and the truncations whose candidates a rollback of a receiver changes.
func (ps *persistentSets) delDeps(w *World, t int) uint64 {
	var out uint64
	if left(w, spec.ActProducePlain) {
		out |= 1 << ps.env[t]
	}
	var rolled uint64
	for i, p := range w.procs {
		if ps.recvTopics[i]&(1<<t) != 0 {
			rolled |= 1 << i
		}
		if p.status == procFailed || ps.upstream[i]&(1<<t) == 0 {
			continue
		}
		// A downstream process that does not receive t reads its liveness only when it starts
		// (the identity report) or sends (STRUCT15): not while it runs and cannot crash.
		if rolled&(1<<i) != 0 || p.status != procRunning || left(w, spec.ActCrash) || len(p.sends) > 0 {
			out |= 1 << i
		}
	}
	if left(w, spec.ActDeleteRecords) {
		for u := range w.topics {
			if u == t || ps.toucherMask(u)&rolled != 0 {
				out |= 1 << ps.trunc[u]
			}
		}
	}
	return out
}

// toucherMask returns the processes that receive or send topic t.
func (ps *persistentSets) toucherMask(t int) uint64 {
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
func (ps *persistentSets) deletionsRollingBack(w *World, procs uint64, t int) uint64 {
	var out uint64
	if !left(w, spec.ActDeleteTopic) {
		return 0
	}
	for u := range w.topics {
		if u == t || ps.del[u] < 0 || w.topics[u].inc < 0 {
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
func (ps *persistentSets) writers(w *World, t, self int) uint64 {
	var out uint64
	if a := ps.env[t]; a >= 0 && a != self && w.topics[t].inc >= 0 && left(w, spec.ActProducePlain) {
		out |= 1 << a
	}
	for _, q := range ps.senders[t] {
		if q != self && w.procs[q].status != procFailed {
			out |= 1 << q
		}
	}
	return out
}

// feedMaySkip reports whether feeding pc now finds no committed record below the LSO (its read
// position then jumps to the LSO).
func (ps *persistentSets) feedMaySkip(w *World, pc *pcState) bool {
	c := pc.ch
	from := pc.readPos
	if logStart := int64(w.offsets(c).LogStart); from < logStart {
		if w.opts.HostSabotage != spec.HostResetPastLogStart {
			return false // it refuses: reads the log start, not the LSO
		}
		from = logStart
	}
	return w.or.FirstRecordIn(c, from, w.chans[c].lso-1) < 0
}

// mayMeetNonCommitted reports whether process r might, while mover waits, feed topic t at a
// position where a skip happens: a live channel of t has a non-committed entry (marker, aborted
// or open record) between the lowest position r could read from and the LSO, or another actor
// than mover might add one.
func (ps *persistentSets) mayMeetNonCommitted(w *World, r, t, mover int) bool {
	p := w.procs[r]
	if p.status == procFailed {
		return false
	}
	if ps.writers(w, t, mover) != 0 {
		return true
	}
	for c := range w.chans {
		ch := &w.chans[c]
		if ch.topic != t || !w.alive(int32(c)) {
			continue
		}
		lo := int64(0)
		if pc := p.pcs.At(int32(c)); pc != nil {
			switch {
			case p.status == procRunning && pc.received && !left(w, spec.ActCrash):
				lo = pc.readPos // no restart can take it back
			case pc.committedPos >= 0:
				lo = min(pc.readPos, pc.committedPos)
			}
		}
		for o := lo; o < ch.lso; o++ {
			if w.or.RecordAt(int32(c), o) == 0 {
				return true
			}
		}
	}
	return false
}

// Package targets holds Memo, the simulator's count of where a fail-closed fault has an
// interesting target, kept up to date as processes change instead of recomputed from the whole
// world at every step.
//
// A fault of kind j has a target on topic t when some process that is neither failed nor doomed
// is a target of kind j there and, for the kinds a doomed receiver holds back (in the simulator
// every fail-closed kind but a corrupt header), no doomed process receives t: a fault on t would
// stop a survivor of an earlier fault.
// Each process contributes the topics it receives, with the kinds it is a target of on each, and
// whether it is doomed. The world marks a process stale when something its contribution reads
// changes; a question first recomputes the stale contributions through the world's callback, so
// its cost follows what changed since the last question, not the size of the world.
package targets

import "math/bits"

// Contribution computes process i's contribution for the kinds in kinds (bit j: kind j): it
// calls add once or more per topic i receives, with the kinds among kinds it is a target of
// there (0 when doomed), and reports whether i is doomed.
type Contribution func(i int, kinds uint8, add func(topic int, targetOf uint8)) (doomed bool)

// Memo counts, per kind, the topics where the kind has a target.
type Memo struct {
	kinds        uint8 // the kinds kept
	ignoreDoomed uint8 // the kinds a doomed receiver does not hold back
	procs        []proc
	stale        []bool  // per process: its contribution is out of date
	staleList    []int32 // the processes marked in stale
	doomedRecv   []int32 // per topic: doomed processes receiving it
	// cand[j][t] counts the processes that are targets of kind j on topic t; good[j] counts the
	// topics where that is above 0 and kind j is not held back by a doomed receiver.
	cand  [8][]int32
	good  [8]int
	cur   *proc // the contribution add is building
	f     Contribution
	addf  func(int, uint8) // add, bound once
	mask  MaskFunc         // computes the action masks, built at the first Masks call
	masks *Masks           // the processes' action masks, stale when their contributions are
	declf Declared         // computes the declarer counts, built at the first Declarers call
	decl  *Declarers       // the declarer counts, stale with them too
	factf MaskFunc         // computes the processes' facts, built at the first Facts call
	facts *Masks           // the processes' facts, stale with them too
}

// proc is one process's contribution.
type proc struct {
	topics []int   // the distinct topics it received when computed
	masks  []uint8 // per topic in topics: the kinds it is a target of there
	doomed bool
}

// New returns a memo for procs processes and topics topics keeping the kinds in kinds, of which
// the kinds in ignoreDoomed are not held back by doomed receivers, whose contributions f
// computes, whose action masks mask computes (see Masks), whose declarer counts declared
// computes (see Declarers) and whose facts facts computes (see Facts); every process starts
// stale.
func New(procs, topics int, kinds, ignoreDoomed uint8, f Contribution, mask MaskFunc, declared Declared, facts MaskFunc) *Memo {
	m := &Memo{kinds: kinds, ignoreDoomed: ignoreDoomed, procs: make([]proc, procs), stale: make([]bool, procs),
		doomedRecv: make([]int32, topics), f: f, mask: mask, declf: declared, factf: facts}
	m.addf = m.add
	for j := range m.cand {
		if kinds&(1<<j) != 0 {
			m.cand[j] = make([]int32, topics)
		}
	}
	for i := range procs {
		m.Stale(i)
	}
	return m
}

// Stale marks process i's contribution, and its mask, out of date; a nil memo, not built yet,
// ignores it.
func (m *Memo) Stale(i int) {
	if m == nil {
		return
	}
	if m.masks != nil {
		m.masks.Stale(i)
	}
	if m.decl != nil {
		m.decl.markStale(i)
	}
	if m.facts != nil {
		m.facts.Stale(i)
	}
	if !m.stale[i] {
		m.stale[i] = true
		m.staleList = append(m.staleList, int32(i))
	}
}

// Masks returns the processes' action masks, which the memo marks stale with the contributions,
// computed by the memo's MaskFunc; they are built at the first call, every mask stale. A memo
// whose masks are never asked for (an exploration's) keeps none.
func (m *Memo) Masks() *Masks {
	if m.masks == nil {
		m.masks = newMasks(len(m.procs), m.mask)
	}
	return m.masks
}

// Declarers returns the declarer counts, which the memo marks stale with the contributions,
// computed by its Declared for every topic, with the stale parts recomputed; they are built at
// the first call, every part stale.
func (m *Memo) Declarers() *Declarers {
	if m.decl == nil {
		m.decl = newDeclarers(len(m.procs), len(m.doomedRecv), m.declf)
	}
	m.decl.refresh()
	return m.decl
}

// Facts returns the processes' facts, which the memo marks stale with the contributions: masks
// (see Masks) whose bits are facts of a process that the world's rules count over every process,
// computed by the memo's facts function, with the stale ones recomputed. They are built at the
// first call, every process stale.
func (m *Memo) Facts() *Masks {
	if m.facts == nil {
		m.facts = newMasks(len(m.procs), m.factf)
	}
	m.facts.Refresh()
	return m.facts
}

// Has reports whether kind j, which m keeps, has a target, recomputing the stale contributions
// first.
func (m *Memo) Has(j int) bool {
	for _, i := range m.staleList {
		m.stale[i] = false
		pt := &m.procs[i]
		m.contribute(pt, -1)
		pt.topics, pt.masks = pt.topics[:0], pt.masks[:0]
		m.cur = pt
		pt.doomed = m.f(int(i), m.kinds, m.addf)
		m.cur = nil
		m.contribute(pt, +1)
	}
	m.staleList = m.staleList[:0]
	return m.good[j] > 0
}

// add records topic t with the kinds targetOf in the contribution being computed, once per topic.
func (m *Memo) add(t int, targetOf uint8) {
	pt := m.cur
	for n, u := range pt.topics {
		if u == t {
			pt.masks[n] |= targetOf
			return
		}
	}
	pt.topics = append(pt.topics, t)
	pt.masks = append(pt.masks, targetOf)
}

// contribute adds (sign +1) or removes (-1) pt's counts, keeping good in step.
func (m *Memo) contribute(pt *proc, sign int32) {
	for n, t := range pt.topics {
		if pt.doomed {
			before := m.doomedRecv[t]
			m.doomedRecv[t] += sign
			if (before == 0) != (m.doomedRecv[t] == 0) {
				for b := m.kinds &^ m.ignoreDoomed; b != 0; b &= b - 1 {
					if j := bits.TrailingZeros8(b); m.cand[j][t] > 0 {
						m.good[j] += delta(before == 0)
					}
				}
			}
			continue
		}
		for b := pt.masks[n] & m.kinds; b != 0; b &= b - 1 {
			j := bits.TrailingZeros8(b)
			before := m.cand[j][t]
			m.cand[j][t] += sign
			if (before == 0) != (m.cand[j][t] == 0) && (m.ignoreDoomed&(1<<j) != 0 || m.doomedRecv[t] == 0) {
				m.good[j] += delta(before != 0)
			}
		}
	}
}

// delta is -1 when a topic stops counting (was) and +1 when it starts.
func delta(was bool) int {
	if was {
		return -1
	}
	return 1
}

package oracle

// HOST (SPEC §6.1 H1–H6): the host obligations, verified from outside the host. H1: within an
// execution each channel is fed in strictly increasing position order. H2: a start position
// never covers a committed record the process was not fed (below it everything was fed and
// committed, lies below the first read, or is within the true delivered past). H6: a step begun
// by a superseded execution never commits: after a zombie's attempt at the host's commit
// sequence the group offsets and the state store are as they were (OnZombieCommit). H3–H5 are
// judged on what reached the substrate and the state store by the other checkers: a crash can
// land between any two calls of the host's commit sequence, after which the state store
// must hold the reference node's committed state (REFERENCE) and the next start must feed every
// record its committed history did not (H2, S8); every start is node.Start from committed state;
// a crash discards the working positions.

import (
	"fmt"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/substrate"
)

// checkFeed checks H1 for feeding pos on pc, then the S8 reader-jump rule.
func (o *Oracle) checkFeed(at At, p *Proc, pc *chanState, pos int64, uid uint64) {
	if pos <= pc.lastFed {
		o.Violate(at, spec.CritHost, p.idx, fmt.Sprintf("H1: fed %s after position %d in the same execution", o.MsgName(uid), pc.lastFed))
	}
	o.checkSkippedRecords(at, p, pc, pos)
}

// checkStartPositions checks H2 for every received channel of a new execution.
func (o *Oracle) checkStartPositions(at At, p *Proc) {
	for _, c := range p.recv {
		oc := p.chans.At(c)
		if !oc.firstFixed || !o.Alive(c) {
			continue
		}
		from := max(oc.fedHigh+1, oc.firstRead)
		if q, ok := p.tdp.C.Lookup(o.Channel(c)); ok {
			from = max(from, int64(q)+1)
		}
		if a := o.FirstRecordIn(c, from, oc.startPos-1); a >= 0 {
			o.Violate(at, spec.CritHost, p.idx, fmt.Sprintf("H2: start position %d on %s covers %s, which was never fed",
				oc.startPos, o.ChanName(c), o.MsgName(o.RecordAt(c, a))))
		}
	}
}

// checkStartRule checks that each start position is the one SPEC §7.4 gives the execution
// (H2), computed from what it starts from rather than from the host's choice: the group's
// committed offset; without one, the committed state's fedUpTo+1; otherwise, and for a channel
// whose fedUpTo is the deleted-channel marker, the log start of the live incarnation, whose first
// fetch then decides whether retention still holds it (a channel joining the received set, whose
// causes behind the delivered past the join clamp then drops: SPEC §9 scenario 13). A dead
// channel is never fetched: it starts at 0. A host that starts lower than the rule fails closed
// (POSITIONS_DISCARDED_UNREAD) over records nothing entitled it to read; one that starts higher
// skips records the rule would have it fetch. §7.4's "0 if the state names the channel but never
// covered it" is not judged: read literally (names = frontier or delivered past) it contradicts
// scenario 13's "survives retention at the clamp position", and the host follows scenario 13.
func (o *Oracle) checkStartRule(at At, p *Proc, recv []int32, starts []node.Cause, offs []substrate.GroupOffset, stored *node.State) {
	for i, c := range recv {
		if want := o.specStart(c, offs, stored); int64(starts[i].Position) != want {
			o.Violate(at, spec.CritHost, p.idx, fmt.Sprintf("H2: start position %d on %s, where SPEC §7.4 starts it at %d",
				starts[i].Position, o.ChanName(c), want))
		}
	}
}

// specStart is channel c's start position by the rule checkStartRule states, for an execution
// starting from the committed offsets offs and the committed state stored.
func (o *Oracle) specStart(c int32, offs []substrate.GroupOffset, stored *node.State) int64 {
	nc := o.Channel(c)
	tp := substrate.TopicPartition{Topic: substrate.TopicID(nc.Topic), Partition: substrate.Partition(nc.Partition)}
	for i := len(offs) - 1; i >= 0; i-- {
		if offs[i].TopicPartition == tp {
			return int64(offs[i].Offset)
		}
	}
	if stored != nil {
		if f, fed := stored.FedUpTo(nc); fed && f < node.MaxOffset {
			return int64(f) + 1
		}
	}
	if !o.Alive(c) {
		return 0
	}
	return o.logStart(c)
}

// OnZombieCommit judges a superseded execution's attempt at p's commit sequence: it reports H6
// when the attempt changed what the next start reads, the group's committed offsets (offs before
// the attempt, now after it) or the state store (the committed state was state before it, after
// after it; a write replaces it).
func (o *Oracle) OnZombieCommit(at At, p *Proc, offs, now []substrate.GroupOffset, state, after *node.State) {
	if !slices.Equal(now, offs) {
		o.Violate(at, spec.CritHost, p.idx, fmt.Sprintf("H6: a superseded execution committed read positions %v (were %v)", now, offs))
	}
	if after != state {
		o.Violate(at, spec.CritHost, p.idx, "H6: a superseded execution wrote its step's ordering state")
	}
}

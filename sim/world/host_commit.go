package world

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/substrate"
)

// The host's commit sequence (H3, H6). A step commits through a few substrate calls: begin the
// step's transaction (unless an emission began it), send the read positions into it, commit it.
// The step's ordering-state delta rides in the same transaction, as the changelog record of a
// Kafka Streams state store would, so the state the next start reads changes exactly when the
// transaction commits, and a fenced producer can change nothing. A step with nothing to persist
// (no transaction open, no read position moved, nothing dirty) makes no call.
//
// A crash can land after any call of the sequence (ActCommitCrash: between two calls, or after the
// last and before the host's own bookkeeping), and a superseded execution (a zombie) runs the same
// sequence with its own read positions, emissions and fenced producer (World.zombie). What is
// judged is what reached the substrate and the state store, never what the host says it did:
//   - the oracle takes the step as committed when its transaction commits (stepCommitted, the
//     durable point), and the reference node commits its own state there;
//   - the state the host persisted is compared with the reference node's when the sequence ends,
//     and right after a crash inside it or a zombie's attempt (REFERENCE: the next start reads
//     it, and nothing writes it while the process is down);
//   - the group offsets a start reads are judged by H2 at that start (start positions covering
//     records the committed history never fed) and S8;
//   - after a zombie's attempt, the group offsets and the state store must be as they were (H6).
//
// So a host that writes its ordering state outside the transaction, before or after it, is
// caught by REFERENCE, one that commits read positions outside it by HOST (H2) and S8, and a
// zombie that writes anything by HOST (H6) and REFERENCE (the host sabotage modes
// STATE_BEFORE_COMMIT, STATE_AFTER_COMMIT, OFFSETS_OUTSIDE_TXN and ZOMBIE_IGNORES_FENCE).

// commitCall is one call of the host's commit sequence.
type commitCall uint8

const (
	seqBegin         commitCall = iota + 1 // BeginTransaction: no emission began the step's transaction
	seqSendOffsets                         // SendOffsetsToTransaction: the read positions, into the transaction
	seqCommit                              // CommitTransaction, the ordering-state delta in it
	seqCommitBare                          // CommitTransaction without the delta (sabotage: the state is written apart)
	seqWriteState                          // the ordering-state delta written to the state store alone (sabotage)
	seqCommitOffsets                       // CommitOffsets: the read positions outside the transaction (sabotage)
)

// maxCommitCalls bounds a commit sequence's length.
const maxCommitCalls = 4

// commitPlan appends the calls of p's commit sequence to plan, given whether read positions moved.
func (p *proc) commitPlan(plan []commitCall, offsets bool) []commitCall {
	h := p.w.opts.HostSabotage
	if h == spec.HostOffsetsOutsideTxn && offsets {
		plan = append(plan, seqCommitOffsets)
		offsets = false
	}
	if !p.txnOpen && !offsets && !p.stepDirty {
		return plan
	}
	if !p.txnOpen {
		plan = append(plan, seqBegin)
	}
	if offsets {
		plan = append(plan, seqSendOffsets)
	}
	switch h {
	case spec.HostStateBeforeCommit:
		return append(plan, seqWriteState, seqCommitBare)
	case spec.HostStateAfterCommit:
		return append(plan, seqCommitBare, seqWriteState)
	}
	return append(plan, seqCommit)
}

// commitCalls returns the number of calls p's commit sequence makes now.
func (p *proc) commitCalls() int {
	var room [maxCommitCalls]commitCall
	return len(p.commitPlan(room[:0], p.offsetsMoved()))
}

// offsetsMoved reports whether a live received channel's read position differs from its
// committed one.
func (p *proc) offsetsMoved() bool {
	for _, pc := range p.recv {
		if pc.readPos != pc.committedPos && p.w.alive(pc.ch) {
			return true
		}
	}
	return false
}

// commitSequence runs p's commit sequence. With crashAfter >= 0 the host crashes once it has
// made that many calls (the caller then crashes the process): crashed says so. err is the
// failure of a call (a fenced producer): the step did not commit.
func (p *proc) commitSequence(crashAfter int) (crashed bool, err error) {
	w := p.w
	offs := w.groupBuf[:0] // the calls copy what they keep
	for _, pc := range p.recv {
		if pc.readPos != pc.committedPos && w.alive(pc.ch) {
			offs = append(offs, substrate.GroupOffset{TopicPartition: w.chans[pc.ch].tp, Offset: substrate.Offset(pc.readPos)})
		}
	}
	w.groupBuf = offs
	var room [maxCommitCalls]commitCall
	plan := p.commitPlan(room[:0], len(offs) > 0)
	delta := p.eng.Commit()
	for i, call := range plan {
		if i == crashAfter {
			return true, nil
		}
		if err := p.commitCall(call, offs, delta); err != nil {
			if w.opts.HostSabotage != spec.HostZombieIgnoresFence || !errors.Is(err, substrate.ErrFenced) {
				return false, err
			}
			if call == seqCommit {
				p.applyDelta(delta) // the sabotaged host takes the fenced commit for done
			}
		}
	}
	if crashAfter >= len(plan) {
		return true, nil
	}
	if !slices.ContainsFunc(plan, isTxnCommit) {
		// Nothing to persist (or, sabotaged, only an offset commit outside any transaction):
		// the step commits in place.
		p.applyDelta(delta)
		p.stepCommitted()
	}
	w.or.RefCheckCommitted(w.at(), &p.ref, p.committed)
	return false, nil
}

// isTxnCommit reports whether call commits the step's transaction.
func isTxnCommit(call commitCall) bool { return call == seqCommit || call == seqCommitBare }

// commitCall makes one call of the commit sequence.
func (p *proc) commitCall(call commitCall, offs []substrate.GroupOffset, delta node.Delta) error {
	w := p.w
	switch call {
	case seqBegin:
		if err := w.sub.BeginTransaction(p.txn); err != nil {
			return err
		}
		p.txnOpen = true
	case seqSendOffsets:
		return w.sub.SendOffsetsToTransaction(p.txn, p.group, offs)
	case seqCommitOffsets:
		if err := w.sub.CommitOffsets(p.group, offs); err != nil {
			return err
		}
		// Read positions reached the substrate: where this execution started reading is where
		// the process first read (H2, S8), whatever becomes of the step.
		for _, pc := range p.recv {
			if w.alive(pc.ch) {
				p.o.OnReadFrom(pc.ch)
			}
		}
	case seqWriteState:
		p.applyDelta(delta)
	case seqCommit, seqCommitBare:
		if err := w.sub.CommitTransaction(p.txn); err != nil {
			return err
		}
		p.txnOpen = false
		if call == seqCommit {
			p.applyDelta(delta)
		}
		p.stepCommitted()
	default:
		panic(fmt.Sprintf("world: commit call %d", call))
	}
	return nil
}

// stepCommitted is the step's durable point: its transaction committed. The reference node
// commits its own state, the oracle makes the step real, and the host moves its committed read
// positions and re-reads the LSOs its transaction moved.
func (p *proc) stepCommitted() {
	w := p.w
	w.or.RefCommit(&p.ref)
	for _, pc := range p.recv {
		if w.alive(pc.ch) {
			pc.committedPos = pc.readPos
		}
	}
	p.refreshStepChans()
	for _, uid := range w.or.OnCommit(w.at(), &p.o) {
		w.noteCommitted(uid)
	}
	w.sess.OnCommit(p.idx) // a projector's rows become real (package tiers)
	p.stepDirty = false
	w.stats.Commits++
	if w.tracing {
		w.emitProc("committed", p, "")
	}
}

// crashInsideCommit returns, for a scheduled crash of p, the number of calls of p's commit
// sequence after which the crash lands (between two calls, never after the last), or 0 for a
// crash outside any commit: a share Settings.CommitCrashPct of the crashes of a process whose
// step is not committed, when its sequence has two calls or more. The draws come from the run's
// own stream, never the Chooser, and a crash before the sequence's last call commits nothing
// the honest host would not have rolled back, so with an honest host the run's choices and world
// are those of the run with a plain crash there. There, a host that breaks a step's atomicity
// leaves a state no whole step explains; a crash at a random point rarely lands there.
func (w *World) crashInsideCommit(p *proc) int {
	if w.set.CommitCrashPct == 0 || !p.stepDirty {
		return 0
	}
	n := p.commitCalls()
	if n < 2 {
		return 0
	}
	if !w.commitCrashSeeded {
		w.commitCrashPCG.Seed(w.set.Seed, swarm.CommitCrashStream+1)
		w.commitCrashSeeded = true
	}
	rng := rand.New(&w.commitCrashPCG)
	if rng.IntN(100) >= w.set.CommitCrashPct {
		return 0
	}
	return 1 + rng.IntN(n-1)
}

// commitCrash runs p's commit sequence and crashes p once it has made calls calls (after the
// last one: between its commit and the host's own bookkeeping). The state store must then hold
// what the reference node committed (REFERENCE): the next start reads it.
func (w *World) commitCrash(p *proc, calls int) {
	n := p.commitCalls()
	if _, err := p.commitSequence(min(calls, n)); err != nil {
		panic(fmt.Sprintf("world: commit of a live execution of %s failed: %v", p.spec.Name, err))
	}
	w.stats.CommitCrashes++
	if w.tracing { // the detail is formatted only for a trace
		w.emitProc("commit-crash", p, fmt.Sprintf("after %d of %d calls of the commit", min(calls, n), n))
	}
	p.crash()
	w.or.RefCheckStored(w.at(), &p.ref, p.committed, fmt.Sprintf("after a crash %d calls into a commit of %d", min(calls, n), n))
}

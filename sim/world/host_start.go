package world

import (
	"fmt"
	"maps"
	"slices"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/substrate"
)

// start begins a new execution (H4: always a full initialisation from committed state). full
// resolves the declared topic names again (an application start); otherwise the incarnations
// resolved at the last full start are kept (a task re-initialisation after a rebalance,
// migration, or the deletion or recreation of a received topic), so a recreated topic reaches the
// engine through the identity report. It reports whether the process is running afterwards.
func (p *proc) start(full bool) bool {
	w := p.w
	if full {
		p.resolve()
	}
	p.execution++
	recv := p.receivedChannels()
	committedOffs := p.committedOffsets()
	spare, se := p.deadEngine()
	init := p.buildInit(recv, committedOffs, &se.init)
	opts := node.Options{MetadataBudgetBytes: w.budget, Sabotage: w.opts.Sabotage}
	eng, err := p.startEngine(se, spare, init, opts)
	var dead, recreated []node.TopicID
	var ierr error
	if err == nil {
		dead, recreated = w.identityReport()
		ierr = eng.Identity(dead, recreated)
	}
	w.or.RefStart(w.at(), &p.ref, init, err, dead, recreated, ierr)
	if err == nil {
		err = ierr
	}
	p.setReceived(recv, init.StartPositions, committedOffs)
	if w.tracing {
		w.emitProc("started", p, fmt.Sprintf("execution %d receives %s", p.execution, p.recvString()))
	}
	if err != nil {
		p.refuse(err)
		return false
	}
	p.eng = eng
	p.workMark = workUnits(eng.Counters())
	txn, terr := w.sub.InitTransactions(p.txnID)
	if terr != nil {
		panic(fmt.Sprintf("world: init transactions of %s: %v", p.spec.Name, terr))
	}
	p.txn, p.txnOpen = txn, false
	p.status = procRunning
	p.stepDirty, p.drainable = true, true
	w.or.OnStart(&p.o)
	w.stats.Starts++
	return true
}

// resolve binds every declared topic name to its live incarnation; a deleted topic keeps the
// incarnation resolved earlier (its channel stays in the received set so the identity report
// can settle or refuse it). The maps are replaced, never changed in place, so cloned worlds
// share them (world_clone.go).
func (p *proc) resolve() {
	if p.resolvedCurrent() {
		return // nothing would change: keep sharing the maps
	}
	p.resolved, p.everResolved = maps.Clone(p.resolved), maps.Clone(p.everResolved)
	p.resolvedDigest = 0
	for _, t := range p.declared {
		if inc := p.w.topics[t].inc; inc >= 0 {
			p.resolved[t] = inc
			p.everResolved[t] = true
		}
	}
}

// resolvedCurrent reports whether resolve would change nothing: every declared topic that has a
// live incarnation is resolved to it and marked ever resolved already.
func (p *proc) resolvedCurrent() bool {
	for _, t := range p.declared {
		if inc := p.w.topics[t].inc; inc >= 0 {
			if cur, ok := p.resolved[t]; !ok || cur != inc || !p.everResolved[t] {
				return false
			}
		}
	}
	return true
}

// receivedChannels returns the channels of this execution: partition Task of every declared
// topic's resolved incarnation that has it, sorted by channel index.
func (p *proc) receivedChannels() []int32 {
	out := make([]int32, 0, len(p.declared))
	for _, t := range p.declared {
		inc, ok := p.resolved[t]
		if !ok {
			continue
		}
		if c := p.w.chanOf(inc, p.spec.Task); c >= 0 {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// buildInit assembles the engine's Init: received channels, the declared bindings as resolved,
// the sent topics, and start positions (H2): the committed group offset; without one, coverage+1
// from the ordering state; without that, the log start (EARLIEST) — 0 for a dead channel.
// init.StartPositions[i] is recv[i]'s start position. The lists live in room, when they fit.
func (p *proc) buildInit(recv []int32, committedOffs []substrate.GroupOffset, room *initRoom) node.Init {
	w := p.w
	init := node.Init{
		Received:       inlineOrMake(room.received[:], len(recv), len(recv)),
		StartPositions: inlineOrMake(room.starts[:], len(recv), len(recv)),
		Bindings:       inlineOrMake(room.bindings[:], 0, len(p.declared)),
		SendTopics:     inlineOrMake(room.sends[:], 0, len(p.sends)),
	}
	for _, t := range p.declared {
		if inc, ok := p.resolved[t]; ok {
			init.Bindings = append(init.Bindings, node.Binding{Name: w.topics[t].spec.Name, Topic: node.TopicID(w.incs[inc].id)})
		}
	}
	for _, t := range p.sends {
		if inc := w.topics[t].inc; inc >= 0 {
			init.SendTopics = append(init.SendTopics, node.TopicID(w.incs[inc].id))
		}
	}
	for i, c := range recv {
		nc := w.chans[c].nc
		s := int64(0) // a dead channel's
		if o, ok := committedOffset(committedOffs, w.chans[c].tp); ok {
			s = o
		} else if f, ok := p.committed.FedUpTo(nc); ok && f < node.MaxOffset {
			s = int64(f) + 1
		} else if w.alive(c) {
			s = int64(w.offsets(c).LogStart)
		}
		if p.w.hooks != nil && p.w.hooks.startPosition != nil {
			s = p.w.hooks.startPosition(p.idx, c, s)
		}
		init.Received[i], init.StartPositions[i] = nc, node.Cause{Channel: nc, Position: node.Offset(s)}
	}
	return init
}

// committedOffsets reads the process's committed group offsets from the substrate, into a buffer
// of the world's (valid until the next start). A group holds one offset per received channel, so
// a linear lookup (committedOffset) beats building a map at every start.
func (p *proc) committedOffsets() []substrate.GroupOffset {
	w := p.w
	w.groupBuf = w.appendCommittedOffsets(w.groupBuf[:0], p.group)
	return w.groupBuf
}

// committedOffset finds tp's committed offset in offs; the last entry wins, as it would in a map
// built from offs in order.
func committedOffset(offs []substrate.GroupOffset, tp substrate.TopicPartition) (int64, bool) {
	for i := len(offs) - 1; i >= 0; i-- {
		if offs[i].TopicPartition == tp {
			return int64(offs[i].Offset), true
		}
	}
	return 0, false
}

// setReceived installs the execution's received channels and their read positions (starts[i]
// is recv[i]'s start position).
func (p *proc) setReceived(recv []int32, starts []node.Cause, offs []substrate.GroupOffset) {
	for _, pc := range p.recv {
		pc.received = false
	}
	p.recv = p.recv[:0]
	for i, c := range recv {
		pc := p.pc(c)
		pc.received = true
		s := int64(starts[i].Position)
		pc.startPos, pc.readPos, pc.lastFed = s, s, s-1
		pc.committedPos = -1
		p.recv = append(p.recv, pc)
	}
	for _, pc := range p.recv {
		if o, ok := committedOffset(offs, p.w.chans[pc.ch].tp); ok {
			pc.committedPos = o
		}
	}
	p.w.or.OnReceived(p.w.at(), &p.o, recv, starts, offs, p.committed)
}

// identityReport lists every dead topic ID the world ever had, split into deleted and recreated
// (what describing each ID the state names would answer; extra IDs are ignored by the engine).
// Only an incarnation's birth or death changes it, so it is computed again only when one of their
// counts has moved.
func (w *World) identityReport() (dead, recreated []node.TopicID) {
	at := [2]int{len(w.incs), w.deaths}
	if w.identity.at == at {
		return w.identity.dead, w.identity.recreated
	}
	defer func() {
		w.identity.at, w.identity.dead, w.identity.recreated = at, slices.Clip(dead), slices.Clip(recreated)
	}()
	for i := range w.incs {
		if w.incs[i].alive {
			continue
		}
		id := node.TopicID(w.incs[i].id)
		if w.recreated(int32(i)) {
			recreated = append(recreated, id)
		} else {
			dead = append(dead, id)
		}
	}
	return dead, recreated
}

// recvString renders the received channels with their start positions.
func (p *proc) recvString() string {
	s := "["
	for i, pc := range p.recv {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s@%d", p.w.chanName(pc.ch), pc.startPos)
	}
	return s + "]"
}

// initRoom is room for the lists of a start's node.Init, in its startedEngine.
type initRoom struct {
	received [initRoomLen]node.Channel
	starts   [initRoomLen]node.Cause
	bindings [initRoomLen]node.Binding
	sends    [initRoomLen]node.TopicID
}

// initRoomLen is the most entries per list initRoom holds (a scope's process receives, declares
// and sends a few topics).
const initRoomLen = 4

// inlineOrMake returns make([]T, n, c), carved from room (capacity-capped) when c fits in it.
func inlineOrMake[T any](room []T, n, c int) []T {
	if c <= len(room) {
		return room[:n:c]
	}
	return make([]T, n, c)
}

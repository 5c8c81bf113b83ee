package sim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// Cloning a world for the explorer. A clone is an independent world that continues exactly as
// the original would: same substrate, same shadow logs and messages, same hosts, engines (rebuilt
// from their journals on first use, world_clone_engine.go) and oracle. What a run only reports
// (the latency samples, the trace) is not carried over; the stats are.
//
// Sharing rules: everything immutable after creation is shared (scenario, topic specs, message
// pasts and payloads, journal prefixes); frontiers the oracle keeps copy-on-write are marked
// shared on both sides; the committed ordering state is shared copy-on-write
// (proc.committedShared); everything else is copied. TestCloneCoversEveryField fails when a field
// is added to a cloned struct, so this file is revisited.

// clone returns a deep copy of w whose topic IDs continue from ids (the clone's own copy of the
// ID stream's PCG: the clone issues the IDs the original would have) and whose Chooser is ch.
func (w *world) clone(ids *rand.PCG, ch Chooser) *world {
	c := *w
	c.chooser = &recorder{inner: ch}
	c.streams.IDs = rand.New(ids)
	c.sub = w.sub.CloneWithIDs(c.streams.topicIDs())
	c.topics = slices.Clone(w.topics)
	c.incs = slices.Clone(w.incs)
	c.chans = slices.Clone(w.chans)
	for i := range c.chans {
		c.chans[i].slots = slices.Clip(c.chans[i].slots)
	}
	if w.set.Weights[ActRecreateTopic] > 0 { // a recreation adds channels to the map
		c.chanByNode = maps.Clone(w.chanByNode)
	}
	c.msgs = slices.Clone(w.msgs)
	c.ext.openUIDs = slices.Clone(w.ext.openUIDs)
	c.ext.openChans = slices.Clone(w.ext.openChans)
	c.violations = slices.Clip(w.violations)
	c.stats.Refusals = maps.Clone(w.stats.Refusals)
	c.stats.Session = maps.Clone(w.stats.Session)
	c.lat = latencies{}
	c.weights = nil
	c.script = nil
	c.procs = make([]*proc, len(w.procs))
	for i, p := range w.procs {
		c.procs[i] = p.clone(&c)
	}
	c.sess = w.sess.clone(&c)
	return &c
}

// clone copies p into world w.
func (p *proc) clone(w *world) *proc {
	c := *p
	c.w = w
	c.declared = slices.Clone(p.declared)
	// resolved and everResolved are shared: resolve replaces them rather than changing them.
	if p.committed != nil {
		p.committedShared, c.committedShared = true, true
	}
	c.eng = p.eng.clone()
	c.stepChans = slices.Clone(p.stepChans)
	c.fetchBuf = nil
	c.pcs = make(map[int32]*pcState, len(p.pcs))
	all := make([]pcState, 0, len(p.pcs)) // one allocation for every channel's copy
	for ch, pc := range p.pcs {
		all = append(all, *pc)
		cp := &all[len(all)-1]
		cp.delivered = slices.Clone(pc.delivered) // changed in place by slices.Insert/Delete
		cp.pending = slices.Clone(pc.pending)
		c.pcs[ch] = cp
	}
	c.recv = make([]*pcState, len(p.recv))
	for i, pc := range p.recv {
		c.recv[i] = c.pcs[pc.ch]
	}
	c.o = p.o.clone(p, &c)
	return &c
}

// clone copies the oracle of p into the oracle of its copy c, remapping the undo log's
// pointers into c's own channel states.
func (o *procOracle) clone(p, c *proc) procOracle {
	n := *o
	for _, f := range o.frontiers() {
		f.shared = true
	}
	for _, f := range n.frontiers() {
		f.shared = true
	}
	n.undo = slices.Clone(o.undo)
	for i := range n.undo {
		u := &n.undo[i]
		if u.pc != nil {
			u.pc = c.pcs[u.pc.ch]
		}
		if u.ptr != nil {
			u.ptr = c.remapInt(p, u.ptr)
		}
	}
	n.staged = slices.Clone(o.staged)
	n.stepSent = slices.Clone(o.stepSent)
	n.stepLat = nil
	return n
}

// remapInt maps a pointer to one of p's staged integers to the same field of its copy c.
func (c *proc) remapInt(p *proc, ptr *int64) *int64 {
	if ptr == &p.o.deliveries {
		return &c.o.deliveries
	}
	for ch, pc := range p.pcs {
		if ptr == &pc.fedHigh {
			return &c.pcs[ch].fedHigh
		}
	}
	panic(fmt.Sprintf("sim: clone of %s: the oracle's undo log points at an integer clone does not know", p.spec.Name))
}

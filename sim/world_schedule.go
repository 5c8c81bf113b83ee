package sim

// The safety-phase scheduler. Each step asks the Chooser which enabled action kind fires (weights
// from the settings, zero for kinds with no eligible target), then which target (process,
// channel, topic, offset) — always over lists in a fixed order, so a run is a pure function of
// its choices.

// procMask is the set of action kinds a process is an eligible target of.
type procMask uint32

// processKinds are the action kinds that act on one process.
var processKinds = []ActionKind{ActFeed, ActDrain, ActCommit, ActCrash, ActStop, ActStart, ActRewind,
	ActRedeclare, ActMigrate, ActZombie}

// maskOf computes the kinds p is an eligible target of.
func (w *world) maskOf(p *proc) procMask {
	var m procMask
	switch p.status {
	case procRunning:
		m |= 1<<ActCrash | 1<<ActStop | 1<<ActMigrate | 1<<ActZombie
		if p.anyFeedable() {
			m |= 1 << ActFeed
		}
		if p.drainable {
			m |= 1 << ActDrain
		}
		if p.stepDirty {
			m |= 1 << ActCommit
		}
	case procDown:
		m |= 1<<ActStart | 1<<ActRedeclare
		if w.rewindable(p) {
			m |= 1 << ActRewind
		}
	}
	return m
}

// rewindable reports whether down process p has a committed position above 0 on a live channel.
func (w *world) rewindable(p *proc) bool {
	for _, pc := range p.recv {
		if pc.committedPos > 0 && w.alive(pc.ch) {
			return true
		}
	}
	return false
}

// chooseAction picks the next action kind, or reports false when nothing is enabled.
func (w *world) chooseAction(masks []procMask) (ActionKind, bool) {
	var any procMask
	for i, p := range w.procs {
		masks[i] = w.maskOf(p)
		any |= masks[i]
	}
	weights := w.kindWeights[:]
	clear(weights)
	total := uint32(0)
	liveExt := w.liveExternals > 0
	for k := range numActionKinds {
		if w.set.Weights[k] == 0 || !w.kindEnabled(ActionKind(k), any, liveExt) {
			continue
		}
		weights[k] = w.set.Weights[k]
		total += weights[k]
	}
	if total == 0 {
		return 0, false
	}
	return ActionKind(w.chooser.Choose("action", weights)), true
}

// kindEnabled reports whether kind k has an eligible target (any: the union of process masks;
// liveExt: some external topic is live).
func (w *world) kindEnabled(k ActionKind, any procMask, liveExt bool) bool {
	switch k {
	case ActProducePlain, ActProduceCorrupt, ActTxnAbort, ActDeleteTopic:
		return liveExt
	case ActProduceStamped:
		return w.recentN > 0 && liveExt
	case ActTxnOpen:
		return !w.ext.open && liveExt
	case ActTxnClose:
		return w.ext.open
	case ActDeleteRecords:
		return true
	case ActRetention:
		return w.set.RetentionMicros > 0 || w.set.RetentionRecords > 0
	case ActRecreateTopic:
		return w.externals > 0
	case ActSessionWrite, ActSessionRead, ActTokenDamage:
		return w.sessionEnabled(k)
	}
	return any&(1<<k) != 0
}

// chooseProc picks a process whose mask has kind k.
func (w *world) chooseProc(label string, k ActionKind, masks []procMask) *proc {
	weights := w.weightBuf(len(w.procs))
	for i := range w.procs {
		if masks[i]&(1<<k) != 0 {
			weights[i] = 1
		}
	}
	return w.procs[w.chooser.Choose(label, weights)]
}

// chooseExternal picks a live external topic (or any external topic when dead is set) and
// returns its index.
func (w *world) chooseExternal(label string, dead bool) int {
	weights := w.weightBuf(len(w.topics))
	for t := range w.topics {
		if w.topics[t].spec.External && (dead || w.topics[t].inc >= 0) {
			weights[t] = 1
		}
	}
	return w.chooser.Choose(label, weights)
}

// choosePartition picks a partition channel of live topic t.
func (w *world) choosePartition(label string, t int) int32 {
	inc := w.topics[t].inc
	weights := w.weightBuf(w.incs[inc].parts)
	for i := range weights {
		weights[i] = 1
	}
	return w.chanOf(inc, w.chooser.Choose(label, weights))
}

// chooseOffset picks one of cands.
func (w *world) chooseOffset(label string, cands []int64) int64 {
	weights := w.weightBuf(len(cands))
	for i := range weights {
		weights[i] = 1
	}
	return cands[w.chooser.Choose(label, weights)]
}

// weightBuf returns a zeroed weight slice of length n, reusing storage.
func (w *world) weightBuf(n int) []uint32 {
	if cap(w.weights) < n {
		w.weights = make([]uint32, n)
	}
	w.weights = w.weights[:n]
	clear(w.weights)
	return w.weights
}

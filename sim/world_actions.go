package sim

// Executing one chosen action: pick its targets through the Chooser, advance the virtual clock,
// act. Every action is one scheduler step.

// do performs action kind k chosen by the scheduler.
func (w *world) do(k ActionKind, masks []procMask) {
	w.action = k
	w.stats.Actions[k]++
	w.clock.advance(k)
	switch k {
	case ActFeed, ActDrain, ActCommit, ActCrash, ActStop, ActStart, ActRewind, ActRedeclare, ActMigrate, ActZombie:
		w.doProcess(k, w.chooseProc(k.String()+".process", k, masks))
	case ActProducePlain:
		w.producePlain(w.choosePartition("produce.partition", w.chooseExternal("produce.topic", false)))
	case ActProduceCorrupt:
		w.produceCorrupt(w.choosePartition("produce.partition", w.chooseExternal("produce.topic", false)))
	case ActProduceStamped:
		c := w.choosePartition("produce.partition", w.chooseExternal("produce.topic", false))
		w.produceStamped(c, w.chooseObserved())
	case ActTxnAbort:
		w.txnAbort(w.choosePartition("txn.partition", w.chooseExternal("txn.topic", false)), 1+w.streams.Payloads.IntN(3))
	case ActTxnOpen:
		w.txnOpen(w.choosePartition("txn.partition", w.chooseExternal("txn.topic", false)), 1+w.streams.Payloads.IntN(2))
	case ActTxnClose:
		w.txnClose(w.chooser.Choose("txn-close.commit", []uint32{1, 1}) == 1)
	case ActDeleteRecords:
		w.doDeleteRecords()
	case ActRetention:
		w.retention()
	case ActDeleteTopic:
		w.deleteTopic(w.chooseExternal("delete.topic", false))
	case ActRecreateTopic:
		w.recreateTopic(w.chooseExternal("recreate.topic", true))
	}
}

// doProcess performs a process action on p.
func (w *world) doProcess(k ActionKind, p *proc) {
	switch k {
	case ActFeed:
		p.feed(w.chooseFeedChannel(p))
	case ActDrain:
		p.drain()
	case ActCommit:
		if err := p.commit(); err != nil {
			panic("sim: commit of a live execution failed: " + err.Error())
		}
	case ActCrash:
		p.crash()
	case ActStop:
		p.stop()
	case ActStart:
		p.start(true)
	case ActRewind:
		pc := w.chooseRewindChannel(p)
		w.rewind(p, pc, w.chooseOffset("rewind.offset", w.rewindCandidates(pc)))
	case ActRedeclare:
		if t := w.chooseRedeclareTopic(p); t >= 0 {
			w.redeclare(p, t)
		}
	case ActMigrate:
		w.migrate(p)
	case ActZombie:
		w.zombie(p)
	}
}

// chooseFeedChannel picks one of p's feedable received channels.
func (w *world) chooseFeedChannel(p *proc) *pcState {
	weights := w.weightBuf(len(p.recv))
	for i, pc := range p.recv {
		if p.feedable(pc) {
			weights[i] = 1
		}
	}
	return p.recv[w.chooser.Choose("feed.channel", weights)]
}

// chooseRewindChannel picks one of down process p's channels with a committed position above 0.
func (w *world) chooseRewindChannel(p *proc) *pcState {
	weights := w.weightBuf(len(p.recv))
	for i, pc := range p.recv {
		if pc.committedPos > 0 && w.alive(pc.ch) {
			weights[i] = 1
		}
	}
	return p.recv[w.chooser.Choose("rewind.channel", weights)]
}

// chooseRedeclareTopic picks a topic to add to or remove from p's declaration: any topic p does
// not send to.
func (w *world) chooseRedeclareTopic(p *proc) int {
	weights := w.weightBuf(len(w.topics))
	for t := range w.topics {
		weights[t] = 1
	}
	for _, t := range p.sends {
		weights[t] = 0
	}
	if allZero(weights) {
		return -1
	}
	return w.chooser.Choose("redeclare.topic", weights)
}

// chooseObserved picks one of the latest committed records for a stamped observer.
func (w *world) chooseObserved() uint64 {
	n := min(w.recentN, recentRing)
	weights := w.weightBuf(n)
	for i := range weights {
		weights[i] = 1
	}
	i := w.chooser.Choose("stamped.observe", weights)
	return w.recent[(w.recentN-1-i)%recentRing]
}

// doDeleteRecords truncates a live channel at one of its interesting offsets.
func (w *world) doDeleteRecords() {
	weights := w.weightBuf(len(w.chans))
	for c := range w.chans {
		if w.alive(int32(c)) && len(w.chans[c].slots) > 0 {
			weights[c] = 1
		}
	}
	if allZero(weights) {
		w.emitRaw("truncated", -1, "nothing to truncate")
		return
	}
	c := int32(w.chooser.Choose("truncate.channel", weights))
	cands := w.truncationCandidates(c)
	if len(cands) == 0 {
		w.emitRaw("truncated", -1, "nothing to truncate")
		return
	}
	w.deleteRecords(c, w.chooseOffset("truncate.offset", cands))
}

func allZero(ws []uint32) bool {
	for _, x := range ws {
		if x != 0 {
			return false
		}
	}
	return true
}

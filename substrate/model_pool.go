package substrate

// The storage a recycled model reuses. The simulator's explorer clones a model per transition
// (CloneInto, into the model of a world it is done with), and each clone copies the incarnations,
// partitions, transactions and groups it changes (copy-on-write, model_clone.go): before the
// pool, those copies were a large share of a transition's allocations. A model that has a pool
// records in it every slice its copies allocate; when the model is recycled by CloneInto, the
// model and every clone that shared those slices are done with, so the slices are free for the
// new clone's copies.

// modelPool is a recycled model's slices: one recycler per element type.
type modelPool struct {
	topics  recycler[modelTopic]
	logs    recycler[logEntry]
	parts   recycler[modelPartition]
	open    recycler[openTxn]
	txns    recycler[modelTxn]
	groups  recycler[modelGroup]
	offsets recycler[GroupOffset]
	// A transaction's lists.
	txnParts   recycler[txnPartition]
	txnRecords recycler[txnRecord]
	staged     recycler[stagedOffset]
}

// recycle makes every slice the pool's model allocated free for reuse.
func (p *modelPool) recycle() {
	p.topics.recycle()
	p.logs.recycle()
	p.parts.recycle()
	p.open.recycle()
	p.txns.recycle()
	p.groups.recycle()
	p.offsets.recycle()
	p.txnParts.recycle()
	p.txnRecords.recycle()
	p.staged.recycle()
}

// recycler hands out slices of T. slices holds every slice it made, in the order of the allocs
// that first got them: slices[:used] were handed out since the last recycle (still in use),
// slices[used:] are free, left from earlier lives of the model. Recycling is then one store,
// however many slices a life made (the explorer recycles a model per transition).
type recycler[T any] struct {
	slices [][]T
	used   int
}

// alloc returns an empty slice with room for n elements: the next free one when its room
// suffices, else a new one in its place (the free one is dropped, so the recycler never holds
// more slices than one model's life used). A nil recycler (a model without a pool) just
// allocates.
func (r *recycler[T]) alloc(n int) []T {
	if r == nil {
		return make([]T, 0, n)
	}
	if r.used == len(r.slices) {
		r.slices = append(r.slices, nil)
	}
	s := r.slices[r.used][:0]
	if cap(s) < n {
		s = make([]T, 0, n)
		r.slices[r.used] = s
	}
	r.used++
	return s
}

// clone returns a copy of s in a slice from alloc with spare extra room; like slices.Clone it
// returns s[:0:0] for an empty s (nil stays nil).
func (r *recycler[T]) clone(s []T, extra int) []T {
	if len(s) == 0 && extra == 0 {
		return s[:0:0]
	}
	return append(r.alloc(len(s)+extra), s...)
}

// recycle makes every slice handed out free.
func (r *recycler[T]) recycle() { r.used = 0 }

// The pool's recyclers, nil for a model without a pool (one from NewModel, Clone or CloneWithIDs:
// only CloneInto gives a model a pool, since only a recycled model's slices are known to be free).

func (p *modelPool) topicRecycler() *recycler[modelTopic] {
	if p == nil {
		return nil
	}
	return &p.topics
}

func (p *modelPool) logRecycler() *recycler[logEntry] {
	if p == nil {
		return nil
	}
	return &p.logs
}

func (p *modelPool) partRecycler() *recycler[modelPartition] {
	if p == nil {
		return nil
	}
	return &p.parts
}

func (p *modelPool) openRecycler() *recycler[openTxn] {
	if p == nil {
		return nil
	}
	return &p.open
}

func (p *modelPool) txnRecycler() *recycler[modelTxn] {
	if p == nil {
		return nil
	}
	return &p.txns
}

func (p *modelPool) groupRecycler() *recycler[modelGroup] {
	if p == nil {
		return nil
	}
	return &p.groups
}

func (p *modelPool) offsetRecycler() *recycler[GroupOffset] {
	if p == nil {
		return nil
	}
	return &p.offsets
}

func (p *modelPool) txnPartRecycler() *recycler[txnPartition] {
	if p == nil {
		return nil
	}
	return &p.txnParts
}

func (p *modelPool) txnRecordRecycler() *recycler[txnRecord] {
	if p == nil {
		return nil
	}
	return &p.txnRecords
}

func (p *modelPool) stagedRecycler() *recycler[stagedOffset] {
	if p == nil {
		return nil
	}
	return &p.staged
}

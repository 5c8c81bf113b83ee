package substrate

// The storage a recycled model reuses. The simulator's explorer clones a model per transition
// (CloneInto, into the model of a world it is done with), and each clone copies the one or two
// partitions, transactions and groups it changes (copy-on-write, model_clone.go): before the
// pool, those copies were a large share of a transition's allocations. A model that has a pool
// records in it every slice its copies allocate; when the model is recycled by CloneInto, the
// model and every clone that shared those slices are done with, so the slices are free for the
// new clone's copies.

// modelPool is a recycled model's slices: one recycler per element type.
type modelPool struct {
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

// recycler hands out slices of T: made are those handed out since the last recycle (still in
// use), free those no one reads any more.
type recycler[T any] struct {
	made, free [][]T
}

// alloc returns an empty slice with room for n elements: the last free one when its room suffices,
// else a new one (the free one is then dropped, so the free list never grows past what one
// model's life made). Either way it is recorded as made. A nil recycler (a model without a pool)
// just allocates.
func (r *recycler[T]) alloc(n int) []T {
	if r == nil {
		return make([]T, 0, n)
	}
	var s []T
	if k := len(r.free); k > 0 { // the last free slice, or a new one in its place if it is too small
		s = r.free[k-1][:0]
		r.free[k-1] = nil
		r.free = r.free[:k-1]
	}
	if cap(s) < n {
		s = make([]T, 0, n)
	}
	r.made = append(r.made, s)
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

// recycle moves every made slice to the free list.
func (r *recycler[T]) recycle() {
	for i, s := range r.made {
		r.free = append(r.free, s)
		r.made[i] = nil
	}
	r.made = r.made[:0]
}

// The pool's recyclers, nil for a model without a pool (one from NewModel, Clone or CloneWithIDs:
// only CloneInto gives a model a pool, since only a recycled model's slices are known to be free).

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

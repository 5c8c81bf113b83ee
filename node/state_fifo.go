package node

// fifo is a first-in first-out queue with O(1) amortised pop from the front: a slice plus a head
// index, compacted when the dead prefix is at least as long as the live part. The hold-back
// buffers of the engine and of the committed State use it, so delivering or removing a head costs
// the same at depth 1 and depth 4096.
//
// Invariant: 0 ≤ head ≤ len(items); items[:head] are zeroed (no retained payloads).
type fifo[T any] struct {
	items []T
	head  int
}

// fifoCompactMin is the smallest dead prefix worth compacting away.
const fifoCompactMin = 16

// len returns the number of live entries.
func (q *fifo[T]) len() int { return len(q.items) - q.head }

// at returns a pointer to the i-th live entry (0 = front).
func (q *fifo[T]) at(i int) *T { return &q.items[q.head+i] }

// back returns a pointer to the last entry; the queue must not be empty.
func (q *fifo[T]) back() *T { return &q.items[len(q.items)-1] }

// push appends v at the back.
func (q *fifo[T]) push(v T) { q.items = append(q.items, v) }

// pushSlot extends the queue by one entry at the back and returns it for the caller to fill in
// place: its contents are unspecified (whatever the slot last held, or zero), so the caller must
// write every field. Reusing the slot's room without clearing it first saves writing the entry
// twice.
func (q *fifo[T]) pushSlot() *T {
	if n := len(q.items); n < cap(q.items) {
		q.items = q.items[:n+1]
		return &q.items[n]
	}
	var zero T
	q.items = append(q.items, zero)
	return &q.items[len(q.items)-1]
}

// live returns the live entries. The slice is shared with the queue.
func (q *fifo[T]) live() []T { return q.items[q.head:] }

// dropAt removes the i-th live entry (a caller reads it first, in place: nothing is copied out).
// Dropping the front is O(1) amortised; anything else shifts the later entries forward, O(len),
// and happens only under sabotage or when applying a sabotaged delta.
func (q *fifo[T]) dropAt(i int) {
	var zero T
	if i == 0 {
		q.items[q.head] = zero
		q.head++
		q.maybeCompact()
		return
	}
	k := q.head + i
	copy(q.items[k:], q.items[k+1:])
	q.items[len(q.items)-1] = zero
	q.items = q.items[:len(q.items)-1]
}

// insertAt inserts v before the i-th live entry (i == len appends).
func (q *fifo[T]) insertAt(i int, v T) {
	var zero T
	q.items = append(q.items, zero)
	k := q.head + i
	copy(q.items[k+1:], q.items[k:])
	q.items[k] = v
}

// maybeCompact moves the live entries to the start of the slice once the dead prefix is at
// least as long as the live part, which keeps pops O(1) amortised and memory proportional to the
// live entries.
func (q *fifo[T]) maybeCompact() {
	if q.head == len(q.items) {
		q.items = q.items[:0]
		q.head = 0
		return
	}
	if q.head < fifoCompactMin || q.head < q.len() {
		return
	}
	n := copy(q.items, q.items[q.head:])
	clear(q.items[n:])
	q.items = q.items[:n]
	q.head = 0
}

// The committed State's queues are persistent: a slot, once filled, is never written again, so an
// engine started from the state can view its holds in place (heldBuffer) while the host keeps
// applying deltas. They pop without clearing, compact and reorder into new arrays, and only ever
// append past their end (which no view reaches: views are capacity-clipped).

// popShared removes the front entry without writing into the queue's array. When the queue
// empties it keeps only the array's never-filled tail for the next pushes; once the dead prefix is
// at least as long as the live part (and fifoCompactMin long) it moves the live entries to a new
// array, which keeps pops O(1) amortised and memory proportional to the live entries.
func (q *fifo[T]) popShared() {
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[len(q.items):], 0
	case q.head >= fifoCompactMin && q.head >= q.len():
		q.items, q.head = append(make([]T, 0, 2*q.len()), q.items[q.head:]...), 0
	}
}

// sharedRoomMin is the least room pushShared gives a new array: a committed queue that keeps
// emptying and refilling (one hold taken and released per step) then allocates once per
// sharedRoomMin steps, not on every step.
const sharedRoomMin = 8

// pushShared appends v past the queue's end; when the array is full it moves the live entries to
// a new one with room for at least as many more (and sharedRoomMin).
func (q *fifo[T]) pushShared(v T) {
	if len(q.items) == cap(q.items) {
		items := make([]T, 0, max(2*q.len(), sharedRoomMin))
		q.items, q.head = append(items, q.items[q.head:]...), 0
	}
	q.items = append(q.items, v)
}

// dropAtShared removes the i-th live entry without writing into the queue's array: the front by
// popShared, anything else (a sabotaged delta only) by copying the others to a new array.
func (q *fifo[T]) dropAtShared(i int) {
	if i == 0 {
		q.popShared()
		return
	}
	live := q.live()
	items := make([]T, 0, len(live)-1)
	items = append(items, live[:i]...)
	q.items, q.head = append(items, live[i+1:]...), 0
}

// insertAtShared inserts v before the i-th live entry (i == len appends) without writing into a
// filled slot: anything but an append (a sabotaged delta only) copies to a new array.
func (q *fifo[T]) insertAtShared(i int, v T) {
	live := q.live()
	if i == len(live) {
		q.pushShared(v)
		return
	}
	items := make([]T, 0, len(live)+1)
	items = append(items, live[:i]...)
	items = append(items, v)
	q.items, q.head = append(items, live[i:]...), 0
}

package targets

// Declared computes process i's part of the declarer counts: while i is live it calls add once
// per topic it declares, with whether it has a blocked head there.
type Declared func(i int, add func(topic int, blocked bool))

// Declarers counts, per topic, the live processes that declare it and those of them with a
// blocked head there, recomputing only the parts the memo it belongs to marked stale.
type Declarers struct {
	arena         []declared // every part, at its span: no pointers for the collector to follow
	spans         []span     // per process: where its part is in arena
	stale         []bool
	staleList     []int32
	live, blocked []uint32
	cur           int
	f             Declared
	addf          func(int, bool)
}

type declared struct {
	topic   int
	blocked bool
}

// span is a part's place in the arena: n entries at at, room for more up to room.
type span struct{ at, n, room int }

func newDeclarers(procs, topics int, f Declared) *Declarers {
	d := &Declarers{spans: make([]span, procs), stale: make([]bool, procs),
		live: make([]uint32, topics), blocked: make([]uint32, topics), f: f}
	d.addf = d.add
	for i := range procs {
		d.markStale(i)
	}
	return d
}

func (d *Declarers) markStale(i int) {
	if !d.stale[i] {
		d.stale[i] = true
		d.staleList = append(d.staleList, int32(i))
	}
}

// refresh recomputes the stale parts.
func (d *Declarers) refresh() {
	for _, i := range d.staleList {
		d.stale[i] = false
		sp := &d.spans[i]
		d.count(d.arena[sp.at:sp.at+sp.n], ^uint32(0))
		sp.n, d.cur = 0, int(i)
		d.f(int(i), d.addf)
		d.count(d.arena[sp.at:sp.at+sp.n], 1)
	}
	d.staleList = d.staleList[:0]
}

// add appends to the part being computed; a part outgrowing its room moves to the arena's end.
func (d *Declarers) add(t int, blocked bool) {
	sp := &d.spans[d.cur]
	if sp.n == sp.room {
		at := len(d.arena)
		d.arena = append(d.arena, d.arena[sp.at:sp.at+sp.n]...)
		sp.at, sp.room = at, max(2*sp.room, 4)
		d.arena = append(d.arena, make([]declared, sp.room-sp.n)...)
	}
	d.arena[sp.at+sp.n] = declared{t, blocked}
	sp.n++
}

// count adds sign (1, or ^0 to take away) for each of part's topics.
func (d *Declarers) count(part []declared, sign uint32) {
	for _, e := range part {
		d.live[e.topic] += sign
		if e.blocked {
			d.blocked[e.topic] += sign
		}
	}
}

// Of returns how many live processes declare topic t and how many of them have a blocked head
// there, as of the last call to Memo.Declarers.
func (d *Declarers) Of(t int) (live, blocked uint32) { return d.live[t], d.blocked[t] }

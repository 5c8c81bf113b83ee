package node

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// gateView is a test ReceivedSet and SettledView given as plain maps, for the general path.
type gateView struct {
	received map[Channel]bool
	settled  map[Channel]Offset
}

func (v *gateView) Receives(ch Channel) bool { return v.received[ch] }

func (v *gateView) Settled(ch Channel) (Offset, bool) {
	p, ok := v.settled[ch]
	return p, ok
}

// lyingView claims a settled position together with known == false; Decide must not show it.
type lyingView struct{}

func (lyingView) Receives(Channel) bool          { return true }
func (lyingView) Settled(Channel) (Offset, bool) { return 77, false }

// table returns v as a SettledTable.
func (v *gateView) table() *SettledTable { return buildTable(v.received, v.settled) }

// buildTable builds a SettledTable of the received channels and the settled positions known.
func buildTable(r map[Channel]bool, s map[Channel]Offset) *SettledTable {
	t := &SettledTable{}
	for ch := range r { // insertion order does not matter
		if p, ok := s[ch]; ok {
			t.Settle(ch, p)
		} else {
			t.Receive(ch)
		}
	}
	return t
}

// TestDecideBranches covers every branch of SPEC §2.1, through both the general path and the
// SettledTable fast path.
func TestDecideBranches(t *testing.T) {
	a, b, c, d := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0), fxChannel(2, 5)
	view := &gateView{
		received: map[Channel]bool{a: true, b: true, c: true},
		settled:  map[Channel]Offset{a: 10, c: MaxOffset}, // b received but nothing known; c deleted
	}
	cases := []struct {
		name   string
		causes Causes
		want   []Blocker
	}{
		{"no causes: deliverable", Causes{}, nil},
		{"unreceived channel skipped", CausesOf(Cause{d, 1 << 40}), nil},
		{"p below settled", CausesOf(Cause{a, 9}), nil},
		{"p equal to settled", CausesOf(Cause{a, 10}), nil},
		{"p above settled blocks, showing settled", CausesOf(Cause{a, 11}), []Blocker{{a, 11, 10, true}}},
		{"received but nothing settled blocks", CausesOf(Cause{b, 0}), []Blocker{{b, 0, 0, false}}},
		{"deleted channel settles everything", CausesOf(Cause{c, MaxOffset - 1}), nil},
		{"blockers in channel order, satisfied and skipped omitted",
			CausesOf(Cause{d, 3}, Cause{b, 4}, Cause{a, 12}, Cause{c, 0}),
			[]Blocker{{a, 12, 10, true}, {b, 4, 0, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			table := view.table()
			for _, path := range []struct {
				name string
				r    ReceivedSet
				s    SettledView
			}{{"general", view, view}, {"table", table, table}, {"table-and-map", table, view}} {
				got := Decide(tc.causes, path.r, path.s)
				if !slices.Equal(got.Blockers, tc.want) {
					t.Fatalf("%s: Decide = %v, want %v", path.name, got.Blockers, tc.want)
				}
				if got.Deliverable() != (len(tc.want) == 0) {
					t.Fatalf("%s: Deliverable disagrees with blockers %v", path.name, got.Blockers)
				}
			}
		})
	}
}

func TestDecideUnknownSettledShowsNone(t *testing.T) {
	ch := fxChannel(0, 0)
	got := Decide(CausesOf(Cause{ch, 3}), lyingView{}, lyingView{})
	want := []Blocker{{Channel: ch, Required: 3}}
	if !slices.Equal(got.Blockers, want) {
		t.Fatalf("Decide = %v, want %v", got.Blockers, want)
	}
	if s := got.Blockers[0].String(); s != ch.String()+" required=3 settled=none" {
		t.Fatalf("String = %q", s)
	}
	if s := (Blocker{ch, 9, 4, true}).String(); s != ch.String()+" required=9 settled=4" {
		t.Fatalf("String = %q", s)
	}
}

func TestAppendBlockersReusesBuffer(t *testing.T) {
	ch := fxChannel(0, 0)
	table := &SettledTable{}
	table.Settle(ch, 1)
	buf := make([]Blocker, 0, 4)
	buf = AppendBlockers(buf, CausesOf(Cause{ch, 5}), table, table)
	if len(buf) != 1 || buf[0] != (Blocker{ch, 5, 1, true}) {
		t.Fatalf("AppendBlockers = %v", buf)
	}
	causes := CausesOf(Cause{ch, 5})
	if allocs := testing.AllocsPerRun(100, func() { buf = AppendBlockers(buf[:0], causes, table, table) }); allocs != 0 {
		t.Fatalf("AppendBlockers into a reused buffer: %.1f allocs", allocs)
	}
}

// TestDecideDeliverableDoesNotAllocate checks the gate's hot path through both view kinds.
func TestDecideDeliverableDoesNotAllocate(t *testing.T) {
	causes, table := benchGate(16)
	view := &gateView{received: map[Channel]bool{}, settled: map[Channel]Offset{}}
	for ch, pos := range table.all() {
		view.received[ch], view.settled[ch] = true, pos
	}
	var r ReceivedSet = view
	var s SettledView = view
	for name, f := range map[string]func() bool{
		"table":   func() bool { return Decide(causes, table, table).Deliverable() },
		"general": func() bool { return Decide(causes, r, s).Deliverable() },
	} {
		if !f() {
			t.Fatalf("%s: fixture not deliverable", name)
		}
		if allocs := testing.AllocsPerRun(100, func() { f() }); allocs != 0 {
			t.Errorf("%s: deliverable Decide allocated %.1f times", name, allocs)
		}
	}
}

func TestSettledTable(t *testing.T) {
	var tab SettledTable
	a, b, c := fxChannel(0, 0), fxChannel(0, 1), fxChannel(1, 0)
	tab.Receive(b)
	tab.Settle(c, -1)
	tab.Settle(a, 5)
	tab.Receive(a)   // already received: keeps its settled position
	tab.Settle(a, 3) // Settle sets, it may lower (a message got held)
	if tab.Len() != 3 {
		t.Fatalf("Len = %d, want 3", tab.Len())
	}
	for _, want := range []struct {
		ch    Channel
		pos   Offset
		known bool
	}{{a, 3, true}, {b, 0, false}, {c, -1, true}, {fxChannel(9, 9), 0, false}} {
		if p, k := tab.Settled(want.ch); p != want.pos || k != want.known {
			t.Errorf("Settled(%v) = %d,%v, want %d,%v", want.ch, p, k, want.pos, want.known)
		}
	}
	if !tab.Receives(b) || tab.Receives(fxChannel(0, 2)) {
		t.Fatal("Receives misreports")
	}
	if !tab.Drop(b) || tab.Drop(b) || tab.Receives(b) || tab.Len() != 2 {
		t.Fatal("Drop misreports")
	}
	if err := tab.check(); err != nil {
		t.Fatal(err)
	}
}

// all returns every received channel with its settled position (−1 when none is known).
func (t *SettledTable) all() map[Channel]Offset {
	out := map[Channel]Offset{}
	for i := range t.slots {
		if e := &t.slots[i]; e.used {
			out[e.channel()] = e.settled
		}
	}
	return out
}

// channel returns the slot's channel.
func (e *settledEntry) channel() Channel { return e.ch }

// home returns the slot where ch's probe starts.
func (t *SettledTable) home(ch Channel) uint64 {
	return slotHash(&ch) & uint64(len(t.slots)-1)
}

// check verifies the table's invariants: the size is a power of two at least twice the count, n
// slots are used, each by a distinct channel, settled is −1 where nothing is known, and every
// used slot is reached from its home without crossing an unused one.
func (t *SettledTable) check() error {
	_, err := t.checkRuns()
	return err
}

// checkRuns is check, also returning how many used slots are away from their home, for tests
// that must exercise collisions.
func (t *SettledTable) checkRuns() (displaced int, _ error) {
	size := len(t.slots)
	if size != 0 && (size&(size-1) != 0 || size < 2*t.n) {
		return 0, fmt.Errorf("%d slots for %d entries", size, t.n)
	}
	used := 0
	seen := map[Channel]bool{}
	for i := range t.slots {
		e := &t.slots[i]
		if !e.used {
			if *e != (settledEntry{}) {
				return 0, fmt.Errorf("unused slot %d not cleared: %+v", i, *e)
			}
			continue
		}
		used++
		ch := e.channel()
		if seen[ch] {
			return 0, fmt.Errorf("%v twice", ch)
		}
		seen[ch] = true
		if !e.known && e.settled != -1 {
			return 0, fmt.Errorf("%v: nothing known but settled %d", ch, e.settled)
		}
		h := t.home(ch)
		if h != uint64(i) {
			displaced++
		}
		for s := h; s != uint64(i); s = (s + 1) & uint64(size-1) {
			if !t.slots[s].used {
				return 0, fmt.Errorf("%v at slot %d: unreachable from its home %d (slot %d unused)", ch, i, h, s)
			}
		}
	}
	if used != t.n {
		return 0, fmt.Errorf("%d slots used, n = %d", used, t.n)
	}
	return displaced, nil
}

// collidingChannel returns a channel whose key folds to the same word as ch's in slotHash, so
// the two share a home slot in any table: its topic halves are ch's with d mixed into both.
func collidingChannel(ch Channel, d uint64) Channel {
	a, b, p := binary.LittleEndian.Uint64(ch.Topic[:8]), binary.LittleEndian.Uint64(ch.Topic[8:]), ch.Partition
	out := Channel{Partition: p}
	binary.LittleEndian.PutUint64(out.Topic[:8], a^bits.RotateLeft64(d, 29))
	binary.LittleEndian.PutUint64(out.Topic[8:], b^d)
	return out
}

// TestSettledTableCollisions holds collidingChannel to its promise (the same home, a different
// channel) and the table to a map through a run of colliding inserts and drops.
func TestSettledTableCollisions(t *testing.T) {
	var tab SettledTable
	base := fxChannel(3, 1)
	model := map[Channel]Offset{}
	for d := uint64(0); d < 40; d++ {
		ch := collidingChannel(base, d*0x0101)
		tab.Settle(ch, Offset(d))
		model[ch] = Offset(d)
		if tab.home(ch) != tab.home(base) {
			t.Fatalf("collidingChannel(%d) has home %d, base %d", d, tab.home(ch), tab.home(base))
		}
		if v := tab.Decide(CausesOf(Cause{ch, Offset(d)}, Cause{base, 1 << 40})); len(v.Blockers) != 1 || v.Blockers[0].Channel != base {
			t.Fatalf("Decide after %d colliding inserts: %v, want base blocked alone", d, v.Blockers)
		}
		if d%3 == 2 {
			drop := collidingChannel(base, (d-1)*0x0101)
			if !tab.Drop(drop) {
				t.Fatalf("Drop(%v) found nothing", drop)
			}
			delete(model, drop)
		}
		displaced, err := tab.checkRuns()
		if err != nil {
			t.Fatal(err)
		}
		if len(model) > 1 && displaced == 0 {
			t.Fatalf("%d colliding channels and none displaced", len(model))
		}
	}
	if !maps.Equal(tab.all(), model) {
		t.Fatalf("table %v, model %v", tab.all(), model)
	}
}

// TestSettledTableNearKeys places, in front of a channel in its probe run, channels that differ
// from it in one part of the key only (the topic ID's first half, its second half, the
// partition) and sharing its home slot, and checks that every lookup tells them apart.
func TestSettledTableNearKeys(t *testing.T) {
	orig := fxChannel(5, 2)
	vary := map[string]func(ch Channel, v int) Channel{
		"first half":  func(ch Channel, v int) Channel { ch.Topic[3] ^= byte(v); ch.Topic[1] ^= byte(v >> 8); return ch },
		"second half": func(ch Channel, v int) Channel { ch.Topic[12] ^= byte(v); ch.Topic[9] ^= byte(v >> 8); return ch },
		"partition":   func(ch Channel, v int) Channel { ch.Partition += Partition(v); return ch },
	}
	for name, f := range vary {
		var tab SettledTable
		tab.Receive(fxChannel(0, 0)) // the table has its first 8 slots, as below
		home := tab.home(orig)
		var sibs []Channel
		for v := 1; len(sibs) < 2 && v < 1<<16; v++ {
			if s := f(orig, v); tab.home(s) == home {
				sibs = append(sibs, s)
			}
		}
		if len(sibs) < 2 {
			t.Fatalf("%s: no two siblings share the home slot", name)
		}
		tab.Drop(fxChannel(0, 0))
		tab.Settle(sibs[0], 100) // takes the home slot: orig's probe meets it first
		tab.Settle(orig, 0)
		if v := tab.Decide(CausesOf(Cause{orig, 5})); len(v.Blockers) != 1 || v.Blockers[0].Settled != 0 {
			t.Errorf("%s: Decide(orig@5) = %v, want blocked at settled 0", name, v.Blockers)
		}
		if got := AppendBlockers(nil, CausesOf(Cause{orig, 5}), &tab, &tab); len(got) != 1 {
			t.Errorf("%s: AppendBlockers(orig@5) = %v, want blocked", name, got)
		}
		if p, _ := tab.Settled(orig); p != 0 {
			t.Errorf("%s: Settled(orig) = %d, want 0", name, p)
		}
		if tab.Receives(sibs[1]) || !tab.Decide(CausesOf(Cause{sibs[1], 5})).Deliverable() {
			t.Errorf("%s: a sibling never received is received", name)
		}
		if !tab.Drop(orig) || !tab.Receives(sibs[0]) || tab.Receives(orig) {
			t.Errorf("%s: Drop(orig) dropped the wrong channel", name)
		}
	}
}

// TestSettledTableMatchesModel drives a table with random Receive, Settle and Drop calls over a
// pool that includes channels colliding in the hash, and after every call holds Len, Receives,
// Settled and the gate to a map and to mergeWalk, the plain merge of sorted causes with the
// sorted received channels; the invariants are checked after every call too.
func TestSettledTableMatchesModel(t *testing.T) {
	displacedRuns := 0
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfNDistinct(genGateChannel(), 1, 10, func(c Channel) Channel { return c }).Draw(t, "pool")
		for i, n := 0, rapid.IntRange(0, 12).Draw(t, "colliders"); i < n; i++ {
			ch := collidingChannel(rapid.SampledFrom(pool).Draw(t, "collides with"), rapid.Uint64Range(1, 1<<20).Draw(t, "d"))
			if ch.Partition >= 0 && !ch.Topic.IsZero() && !slices.Contains(pool, ch) {
				pool = append(pool, ch)
			}
		}
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "half siblings"); i < n; i++ {
			ch := rapid.SampledFrom(pool).Draw(t, "sibling of") // the same first half, another second
			ch.Topic[8+rapid.IntRange(0, 7).Draw(t, "byte")] ^= byte(rapid.IntRange(1, 255).Draw(t, "flip"))
			if !ch.Topic.IsZero() && !slices.Contains(pool, ch) {
				pool = append(pool, ch)
			}
		}
		pick := rapid.SampledFrom(pool)
		var tab SettledTable
		received, settled := map[Channel]bool{}, map[Channel]Offset{}
		displacedSeen := false
		for step := range rapid.IntRange(1, 40).Draw(t, "steps") {
			ch := pick.Draw(t, "channel")
			switch op := rapid.IntRange(0, 3).Draw(t, "op"); op {
			case 0:
				tab.Receive(ch)
				received[ch] = true
			case 1, 2:
				pos := Offset(rapid.SampledFrom([]int64{-1, 0, 2, 3, 5, int64(MaxOffset)}).Draw(t, "pos"))
				tab.Settle(ch, pos)
				received[ch], settled[ch] = true, pos
			case 3:
				if got := tab.Drop(ch); got != received[ch] {
					t.Fatalf("step %d: Drop(%v) = %v, want %v", step, ch, got, received[ch])
				}
				delete(received, ch)
				delete(settled, ch)
			}
			displaced, err := tab.checkRuns()
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			displacedSeen = displacedSeen || displaced > 0
			if tab.Len() != len(received) {
				t.Fatalf("step %d: Len = %d, want %d", step, tab.Len(), len(received))
			}
			for _, c := range pool {
				p, known := tab.Settled(c)
				wp, wk := settled[c]
				if tab.Receives(c) != received[c] || known != wk || (wk && p != wp) || (!wk && p != 0) {
					t.Fatalf("step %d: %v: Receives %v, Settled %d,%v; want %v, %d,%v", step, c, tab.Receives(c), p, known, received[c], wp, wk)
				}
			}
			var causesIn []Cause
			for _, c := range rapid.SliceOfN(pick, 0, 8).Draw(t, "causes") {
				causesIn = append(causesIn, Cause{c, Offset(rapid.Int64Range(0, 6).Draw(t, "position"))})
			}
			causes := CausesOf(causesIn...)
			want := mergeWalk(causes.pairs, received, settled)
			if naive := naiveDecide(causes.pairs, received, settled); !slices.Equal(want, naive) {
				t.Fatalf("mergeWalk %v, naive model %v", want, naive)
			}
			if got := tab.Decide(causes).Blockers; !slices.Equal(got, want) {
				t.Fatalf("step %d: Decide = %v, merge walk = %v", step, got, want)
			}
			if got := AppendBlockers(nil, causes, &tab, &tab); !slices.Equal(got, want) {
				t.Fatalf("step %d: AppendBlockers = %v, merge walk = %v", step, got, want)
			}
		}
		if displacedSeen {
			displacedRuns++
		}
	})
	if displacedRuns == 0 {
		t.Fatal("no run displaced an entry from its home slot: the probe runs went untested")
	}
}

// TestSettledTableGateAfterMoves moves a list's channels to other slots between decisions (a Drop
// that shifts a probe run back, a grow that places every entry again, a channel dropped and
// received again elsewhere) and checks Decide and AppendBlockers against the merge walk after
// each move.
func TestSettledTableGateAfterMoves(t *testing.T) {
	var tab SettledTable
	received, settled := map[Channel]bool{}, map[Channel]Offset{}
	settle := func(ch Channel, pos Offset) {
		tab.Settle(ch, pos)
		received[ch], settled[ch] = true, pos
	}
	drop := func(ch Channel) {
		if !tab.Drop(ch) {
			t.Fatalf("Drop(%v) found nothing", ch)
		}
		delete(received, ch)
		delete(settled, ch)
	}
	base := fxChannel(3, 1)
	a, b := collidingChannel(base, 0x0101), collidingChannel(base, 0x0202) // one home, after base
	settle(base, 10)
	settle(a, 10)
	settle(b, 3)
	causes := CausesOf(Cause{a, 5}, Cause{b, 5}, Cause{fxChannel(7, 0), 1})
	decide := func(step string) {
		t.Helper()
		want := mergeWalk(causes.pairs, received, settled)
		if got := tab.Decide(causes).Blockers; !slices.Equal(got, want) {
			t.Fatalf("%s: Decide = %v, merge walk = %v", step, got, want)
		}
		if got := AppendBlockers(nil, causes, &tab, &tab); !slices.Equal(got, want) {
			t.Fatalf("%s: AppendBlockers = %v, merge walk = %v", step, got, want)
		}
		if err := tab.check(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	decide("first")
	drop(base) // a and b shift back one slot each
	decide("after a Drop")
	for i := range 20 { // the table grows twice: every entry is placed again
		settle(fxChannel(100+i, 0), 1)
	}
	decide("after a grow")
	drop(a)
	settle(a, 4) // back, in another slot: now blocked at settled 4
	decide("after a channel came back elsewhere")
	drop(b) // a, placed after b in their home's run, shifts back
	decide("after b went")
}

// TestSettledTableDecideOnlyReads decides lists that take turns, deliverable and blocked, and
// through AppendBlockers too, and checks that the table, every field and every slot, is as it
// was: Decide is a read, so a receiver may gate several senders at once on one table.
func TestSettledTableDecideOnlyReads(t *testing.T) {
	lists, tab := benchGateMixed(4)
	blocked := CausesOf(Cause{lists[0].pairs[0].Channel, 1 << 40}, Cause{fxChannel(999, 0), 1})
	before := *tab
	before.slots = slices.Clone(tab.slots)
	for range 3 {
		for _, causes := range []Causes{lists[0], lists[1], blocked} {
			tab.Decide(causes)
			AppendBlockers(nil, causes, tab, tab)
			if !reflect.DeepEqual(*tab, before) {
				t.Fatalf("deciding %v changed the table", causes)
			}
		}
	}
}

// TestSettledTableSequentialIDsProbeLittle fills tables with topic IDs that count up in their
// last bytes, in their first bytes, and partitions of one topic, and checks that a lookup of
// each probes a few slots on average and a bounded number at most: a fixed hash must not turn
// such IDs, which a broker or a test may hand out, into long probe runs.
func TestSettledTableSequentialIDsProbeLittle(t *testing.T) {
	for name, chOf := range map[string]func(i int) Channel{
		"last bytes":  func(i int) Channel { return fxChannel(i, 0) },
		"first bytes": func(i int) Channel { ch := Channel{}; binary.BigEndian.PutUint64(ch.Topic[:8], uint64(i)+1); return ch },
		"middle bytes": func(i int) Channel {
			ch := fxChannel(0, 0)
			binary.BigEndian.PutUint32(ch.Topic[4:8], uint32(i))
			return ch
		},
		"partitions": func(i int) Channel { return fxChannel(0, Partition(i)) },
	} {
		for _, n := range []int{64, 1000, 5000} {
			var tab SettledTable
			for i := range n {
				tab.Receive(chOf(i))
			}
			total, most := 0, 0
			for i := range n {
				ch := chOf(i)
				probes := 1
				for s := tab.home(ch); tab.slots[s].ch != ch; s = (s + 1) & uint64(len(tab.slots)-1) {
					probes++
				}
				total, most = total+probes, max(most, probes)
			}
			if mean := float64(total) / float64(n); mean > 1.5 || most > 8 {
				t.Errorf("%s, %d channels: %.2f probes a lookup on average, %d at most; want at most 1.5 and 8", name, n, mean, most)
			}
		}
	}
}

// mergeWalk is the gate as a merge of two sorted sequences, the causes and the received channels
// in channel order: the plain algorithm the table's hash probes replace.
func mergeWalk(causes []Cause, received map[Channel]bool, settled map[Channel]Offset) []Blocker {
	chans := slices.SortedFunc(maps.Keys(received), Channel.Compare)
	var out []Blocker
	j := 0
	for _, c := range causes {
		for j < len(chans) && chans[j].Compare(c.Channel) < 0 {
			j++
		}
		if j == len(chans) || chans[j] != c.Channel {
			continue
		}
		s, known := settled[c.Channel]
		if !known || c.Position > s {
			if !known {
				s = 0
			}
			out = append(out, Blocker{c.Channel, c.Position, s, known})
		}
		j++
	}
	return out
}

// naiveDecide is the deliberately naive model of SPEC §2.1: check every cause, collect the
// unsatisfied ones, and sort them by the hex spelling of the 20-byte channel encoding.
func naiveDecide(causes []Cause, received map[Channel]bool, settled map[Channel]Offset) []Blocker {
	var out []Blocker
	for _, c := range causes {
		if !received[c.Channel] {
			continue
		}
		s, known := settled[c.Channel]
		if known && c.Position <= s {
			continue
		}
		if !known {
			s = 0
		}
		out = append(out, Blocker{c.Channel, c.Position, s, known})
	}
	key := func(ch Channel) string { return fmt.Sprintf("%x%08x", ch.Topic[:], uint32(ch.Partition)) }
	sort.Slice(out, func(i, j int) bool { return key(out[i].Channel) < key(out[j].Channel) })
	return out
}

// TestDecideMatchesNaiveModel is a differential test of Decide (general and table paths) against
// naiveDecide on random causes, received sets and settled views drawn from a small channel pool,
// so that overlaps, misses and boundaries are frequent. The merge walk the table's probes
// replace is checked on the same draws.
func TestDecideMatchesNaiveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfNDistinct(genGateChannel(), 1, 12, func(c Channel) Channel { return c }).Draw(t, "pool")
		pick := rapid.SampledFrom(pool)
		pos := rapid.Int64Range(0, 6)
		causesIn := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Cause {
			return Cause{pick.Draw(t, "channel"), Offset(pos.Draw(t, "position"))}
		}), 0, 10).Draw(t, "causes")
		received := map[Channel]bool{}
		settled := map[Channel]Offset{}
		for i, ch := range pool {
			if rapid.Bool().Draw(t, fmt.Sprintf("received[%d]", i)) {
				received[ch] = true
				if rapid.Bool().Draw(t, fmt.Sprintf("known[%d]", i)) {
					settled[ch] = Offset(rapid.SampledFrom([]int64{-1, 0, 2, 3, 5, int64(MaxOffset)}).Draw(t, fmt.Sprintf("settled[%d]", i)))
				}
			}
		}
		causes := CausesOf(causesIn...)
		want := naiveDecide(causes.Pairs(), received, settled)
		view := &gateView{received, settled}
		table := buildTable(received, settled)
		// AppendBlockers reuses the room of its buffer without clearing it: stale blockers there
		// must not show through.
		stale := slices.Repeat([]Blocker{{fxChannel(99, 9), 9, 9, true}}, 12)[:0]
		for name, got := range map[string][]Blocker{
			"general":                 Decide(causes, view, view).Blockers,
			"table":                   Decide(causes, table, table).Blockers,
			"table, concrete":         table.Decide(causes).Blockers,
			"table, merge walk":       mergeWalk(causes.pairs, received, settled),
			"table, AppendBlockers":   AppendBlockers(stale, causes, table, table),
			"general, AppendBlockers": AppendBlockers(slices.Clone(stale[:12])[:0], causes, view, view),
		} {
			if !slices.Equal(got, want) {
				t.Fatalf("%s: Decide = %v, naive model = %v", name, got, want)
			}
		}
	})
}

// TestSettledTableZeroChannel checks the zero channel (zero topic ID, partition 0), whose key is
// the key of every unused slot, is received only when Receive adds it: before that, a table of
// other channels neither holds it nor drops it, and its count stays right.
func TestSettledTableZeroChannel(t *testing.T) {
	var tab SettledTable
	tab.Receive(fxChannel(1, 0))
	tab.Receive(fxChannel(2, 3))
	if tab.Receives(Channel{}) {
		t.Fatal("Receives(zero channel) before Receive: true")
	}
	if _, ok := tab.Settled(Channel{}); ok {
		t.Fatal("Settled(zero channel) before Receive: ok")
	}
	if tab.Drop(Channel{}) || tab.Len() != 2 {
		t.Fatalf("Drop(zero channel) before Receive: Len %d, want 2 and false", tab.Len())
	}
	tab.Receive(Channel{})
	if !tab.Receives(Channel{}) || tab.Len() != 3 {
		t.Fatalf("after Receive(zero channel): Receives %v, Len %d, want true and 3", tab.Receives(Channel{}), tab.Len())
	}
	if !tab.Drop(Channel{}) || tab.Drop(Channel{}) || tab.Len() != 2 {
		t.Fatalf("Drop(zero channel) twice: Len %d, want the first true, the second false, Len 2", tab.Len())
	}
	if !tab.Receives(fxChannel(1, 0)) || !tab.Receives(fxChannel(2, 3)) {
		t.Fatal("the other channels are gone")
	}
}

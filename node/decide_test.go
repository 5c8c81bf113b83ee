package node

import (
	"fmt"
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
	for ch := range r { // insertion order does not matter: the table sorts
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
	for i := range table.entries {
		ch := table.entries[i].key().channel()
		view.received[ch], view.settled[ch] = true, table.entries[i].settled
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
	for i := 1; i < len(tab.entries); i++ {
		if !tab.entries[i-1].key().less(tab.entries[i].key()) {
			t.Fatal("entries out of order")
		}
	}
}

// TestSettledTableSeek checks the galloping seek against a linear scan at every start and target.
func TestSettledTableSeek(t *testing.T) {
	var tab SettledTable
	for i := 0; i < 40; i += 2 {
		tab.Receive(fxChannel(i, 0))
	}
	for from := 0; from <= tab.Len(); from++ {
		for target := -1; target < 42; target++ {
			k := keyOf(&Channel{fxTopic(max(target, 0)), Partition(min(target, 0))}) // target −1 sorts first
			want := from
			for want < tab.Len() && tab.entries[want].key().less(k) {
				want++
			}
			if got := tab.seek(from, k); got != want {
				t.Fatalf("seek(%d, topic %d) = %d, want %d", from, target, got, want)
			}
		}
	}
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
// so that overlaps, misses and boundaries are frequent. The table's galloping walk, which Decide
// takes only for tables much wider than the causes, is checked on the same draws.
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
			"table, galloping":        galloping(table, causes.pairs),
			"table, AppendBlockers":   AppendBlockers(stale, causes, table, table),
			"general, AppendBlockers": AppendBlockers(slices.Clone(stale[:12])[:0], causes, view, view),
		} {
			if !slices.Equal(got, want) {
				t.Fatalf("%s: Decide = %v, naive model = %v", name, got, want)
			}
		}
	})
}

// galloping is the table's blockers of causes by the galloping walk whatever the table's width.
func galloping(t *SettledTable, causes []Cause) []Blocker {
	var dst []Blocker
	t.walkGalloping(&dst, causes, 0, 0)
	return dst
}

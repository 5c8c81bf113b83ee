package node

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// checkIndexes holds every per-sender index the engine keeps (each channel's last one and those
// of its own held messages) to what it claims: recv is where each cause's channel sits among the
// received channels, and, while the index's layout mark is the engine's, front and past are where
// they sit in the frontier and the delivered past (or nil when one is missing there); each run
// field is the start of its list when the list is consecutive. A held message's index must also
// be its causes' list, and the gate by index must answer (and count) as the plain walk does.
func checkIndexes(t etT, e *Engine) {
	t.Helper()
	check := func(what string, x *causeIndex, causes []Cause) {
		if x == nil {
			return
		}
		if len(x.recv) != len(causes) {
			t.Fatalf("%s: index of %d causes for %d", what, len(x.recv), len(causes))
		}
		for k := range causes {
			if got, want := int(x.recv[k]), e.index(causes[k].Channel); got != want {
				t.Fatalf("%s: cause %v received at %d, index says %d", what, causes[k], want, got)
			}
		}
		for _, r := range []struct {
			name string
			at   []int32
			run  int32
		}{{"recv", x.recv, x.recvRun}, {"front", x.front, x.frontRun}, {"past", x.past, x.pastRun}} {
			want := int32(-1)
			if len(r.at) > 0 && r.at[0] >= 0 && r.at[len(r.at)-1] == r.at[0]+int32(len(r.at)-1) &&
				slices.IsSorted(r.at) && !slices.Contains(r.at[1:], r.at[0]) {
				want = r.at[0] // ascending without repeats from a to a+n-1: consecutive
			}
			if r.run != want {
				t.Fatalf("%s: %s run %d for %v, want %d", what, r.name, r.run, r.at, want)
			}
		}
		if x.mark != e.layout {
			return
		}
		for _, v := range []struct {
			name string
			at   []int32
			in   Causes
		}{{"frontier", x.front, e.frontier}, {"past", x.past, e.past}} {
			for k := range causes {
				i, ok := v.in.search(causes[k].Channel)
				if v.at == nil {
					if !ok {
						break // nil is right: this one is missing
					}
					if k == len(causes)-1 {
						t.Fatalf("%s: no %s index though every cause is there", what, v.name)
					}
					continue
				}
				if !ok || int(v.at[k]) != i {
					t.Fatalf("%s: cause %v is at %d in the %s (found %v), index says %d", what, causes[k], i, v.name, ok, v.at[k])
				}
			}
		}
	}
	for i := range e.chans {
		c := &e.chans[i]
		check("channel "+c.ch.String()+" last", c.lastIndex, c.lastList)
		if c.lastSimple != simpleList(c.lastList) {
			t.Fatalf("channel %v: lastSimple %v for %v", c.ch, c.lastSimple, c.lastList)
		}
		for _, h := range c.held.own.live() {
			what := "held " + etName(h.msg.Channel, h.msg.Position)
			check(what, h.index, h.msg.Causes.pairs)
			if h.index == nil {
				continue
			}
			// The gate by index answers and counts as the plain walk does, now.
			saved := e.counters
			fast := e.satisfiedAt(h.msg.Causes.pairs, h.index)
			fastCounters := e.counters
			e.counters = saved
			plain := e.satisfied(h.msg.Causes.pairs)
			plainCounters := e.counters
			e.counters = saved
			if fast != plain || fastCounters != plainCounters {
				t.Fatalf("%s: gate by index %v (counters %+v), plain walk %v (%+v)", what, fast, fastCounters, plain, plainCounters)
			}
		}
	}
}

// indexUsed returns 1 when the next delivery's gate would go through an index: some channel's
// head is an own hold with an index valid under the engine's layout.
func indexUsed(e *Engine) int {
	for i := range e.chans {
		b := &e.chans[i].held
		if len(b.restored) == 0 && b.own.len() > 0 && b.own.at(0).index != nil && b.own.at(0).index.mark == e.layout {
			return 1
		}
	}
	return 0
}

// TestSenderIndexAgreesWithReference is the model test weighted towards what the per-sender
// indexes must survive: long runs of receipts whose headers mostly repeat their channel's last
// list (TestModelEngineAgreesWithReference's receive), each drained at once, with the layout, the
// received set and the engine changing between them now and then: an identity report (which
// prunes the frontier and the past), a commit and restart (a new received set), a clone (into a
// dead engine's storage or new). The engine agrees with the reference model on every delivery
// and refusal, and every index holds (checkIndexes) after every move.
func TestSenderIndexAgreesWithReference(t *testing.T) {
	indexed := 0
	rapid.Check(t, func(t *rapid.T) {
		w := newModelWorld(t, Options{})
		for range rapid.IntRange(20, 120).Draw(t, "moves") {
			if w.e == nil {
				w.restart(t)
				continue
			}
			switch rapid.IntRange(0, 19).Draw(t, "move") {
			case 0:
				if w.identity {
					w.identityReport(t)
				}
			case 1:
				w.commit(t)
				w.restart(t)
			case 2:
				w.clone(t)
			case 3:
				w.stamp(t)
			default:
				w.receive(t)
				w.drain(t)
			}
			if w.e != nil {
				checkGates(t, w.e)
				checkIndexes(t, w.e)
			}
		}
		indexed += w.indexed
	})
	if indexed == 0 {
		t.Fatal("no delivery went through a per-sender index: the fast paths were not exercised")
	}
}

// TestLastListKeepsNoDecodedCauses: once a channel's list repeats, its last list is the index's
// own copy, not a view of the decoded causes of the header that built the index, so no delivered
// message's decode chunk stays reachable through it.
func TestLastListKeepsNoDecodedCauses(t *testing.T) {
	a, b := etCh(1, 0), etCh(2, 0)
	e := etStart(t, nil, etInit(a), Options{})
	var delivered []Causes
	for pos := range Offset(4) {
		if _, err := e.Receive(a, pos, etRec("m", etCause(b, pos), etCause(etCh(3, 0), pos+1))); err != nil {
			t.Fatalf("receive %d: %v", pos, err)
		}
		for d, ok := e.Next(); ok; d, ok = e.Next() {
			delivered = append(delivered, d.Causes)
		}
	}
	c := &e.chans[e.mustIndex(a)]
	if c.lastIndex == nil || len(delivered) != 4 {
		t.Fatalf("no index after a repeated list (%d delivered)", len(delivered))
	}
	checkIndexes(t, e)
	for i, d := range delivered {
		if &d.pairs[0] == &c.lastList[0] {
			t.Fatalf("the last list is a view of delivery %d's causes", i)
		}
	}
}

package node

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genNearChannel draws channels from a tiny grid — topic ID halves each 1 or 2 (with the sign bit
// set or not), partitions 0 to 2 — so that channels sharing a first half, or a whole topic ID, are
// common, and every branch of a field-by-field channel comparison is taken.
func genNearChannel() *rapid.Generator[Channel] {
	return rapid.Custom(func(t *rapid.T) Channel {
		var id TopicID
		id[0] = rapid.SampledFrom([]byte{0x01, 0x02, 0x81}).Draw(t, "hi")
		id[8] = rapid.SampledFrom([]byte{0x01, 0x02, 0x81}).Draw(t, "lo")
		return Channel{Topic: id, Partition: Partition(rapid.IntRange(0, 2).Draw(t, "partition"))}
	})
}

// genGateChannel draws a channel anywhere or from the tiny grid.
func genGateChannel() *rapid.Generator[Channel] { return rapid.OneOf(genChannel(), genNearChannel()) }

// mapViewOf is the engine's received set and settled view as plain maps (SPEC §1.4 from each
// channel's state), for checking the engine's own gate against Decide.
func mapViewOf(e *Engine) *gateView {
	v := &gateView{received: map[Channel]bool{}, settled: map[Channel]Offset{}}
	for i := range e.chans {
		v.received[e.chans[i].ch] = true
		if pos, known := e.chans[i].settled(); known {
			v.settled[e.chans[i].ch] = pos
		}
	}
	return v
}

// checkGates fails the test when a channel's cached gate position differs from its settled
// position (−1 when none is known).
func checkGates(t etT, e *Engine) {
	t.Helper()
	for i := range e.chans {
		c := &e.chans[i]
		want := Offset(-1)
		if pos, known := c.settled(); known {
			want = pos
		}
		if c.gate != want {
			t.Fatalf("channel %v: gate %d, settled position %d", c.ch, c.gate, want)
		}
	}
}

// TestEngineGateMatchesDecide: on random received sets, channel states (fedUpTo known or not,
// a held head or not) and causes, the engine's satisfied and appendBlockers agree with Decide
// over the same state given as maps, and satisfied counts the cause entries up to and including
// the first unsatisfied one.
func TestEngineGateMatchesDecide(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfNDistinct(genGateChannel(), 1, 12, func(c Channel) Channel { return c }).Draw(t, "pool")
		var received []Channel
		for i, ch := range pool {
			if rapid.Bool().Draw(t, fmt.Sprintf("received[%d]", i)) {
				received = append(received, ch)
			}
		}
		e := newEngine(Init{Received: received}, Options{})
		for i := range e.chans {
			c := &e.chans[i]
			if rapid.Bool().Draw(t, fmt.Sprintf("fed known[%d]", i)) {
				c.fed, c.fedKnown = Offset(rapid.Int64Range(0, 6).Draw(t, fmt.Sprintf("fed[%d]", i))), true
				if rapid.Bool().Draw(t, fmt.Sprintf("held[%d]", i)) {
					head := Offset(rapid.Int64Range(0, int64(c.fed)).Draw(t, fmt.Sprintf("head[%d]", i)))
					c.held.own.push(heldEntry{msg: HeldMessage{Channel: c.ch, Position: head}})
				}
			}
			c.refreshGate()
		}
		causes := CausesOf(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Cause {
			return Cause{rapid.SampledFrom(pool).Draw(t, "channel"), Offset(rapid.Int64Range(0, 7).Draw(t, "position"))}
		}), 0, 10).Draw(t, "causes")...)
		view := mapViewOf(e)
		want := Decide(causes, view, view).Blockers
		if got := e.appendBlockers(nil, causes.Pairs()); !slices.Equal(got, want) {
			t.Fatalf("engine blockers %v, Decide %v", got, want)
		}
		wantCompared := causes.Len()
		if len(want) > 0 {
			wantCompared = slices.IndexFunc(causes.Pairs(), func(c Cause) bool { return c.Channel == want[0].Channel }) + 1
		}
		before := e.counters.CausesCompared
		if got := e.satisfied(causes.Pairs()); got != (len(want) == 0) {
			t.Fatalf("engine satisfied = %v, Decide blockers %v", got, want)
		}
		if got := int(e.counters.CausesCompared - before); got != wantCompared {
			t.Fatalf("CausesCompared += %d, want %d (causes %v, blockers %v)", got, wantCompared, causes, want)
		}
	})
}

package node

import (
	"fmt"
	"testing"
)

// Benchmarks of the engine's hot paths. Headers are encoded before the timer runs (encoding is
// the sender's cost); every benchmark reports a checksum of what it delivered so the work cannot
// be optimised away and two runs can be compared, and the drain benchmarks report the work
// counters per op, which must stay flat against buffer depth.
//
//	go test ./node/ -run '^$' -bench 'Engine' -benchmem

// benchBatch is how many records are pre-encoded; the engine restarts (timer stopped) after each
// batch so positions keep increasing.
const benchBatch = 1 << 13

// depthBatch is benchBatch for the depth benchmarks: larger, so the buffer's one-time growth after
// each restart does not masquerade as per-op cost at depth 4096.
const depthBatch = 1 << 16

type benchMsg struct {
	ch  Channel
	pos Offset
	rec Record
}

// benchRun feeds msgs round after round, draining after each receipt, restarting the engine
// between batches. It returns the checksum of delivered positions.
func benchRun(b *testing.B, received []Channel, msgs []benchMsg) {
	b.Helper()
	var checksum uint64
	var counters Counters
	e := etStart(b, nil, etInit(received...), Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(msgs)
		if k == 0 && i > 0 {
			b.StopTimer()
			counters = sumCounters(counters, e.Counters())
			e = etStart(b, nil, etInit(received...), Options{})
			b.StartTimer()
		}
		m := &msgs[k]
		if _, err := e.Receive(m.ch, m.pos, m.rec); err != nil {
			b.Fatal(err)
		}
		for {
			d, ok := e.Next()
			if !ok {
				break
			}
			checksum += uint64(d.Position) + uint64(d.Channel.Partition)
		}
	}
	b.StopTimer()
	counters = sumCounters(counters, e.Counters())
	if counters.Deliveries != uint64(b.N) {
		b.Fatalf("delivered %d of %d", counters.Deliveries, b.N)
	}
	reportCounters(b, counters, checksum)
}

func sumCounters(a, b Counters) Counters {
	return Counters{a.HeadsOffered + b.HeadsOffered, a.CausesCompared + b.CausesCompared, a.CausesMerged + b.CausesMerged,
		a.HeaderBytesDecoded + b.HeaderBytesDecoded, a.HeaderBytesEncoded + b.HeaderBytesEncoded,
		a.HoldsAdded + b.HoldsAdded, a.HoldsRemoved + b.HoldsRemoved, a.Deliveries + b.Deliveries}
}

// reportCounters reports work counters per op and the checksum.
func reportCounters(b *testing.B, c Counters, checksum uint64) {
	n := float64(b.N)
	b.ReportMetric(float64(c.HeadsOffered)/n, "heads/op")
	b.ReportMetric(float64(c.CausesCompared)/n, "compared/op")
	b.ReportMetric(float64(c.HeaderBytesDecoded)/n, "decodedB/op")
	b.ReportMetric(float64(checksum%1_000_000), "checksum")
}

// BenchmarkEngineChain: one received channel; message n carries (own channel, n−1) and an
// upstream unreceived coordinate; each delivers at once.
func BenchmarkEngineChain(b *testing.B) {
	c, up := etCh(1, 0), etCh(9, 0)
	msgs := make([]benchMsg, benchBatch)
	for i := range msgs {
		pos := Offset(i)
		causes := []Cause{{up, pos}}
		if i > 0 {
			causes = append(causes, Cause{c, pos - 1})
		}
		msgs[i] = benchMsg{c, pos, etRec("v", causes...)}
	}
	benchRun(b, []Channel{c}, msgs)
}

// BenchmarkEngineFanIn8: eight received channels fed round-robin; each message carries the latest
// delivered position of every channel (width 8) and delivers at once.
func BenchmarkEngineFanIn8(b *testing.B) {
	const width = 8
	chans := make([]Channel, width)
	for j := range chans {
		chans[j] = etCh(byte(j+1), Partition(j))
	}
	msgs := make([]benchMsg, benchBatch)
	for i := range msgs {
		own, round := i%width, Offset(i/width)
		var causes []Cause
		for j := 0; j < width; j++ {
			switch {
			case j < own:
				causes = append(causes, Cause{chans[j], round})
			case round > 0:
				causes = append(causes, Cause{chans[j], round - 1})
			}
		}
		msgs[i] = benchMsg{chans[own], round, etRec("v", causes...)}
	}
	benchRun(b, chans, msgs)
}

// depthSetup builds an engine whose channel a holds depth messages, message k blocked on z@k.
func depthSetup(b *testing.B, depth int) (*Engine, Channel, Channel, []Record) {
	a, z := etCh(1, 0), etCh(2, 0)
	e := etStart(b, nil, etInit(a, z), Options{})
	recs := make([]Record, depth+depthBatch)
	for k := range recs {
		recs[k] = etRec("held", Cause{z, Offset(k)})
	}
	for k := 0; k < depth; k++ {
		etFeed(b, e, a, Offset(k), recs[k])
	}
	etDrain(e)
	return e, a, z, recs
}

// BenchmarkEngineDrainDepth: a buffer of constant depth; each op feeds the cause of its head
// (z@k), drains (delivering z@k and the head of a) and appends one more held message, so the
// depth stays constant. ns/op and the work counters per op must not grow with depth.
func BenchmarkEngineDrainDepth(b *testing.B) {
	for _, depth := range []int{1, 16, 256, 4096} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			benchDepth(b, depth, false)
		})
	}
}

// BenchmarkEngineCommitDepth is BenchmarkEngineDrainDepth with a Commit and State.Apply per op:
// commit cost must not grow with depth either.
func BenchmarkEngineCommitDepth(b *testing.B) {
	for _, depth := range []int{1, 16, 256, 4096} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			benchDepth(b, depth, true)
		})
	}
}

func benchDepth(b *testing.B, depth int, commit bool) {
	e, a, z, recs := depthSetup(b, depth)
	st := &State{}
	if err := st.Apply(e.Commit()); err != nil {
		b.Fatal(err)
	}
	free := etRec("cause")
	var checksum uint64
	var total Counters
	base := e.Counters()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % depthBatch
		if k == 0 && i > 0 {
			b.StopTimer()
			total = sumCounters(total, e.Counters().Minus(base))
			e, a, z, recs = depthSetup(b, depth)
			st = &State{}
			if err := st.Apply(e.Commit()); err != nil {
				b.Fatal(err)
			}
			base = e.Counters()
			b.StartTimer()
		}
		if _, err := e.Receive(z, Offset(k), free); err != nil {
			b.Fatal(err)
		}
		for {
			d, ok := e.Next()
			if !ok {
				break
			}
			checksum += uint64(d.Position)
		}
		if _, err := e.Receive(a, Offset(depth+k), recs[depth+k]); err != nil {
			b.Fatal(err)
		}
		if commit {
			if err := st.Apply(e.Commit()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	total = sumCounters(total, e.Counters().Minus(base))
	if total.Deliveries != 2*uint64(b.N) {
		b.Fatalf("delivered %d, want %d", total.Deliveries, 2*b.N)
	}
	if commit && st.HeldCount() != depth {
		b.Fatalf("committed depth %d, want %d", st.HeldCount(), depth)
	}
	reportCounters(b, total, checksum)
}

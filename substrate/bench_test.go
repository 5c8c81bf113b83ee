package substrate

import (
	"testing"
)

// Benchmarks. Command:
//
//	go test -run '^$' -bench . -benchtime 2s ./substrate/
//
// Back-of-the-envelope (model): a produce is a map-free ID check (one-entry cache), a bounds
// check and an amortised append of a 96-byte entry, ~10-30 ns; a fetch of a few records from a
// warm partition is a loop over entries appending into a reused slice, ~10 ns/record. Target:
// >= 5M simple operations per second per core. The adapter's round trip is a loopback TCP
// request to kfake, ~50-100 µs.

var benchChecksum int64

// BenchmarkModelProduce appends to four partitions. retained=1024 trims each partition to its
// last ~1024 offsets as retention would (the simulator's steady state); retained=all lets the log
// grow to millions of entries, where slice growth and GC scanning of the log dominate.
func BenchmarkModelProduce(b *testing.B) {
	for _, retained := range []int{1024, 0} {
		name := "retained=all"
		if retained > 0 {
			name = "retained=" + itoa(retained)
		}
		b.Run(name, func(b *testing.B) {
			m := NewSeededModel(1)
			id, _ := m.CreateTopic("bench", 4)
			rec := Record{Value: []byte("value")}
			var sum int64
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tp := TopicPartition{id, Partition(i & 3)}
				o, err := m.Produce(tp, rec, ProduceIdempotent)
				if err != nil {
					b.Fatal(err)
				}
				if retained > 0 && int(o)%retained == retained-1 {
					_ = m.DeleteRecords(tp, o+1-Offset(retained))
				}
				sum += int64(o)
			}
			benchChecksum = sum
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

func BenchmarkModelFetch(b *testing.B) {
	for _, batch := range []int{1, 16} {
		b.Run("records="+itoa(batch), func(b *testing.B) {
			m := NewSeededModel(1)
			id, _ := m.CreateTopic("bench", 1)
			tp := TopicPartition{id, 0}
			const logLen = 1 << 16
			for i := range logLen {
				if _, err := m.Produce(tp, Record{TimestampMicros: int64(i)}, ProducePlain); err != nil {
					b.Fatal(err)
				}
			}
			var dst []FetchedRecord
			var sum int64
			from := Offset(0)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				dst, from, err = m.FetchInto(dst[:0], tp, from, batch)
				if err != nil {
					b.Fatal(err)
				}
				sum += dst[len(dst)-1].TimestampMicros
				if from >= logLen {
					from = 0
				}
			}
			benchChecksum = sum
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkModelMixed interleaves what a simulated step does: a plain produce and a fetch on the
// input, a transaction with two produces, an offset send and a commit, an offset listing and a
// fetch on the output; logs are trimmed to ~1024 offsets as retention would.
func BenchmarkModelMixed(b *testing.B) {
	m := NewSeededModel(1)
	in, _ := m.CreateTopic("in", 1)
	out, _ := m.CreateTopic("out", 2)
	p, _ := m.InitTransactions("task")
	tpIn := TopicPartition{in, 0}
	rec := Record{Value: []byte("v")}
	offsets := make([]GroupOffset, 1)
	var dst []FetchedRecord
	var sum int64
	from := Offset(0)
	const opsPerIteration = 9
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = m.Produce(tpIn, rec, ProducePlain)
		dst, from, _ = m.FetchInto(dst[:0], tpIn, from, 4)
		_ = m.BeginTransaction(p)
		o1, _ := m.ProduceTx(p, TopicPartition{out, 0}, rec)
		o2, _ := m.ProduceTx(p, TopicPartition{out, 1}, rec)
		offsets[0] = GroupOffset{tpIn, from}
		_ = m.SendOffsetsToTransaction(p, "g", offsets)
		if err := m.CommitTransaction(p); err != nil {
			b.Fatal(err)
		}
		offs, _ := m.ListOffsets(TopicPartition{out, 0})
		dst, _, _ = m.FetchInto(dst[:0], TopicPartition{out, 1}, o2, 1)
		sum += int64(o1) + int64(offs.LastStable) + int64(len(dst))
		if i%512 == 511 {
			_ = m.DeleteRecords(tpIn, from)
			_ = m.DeleteRecords(TopicPartition{out, 0}, o1)
			_ = m.DeleteRecords(TopicPartition{out, 1}, o2)
		}
	}
	benchChecksum = sum
	b.ReportMetric(float64(b.N*opsPerIteration)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkKfakeRoundTrip is one produce and one read_committed fetch through the adapter.
func BenchmarkKfakeRoundTrip(b *testing.B) {
	k, err := NewKafka(kfakeCluster(b).ListenAddrs(), KafkaOptions{ReplicationFactor: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	id, err := k.CreateTopic("bench-roundtrip-"+itoa(int(sequenceCounter.Add(1))), 1)
	if err != nil {
		b.Fatal(err)
	}
	tp := TopicPartition{id, 0}
	var sum int64
	for b.Loop() {
		o, err := k.Produce(tp, Record{Value: []byte("v")}, ProduceIdempotent)
		if err != nil {
			b.Fatal(err)
		}
		recs, _, err := k.Fetch(tp, o, 1)
		if err != nil || len(recs) != 1 {
			b.Fatalf("fetch %d: %v %v", o, recs, err)
		}
		sum += int64(recs[0].Offset)
	}
	benchChecksum = sum
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for ; n > 0; n /= 10 {
		i--
		buf[i] = byte('0' + n%10)
	}
	return string(buf[i:])
}

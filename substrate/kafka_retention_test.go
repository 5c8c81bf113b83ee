package substrate

import (
	"fmt"
	"testing"
)

// TestKafkaTimeRetentionFollowsVirtualTime drives the model and the adapter over kfake through
// one script of records with sub-millisecond and out-of-order timestamps, committed, aborted and
// fenced transactions (whose markers carry the virtual clock of their end) and an open one, and
// advances the virtual clock in steps under a time retention policy: after every step the two
// must report the same watermarks. The run's timestamps are decades before the wall clock, so a
// broker applying retention.ms would delete everything at once.
func TestKafkaTimeRetentionFollowsVirtualTime(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	k := prefixedKafka(t, kfakeCluster(t).ListenAddrs(), KafkaOptions{TopicPrefix: "time-retention-"})
	subs := []Substrate{NewSeededModel(1), k}
	type step struct {
		what string
		do   func(s Substrate, tps []TopicPartition, txs []TxnProducer) error
	}
	produce := func(p Partition, micros int64) step {
		return step{fmt.Sprintf("produce to %d at %d", p, micros), func(s Substrate, tps []TopicPartition, _ []TxnProducer) error {
			_, err := s.Produce(tps[p], Record{Value: []byte("v"), TimestampMicros: micros}, ProducePlain)
			return err
		}}
	}
	produceTx := func(tx int, p Partition, micros int64) step {
		return step{fmt.Sprintf("produce tx%d to %d at %d", tx, p, micros), func(s Substrate, tps []TopicPartition, txs []TxnProducer) error {
			_, err := s.ProduceTx(txs[tx], tps[p], Record{Value: []byte("t"), TimestampMicros: micros})
			return err
		}}
	}
	clock := func(micros int64) step {
		return step{fmt.Sprintf("clock %d", micros), func(s Substrate, _ []TopicPartition, _ []TxnProducer) error {
			return s.AdvanceClock(micros)
		}}
	}
	txn := func(what string, tx int, f func(Substrate, TxnProducer) error) step {
		return step{fmt.Sprintf("%s tx%d", what, tx), func(s Substrate, _ []TopicPartition, txs []TxnProducer) error {
			return f(s, txs[tx])
		}}
	}
	begin := func(tx int) step { return txn("begin", tx, Substrate.BeginTransaction) }
	commit := func(tx int) step { return txn("commit", tx, Substrate.CommitTransaction) }
	script := []step{
		produce(0, 1_500), produce(0, 2_700), produce(1, 900),
		clock(3_000), begin(0), produceTx(0, 0, 2_000), produceTx(0, 1, 2_000),
		clock(5_250), commit(0), // markers at 5_250 on both partitions
		clock(6_000),      // later than the markers: a marker's time is its transaction's end
		produce(0, 1_000), // older than what precedes it: retention stops before it only by order
		begin(1), produceTx(1, 1, 6_000),
		clock(7_000), step{"fence tx1", func(s Substrate, _ []TopicPartition, txs []TxnProducer) error {
			_, err := s.InitTransactions("tx1") // aborts tx1's transaction: a marker at 7_000
			return err
		}},
		clock(7_050), produce(1, 7_100), begin(0), produceTx(0, 0, 7_200), // left open: holds the LSO
		step{"retention 2ms", func(s Substrate, _ []TopicPartition, _ []TxnProducer) error {
			return s.SetRetention("t", RetentionPolicy{TimeMicros: 2_000})
		}},
		clock(4_000), clock(5_200), clock(7_250), clock(7_999), clock(9_000), clock(9_100), clock(9_300),
		commit(0), clock(9_700), clock(100_000),
	}
	var tps [2][]TopicPartition
	var txs [2][]TxnProducer
	for i, s := range subs {
		id, err := s.CreateTopic("t", 2)
		if err != nil {
			t.Fatal(err)
		}
		tps[i] = []TopicPartition{{id, 0}, {id, 1}}
		for _, name := range []string{"tx0", "tx1"} {
			p, err := s.InitTransactions(name)
			if err != nil {
				t.Fatal(err)
			}
			txs[i] = append(txs[i], p)
		}
	}
	var starts [2]Offset
	for _, st := range script {
		for i, s := range subs {
			if err := st.do(s, tps[i], txs[i]); err != nil {
				t.Fatalf("%T: %s: %v", s, st.what, err)
			}
		}
		for p := range 2 {
			m, errM := subs[0].ListOffsets(tps[0][p])
			l, errL := subs[1].ListOffsets(tps[1][p])
			if errM != nil || errL != nil || m != l {
				t.Fatalf("after %s, partition %d: model %+v (%v), kafka %+v (%v)", st.what, p, m, errM, l, errL)
			}
			starts[p] = m.LogStart
		}
	}
	// Everything went in the end: both partitions' logs, markers included, were dropped by time.
	if starts != [2]Offset{7, 6} {
		t.Fatalf("log starts %v, want [7 6]", starts)
	}
}

func TestPartitionTimesLocatesMarkers(t *testing.T) {
	var pt partitionTimes
	pt.record(0, 10, 0)
	pt.marks = append(pt.marks, 20, 30)
	pt.record(3, 40, 35) // offsets 1 and 2 are the two markers
	pt.fill(6, 50)       // 4 and 5: nothing pending, found at 50
	if want := []int64{10, 20, 30, 40, 50, 50}; fmt.Sprint(pt.times) != fmt.Sprint(want) {
		t.Fatalf("times %v, want %v", pt.times, want)
	}
	got := pt.retentionStart(RetentionPolicy{TimeMicros: 10}, Offsets{LogStart: 1, LastStable: 6, HighWatermark: 6}, 41)
	if got != 3 {
		t.Fatalf("retention start %d, want 3", got)
	}
	for o := Offset(6); o < 200; o++ {
		pt.record(o, int64(o), 0)
	}
	pt.trim(150)
	if pt.base != 150 || pt.times[0] != 150 || pt.next() != 200 {
		t.Fatalf("after trim: base %d, first %d, next %d", pt.base, pt.times[0], pt.next())
	}
}

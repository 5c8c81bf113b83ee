package substrate

// Differential test: rapid generates operation sequences; each runs against the Model and
// against kfake through the Kafka adapter, and every observable result must agree (offsets,
// records and headers, watermarks, errors by sentinel, topic states), with topic IDs compared
// by incarnation (the n-th topic created) rather than by value.
//
//	go test ./substrate/ -run Differential                              # 200 sequences
//	go test ./substrate/ -run Differential -substrate.sequences=5000    # more
//
// Retention is the adapter's own, from virtual time (kafka_retention.go), so the sequences set
// time and size retention policies and advance the virtual clock like any other operation.
//
// Results are compared as agreement.go says (errors by sentinel, timestamps at Kafka's
// millisecond resolution); the disagreements found between the model and kfake, and how each was
// settled, are listed there, where the run-level comparison (package comparison) shares them.

import (
	"flag"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"pgregory.net/rapid"
)

var differentialSequences = flag.Int("substrate.sequences", 200,
	"number of operation sequences the differential test runs against the model and kfake")

var (
	sharedKfakeOnce sync.Once
	sharedKfake     *kfake.Cluster
	sharedKfakeErr  error
	sequenceCounter atomic.Int64
)

// kfakeCluster starts one kfake cluster for the whole test binary; sequences use fresh names.
func kfakeCluster(t testing.TB) *kfake.Cluster {
	sharedKfakeOnce.Do(func() {
		sharedKfake, sharedKfakeErr = kfake.NewCluster(kfake.NumBrokers(1))
	})
	if sharedKfakeErr != nil {
		t.Fatal(sharedKfakeErr)
	}
	return sharedKfake
}

// pair is one implementation under test and its view of topic incarnations.
type pair struct {
	sub  Substrate
	ids  []TopicID // by incarnation
	incs map[TopicID]int
}

func (p *pair) learn(id TopicID) {
	p.incs[id] = len(p.ids)
	p.ids = append(p.ids, id)
}

func (p *pair) inc(id TopicID) int {
	if id.IsZero() {
		return -1
	}
	if i, ok := p.incs[id]; ok {
		return i
	}
	return -2 // an ID this side never learned: always a mismatch against a known one
}

// diffWorld is one generated sequence's state.
type diffWorld struct {
	prefix  string
	model   *pair
	kafka   *pair
	names   []string
	handles [][2]TxnProducer // model handle, kafka handle
	groups  []string
	// last is the partition of the last successful write, which reads favour.
	last      [2]TopicPartition
	lastValid bool
	clock     int64 // virtual clock, micros
}

func (w *diffWorld) sameErr(t *rapid.T, what string, errM, errK error) bool {
	cm, ck := ErrorClass(errM), ErrorClass(errK)
	if cm != ck {
		t.Fatalf("%s: model error %q (%v), kafka error %q (%v)", what, cm, errM, ck, errK)
	}
	return errM == nil
}

func (w *diffWorld) drawRecord(t *rapid.T) Record {
	bytesOrNil := func(label string) []byte {
		if rapid.Bool().Draw(t, label+"Nil") {
			return nil
		}
		return []byte(rapid.StringMatching(`[a-z]{0,3}`).Draw(t, label))
	}
	rec := Record{
		Key:             bytesOrNil("key"),
		Value:           bytesOrNil("value"),
		TimestampMicros: 1000 * rapid.Int64Range(0, 1_000_000).Draw(t, "timestampMillis"),
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "headers") {
		rec.Headers = append(rec.Headers, Header{Key: fmt.Sprintf("h%d", i), Value: bytesOrNil("header")})
	}
	return rec
}

// drawTP picks a partition of any incarnation so far (alive or not), sometimes out of range.
func (w *diffWorld) drawTP(t *rapid.T) (TopicPartition, TopicPartition, bool) {
	if len(w.model.ids) == 0 {
		return TopicPartition{}, TopicPartition{}, false
	}
	if w.lastValid && rapid.Bool().Draw(t, "sameAsLastWrite") { // make reads meet writes
		return w.last[0], w.last[1], true
	}
	inc := rapid.IntRange(0, len(w.model.ids)-1).Draw(t, "incarnation")
	p := Partition(rapid.IntRange(0, 2).Draw(t, "partition"))
	return TopicPartition{w.model.ids[inc], p}, TopicPartition{w.kafka.ids[inc], p}, true
}

// drawOffset picks an offset near the interesting places of the model's partition.
func (w *diffWorld) drawOffset(t *rapid.T, tp TopicPartition, label string) Offset {
	o, err := w.model.sub.ListOffsets(tp)
	if err != nil {
		return Offset(rapid.Int64Range(0, 3).Draw(t, label))
	}
	return Offset(rapid.Int64Range(int64(o.LogStart)-1, int64(o.HighWatermark)+1).Draw(t, label))
}

func (w *diffWorld) drawHandle(t *rapid.T) ([2]TxnProducer, bool) {
	if len(w.handles) == 0 {
		return [2]TxnProducer{}, false
	}
	return w.handles[rapid.IntRange(0, len(w.handles)-1).Draw(t, "handle")], true
}

func (w *diffWorld) drawOffsets(t *rapid.T) ([]GroupOffset, []GroupOffset) {
	var m, k []GroupOffset
	for range rapid.IntRange(0, 2).Draw(t, "offsets") {
		tpM, tpK, ok := w.drawTP(t)
		if !ok {
			break
		}
		o := Offset(rapid.Int64Range(0, 6).Draw(t, "groupOffset"))
		m = append(m, GroupOffset{tpM, o})
		k = append(k, GroupOffset{tpK, o})
	}
	return m, k
}

func (w *diffWorld) sameRecords(t *rapid.T, what string, m, k []FetchedRecord) {
	if i := FirstRecordDifference(m, k); i >= 0 {
		t.Fatalf("%s: record %d differs: model %d records %+v, kafka %d records %+v", what, i, len(m), m, len(k), k)
	}
}

// groupView maps group offsets to (incarnation, partition, offset), sorted.
func groupView(p *pair, offsets []GroupOffset) [][3]int64 {
	out := make([][3]int64, len(offsets))
	for i, o := range offsets {
		out[i] = [3]int64{int64(p.inc(o.Topic)), int64(o.Partition), int64(o.Offset)}
	}
	slices.SortFunc(out, func(a, b [3]int64) int { return slices.Compare(a[:], b[:]) })
	return out
}

func (w *diffWorld) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"create": func(t *rapid.T) {
			name := w.names[rapid.IntRange(0, len(w.names)-1).Draw(t, "name")]
			parts := rapid.IntRange(1, 3).Draw(t, "partitions")
			idM, errM := w.model.sub.CreateTopic(name, parts)
			idK, errK := w.kafka.sub.CreateTopic(name, parts)
			if w.sameErr(t, "create "+name, errM, errK) {
				w.model.learn(idM)
				w.kafka.learn(idK)
			}
		},
		"recreate": func(t *rapid.T) {
			name := w.names[rapid.IntRange(0, len(w.names)-1).Draw(t, "name")]
			idM, errM := w.model.sub.RecreateTopic(name)
			idK, errK := w.kafka.sub.RecreateTopic(name)
			if w.sameErr(t, "recreate "+name, errM, errK) {
				w.model.learn(idM)
				w.kafka.learn(idK)
			}
		},
		"delete": func(t *rapid.T) {
			name := w.names[rapid.IntRange(0, len(w.names)-1).Draw(t, "name")]
			w.sameErr(t, "delete "+name, w.model.sub.DeleteTopic(name), w.kafka.sub.DeleteTopic(name))
		},
		"lookup": func(t *rapid.T) {
			name := w.names[rapid.IntRange(0, len(w.names)-1).Draw(t, "name")]
			idM, nM, errM := w.model.sub.LookupTopic(name)
			idK, nK, errK := w.kafka.sub.LookupTopic(name)
			if w.sameErr(t, "lookup "+name, errM, errK) && (w.model.inc(idM) != w.kafka.inc(idK) || nM != nK) {
				t.Fatalf("lookup %s: model (%d, %d), kafka (%d, %d)", name, w.model.inc(idM), nM, w.kafka.inc(idK), nK)
			}
		},
		"describe": func(t *rapid.T) {
			if len(w.model.ids) == 0 {
				t.Skip("no topics")
			}
			inc := rapid.IntRange(0, len(w.model.ids)-1).Draw(t, "incarnation")
			dM, errM := w.model.sub.DescribeTopic(w.model.ids[inc])
			dK, errK := w.kafka.sub.DescribeTopic(w.kafka.ids[inc])
			sameInc := func(a, b TopicID) bool { return w.model.inc(a) == w.kafka.inc(b) }
			if w.sameErr(t, "describe", errM, errK) && !SameDescription(dM, dK, sameInc) {
				t.Fatalf("describe incarnation %d: model %+v, kafka %+v", inc, dM, dK)
			}
		},
		"produce": func(t *rapid.T) {
			tpM, tpK, ok := w.drawTP(t)
			if !ok {
				t.Skip("no topics")
			}
			rec := w.drawRecord(t)
			mode := rapid.SampledFrom([]ProduceMode{ProducePlain, ProduceIdempotent}).Draw(t, "mode")
			oM, errM := w.model.sub.Produce(tpM, rec, mode)
			oK, errK := w.kafka.sub.Produce(tpK, rec, mode)
			if w.sameErr(t, "produce", errM, errK) {
				if oM != oK {
					t.Fatalf("produce: model offset %d, kafka offset %d", oM, oK)
				}
				w.last, w.lastValid = [2]TopicPartition{tpM, tpK}, true
			}
		},
		"initTxn": func(t *rapid.T) {
			id := fmt.Sprintf("%s-tx%d", w.prefix, rapid.IntRange(0, 1).Draw(t, "txnID"))
			hM, errM := w.model.sub.InitTransactions(id)
			hK, errK := w.kafka.sub.InitTransactions(id)
			if w.sameErr(t, "init "+id, errM, errK) {
				if hM.Epoch != hK.Epoch {
					t.Fatalf("init %s: model epoch %d, kafka epoch %d", id, hM.Epoch, hK.Epoch)
				}
				w.handles = append(w.handles, [2]TxnProducer{hM, hK})
			}
		},
		"begin": func(t *rapid.T) {
			h, ok := w.drawHandle(t)
			if !ok {
				t.Skip("no producers")
			}
			w.sameErr(t, "begin", w.model.sub.BeginTransaction(h[0]), w.kafka.sub.BeginTransaction(h[1]))
		},
		"produceTx": func(t *rapid.T) {
			h, ok := w.drawHandle(t)
			tpM, tpK, ok2 := w.drawTP(t)
			if !ok || !ok2 {
				t.Skip("no producers or topics")
			}
			rec := w.drawRecord(t)
			oM, errM := w.model.sub.ProduceTx(h[0], tpM, rec)
			oK, errK := w.kafka.sub.ProduceTx(h[1], tpK, rec)
			if w.sameErr(t, "produceTx", errM, errK) {
				if oM != oK {
					t.Fatalf("produceTx: model offset %d, kafka offset %d", oM, oK)
				}
				w.last, w.lastValid = [2]TopicPartition{tpM, tpK}, true
			}
		},
		"sendOffsets": func(t *rapid.T) {
			h, ok := w.drawHandle(t)
			if !ok {
				t.Skip("no producers")
			}
			group := rapid.SampledFrom(w.groups).Draw(t, "group")
			m, k := w.drawOffsets(t)
			w.sameErr(t, "sendOffsets", w.model.sub.SendOffsetsToTransaction(h[0], group, m),
				w.kafka.sub.SendOffsetsToTransaction(h[1], group, k))
		},
		"commit": func(t *rapid.T) {
			h, ok := w.drawHandle(t)
			if !ok {
				t.Skip("no producers")
			}
			w.sameErr(t, "commit", w.model.sub.CommitTransaction(h[0]), w.kafka.sub.CommitTransaction(h[1]))
		},
		"abort": func(t *rapid.T) {
			h, ok := w.drawHandle(t)
			if !ok {
				t.Skip("no producers")
			}
			w.sameErr(t, "abort", w.model.sub.AbortTransaction(h[0]), w.kafka.sub.AbortTransaction(h[1]))
		},
		"fetch": func(t *rapid.T) {
			tpM, tpK, ok := w.drawTP(t)
			if !ok {
				t.Skip("no topics")
			}
			from := w.drawOffset(t, tpM, "from")
			maxRecords := rapid.IntRange(0, 3).Draw(t, "maxRecords")
			rM, nM, errM := w.model.sub.Fetch(tpM, from, maxRecords)
			rK, nK, errK := w.kafka.sub.Fetch(tpK, from, maxRecords)
			what := fmt.Sprintf("fetch from %d max %d", from, maxRecords)
			if w.sameErr(t, what, errM, errK) {
				w.sameRecords(t, what, rM, rK)
				if nM != nK {
					t.Fatalf("%s: model next %d, kafka next %d", what, nM, nK)
				}
			}
		},
		"listOffsets": func(t *rapid.T) {
			tpM, tpK, ok := w.drawTP(t)
			if !ok {
				t.Skip("no topics")
			}
			oM, errM := w.model.sub.ListOffsets(tpM)
			oK, errK := w.kafka.sub.ListOffsets(tpK)
			if w.sameErr(t, "listOffsets", errM, errK) && oM != oK {
				t.Fatalf("listOffsets: model %+v, kafka %+v", oM, oK)
			}
		},
		"deleteRecords": func(t *rapid.T) {
			tpM, tpK, ok := w.drawTP(t)
			if !ok {
				t.Skip("no topics")
			}
			before := w.drawOffset(t, tpM, "before")
			w.sameErr(t, fmt.Sprintf("deleteRecords before %d", before),
				w.model.sub.DeleteRecords(tpM, before), w.kafka.sub.DeleteRecords(tpK, before))
		},
		"setRetention": func(t *rapid.T) {
			name := w.names[rapid.IntRange(0, len(w.names)-1).Draw(t, "name")]
			policy := RetentionPolicy{
				TimeMicros: rapid.SampledFrom([]int64{0, 1, 50_000_000, 400_000_000}).Draw(t, "retentionMicros"),
				MaxOffsets: rapid.Int64Range(0, 4).Draw(t, "retentionOffsets"),
			}
			w.sameErr(t, fmt.Sprintf("setRetention %s %+v", name, policy),
				w.model.sub.SetRetention(name, policy), w.kafka.sub.SetRetention(name, policy))
		},
		"advanceClock": func(t *rapid.T) {
			w.clock += rapid.Int64Range(0, 300_000_000).Draw(t, "advanceMicros")
			w.sameErr(t, fmt.Sprintf("advanceClock %d", w.clock),
				w.model.sub.AdvanceClock(w.clock), w.kafka.sub.AdvanceClock(w.clock))
		},
		"commitOffsets": func(t *rapid.T) {
			group := rapid.SampledFrom(w.groups).Draw(t, "group")
			m, k := w.drawOffsets(t)
			w.sameErr(t, "commitOffsets", w.model.sub.CommitOffsets(group, m), w.kafka.sub.CommitOffsets(group, k))
		},
		"committedOffsets": func(t *rapid.T) {
			group := rapid.SampledFrom(w.groups).Draw(t, "group")
			m, errM := w.model.sub.CommittedOffsets(group)
			k, errK := w.kafka.sub.CommittedOffsets(group)
			if w.sameErr(t, "committedOffsets", errM, errK) {
				if vm, vk := groupView(w.model, m), groupView(w.kafka, k); !slices.Equal(vm, vk) {
					t.Fatalf("committedOffsets %s: model %v, kafka %v", group, vm, vk)
				}
			}
		},
	}
}

func TestDifferentialModelVersusKfake(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against kfake skipped in -short mode")
	}
	cluster := kfakeCluster(t)
	if f := flag.Lookup("rapid.checks"); f != nil && !flagWasSet("rapid.checks") {
		if err := f.Value.Set(fmt.Sprint(*differentialSequences)); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		n := sequenceCounter.Add(1)
		k, err := NewKafka(cluster.ListenAddrs(), KafkaOptions{ReplicationFactor: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		w := &diffWorld{
			prefix: fmt.Sprintf("seq%06d", n),
			model:  &pair{sub: NewSeededModel(uint64(n)), incs: make(map[TopicID]int)},
			kafka:  &pair{sub: k, incs: make(map[TopicID]int)},
		}
		w.names = []string{w.prefix + "-a", w.prefix + "-b"}
		w.groups = []string{w.prefix + "-g0", w.prefix + "-g1"}
		actions := w.actions()
		// Start from a populated world so most generated operations are valid ones: both
		// topics exist, one transactional producer exists and has begun.
		actions["create"](t)
		actions["create"](t)
		actions["initTxn"](t)
		actions["begin"](t)
		// Weight the operations that interact (transactions against reads) by listing them
		// more than once: rapid picks action names uniformly.
		for _, name := range []string{"produceTx", "produceTx", "begin", "fetch", "fetch", "listOffsets", "produce", "commit"} {
			actions[name+"+"+fmt.Sprint(len(actions))] = actions[name]
		}
		t.Repeat(actions)
	})
}

func flagWasSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

package comparison

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/substrate"
	"github.com/twmb/franz-go/pkg/kfake"
)

// comparisonOps is how many operations the seeded sequences of the comparison tests run.
const comparisonOps = 6000

// seededOps drives a substrate.Substrate with a seeded sequence of every kind of operation, valid and
// not, the way a run would: names from a small set, the topic IDs and producer handles the
// substrate returned, a virtual clock that only moves forward, timestamps to the microsecond.
type seededOps struct {
	rng     *rand.Rand
	sub     substrate.Substrate
	names   []string
	groups  []string
	ids     []substrate.TopicID // every incarnation, in creation order
	live    map[string]liveTopic
	handles []substrate.TxnProducer
	clock   int64
	calls   int // calls made on sub so far
	// what the sequence did, so a test can check that it exercised something
	produced, fetched, committed, recreated, trimmed int
}

// liveTopic is a name's incarnation as the sequence last made it.
type liveTopic struct {
	id    substrate.TopicID
	parts int
}

func newSeededOps(seed uint64, sub substrate.Substrate) *seededOps {
	return &seededOps{rng: rand.New(rand.NewPCG(seed, 0)), sub: sub,
		names: []string{"a", "b", "c"}, groups: []string{"g0", "g1"}, live: make(map[string]liveTopic)}
}

func (s *seededOps) name() string { return s.names[s.rng.IntN(len(s.names))] }

// tp picks mostly a partition of a live topic, sometimes any partition of any incarnation.
func (s *seededOps) tp() substrate.TopicPartition {
	if len(s.ids) == 0 {
		return substrate.TopicPartition{}
	}
	if name := s.name(); s.rng.IntN(8) != 0 && s.live[name].parts > 0 {
		return substrate.TopicPartition{Topic: s.live[name].id, Partition: substrate.Partition(s.rng.IntN(s.live[name].parts))}
	}
	return substrate.TopicPartition{Topic: s.ids[s.rng.IntN(len(s.ids))], Partition: substrate.Partition(s.rng.IntN(3))}
}

func (s *seededOps) handle() substrate.TxnProducer {
	if len(s.handles) == 0 {
		return substrate.TxnProducer{}
	}
	return s.handles[len(s.handles)-1-min(s.rng.IntN(len(s.handles)), s.rng.IntN(3))]
}

func (s *seededOps) record() substrate.Record {
	bs := func() []byte {
		if s.rng.IntN(4) == 0 {
			return nil
		}
		return []byte(fmt.Sprint(s.rng.IntN(100)))
	}
	rec := substrate.Record{Key: bs(), Value: bs(), TimestampMicros: s.clock - s.rng.Int64N(1_000_000)}
	for i := range s.rng.IntN(3) {
		rec.Headers = append(rec.Headers, substrate.Header{Key: fmt.Sprintf("h%d", i), Value: bs()})
	}
	return rec
}

func (s *seededOps) offsets() []substrate.GroupOffset {
	var out []substrate.GroupOffset
	for range s.rng.IntN(3) {
		out = append(out, substrate.GroupOffset{TopicPartition: s.tp(), Offset: substrate.Offset(s.rng.IntN(8))})
	}
	return out
}

// from picks an offset around tp's watermarks.
func (s *seededOps) from(tp substrate.TopicPartition) substrate.Offset {
	o, err := s.sub.ListOffsets(tp)
	s.calls++
	if err != nil {
		return substrate.Offset(s.rng.IntN(3))
	}
	if o.LogStart > 0 {
		s.trimmed++
	}
	if s.rng.IntN(8) == 0 { // just out of range
		return []substrate.Offset{o.LogStart - 1, o.HighWatermark + 1}[s.rng.IntN(2)]
	}
	return o.LogStart + substrate.Offset(s.rng.Int64N(int64(o.HighWatermark-o.LogStart)+1))
}

// step runs one operation.
func (s *seededOps) step() {
	s.calls++
	switch op := s.rng.IntN(100); {
	case op < 4:
		name, parts := s.name(), 1+s.rng.IntN(3)
		if id, err := s.sub.CreateTopic(name, parts); err == nil {
			s.ids = append(s.ids, id)
			s.live[name] = liveTopic{id, parts}
		}
	case op < 6:
		name := s.name()
		if id, err := s.sub.RecreateTopic(name); err == nil {
			s.ids = append(s.ids, id)
			s.live[name] = liveTopic{id, s.live[name].parts}
			s.recreated++
		}
	case op < 7:
		name := s.name()
		if s.sub.DeleteTopic(name) == nil {
			delete(s.live, name)
		}
	case op < 9:
		_, _, _ = s.sub.LookupTopic(s.name())
	case op < 11:
		_, _ = s.sub.DescribeTopic(s.tp().Topic)
	case op < 12:
		_ = s.sub.Topics()
	case op < 30:
		mode := []substrate.ProduceMode{substrate.ProducePlain, substrate.ProduceIdempotent}[s.rng.IntN(2)]
		if _, err := s.sub.Produce(s.tp(), s.record(), mode); err == nil {
			s.produced++
		}
	case op < 33:
		if p, err := s.sub.InitTransactions(fmt.Sprintf("tx%d", s.rng.IntN(2))); err == nil {
			s.handles = append(s.handles, p)
		}
	case op < 38:
		_ = s.sub.BeginTransaction(s.handle())
	case op < 50:
		if _, err := s.sub.ProduceTx(s.handle(), s.tp(), s.record()); err == nil {
			s.produced++
		}
	case op < 53:
		_ = s.sub.SendOffsetsToTransaction(s.handle(), s.groups[s.rng.IntN(2)], s.offsets())
	case op < 58:
		if s.sub.CommitTransaction(s.handle()) == nil {
			s.committed++
		}
	case op < 60:
		_ = s.sub.AbortTransaction(s.handle())
	case op < 75:
		tp := s.tp()
		recs, _, _ := s.sub.Fetch(tp, s.from(tp), s.rng.IntN(6))
		s.fetched += len(recs)
	case op < 80:
		_, _ = s.sub.ListOffsets(s.tp())
	case op < 82:
		tp := s.tp()
		_ = s.sub.DeleteRecords(tp, s.from(tp))
	case op < 84:
		policy := substrate.RetentionPolicy{
			TimeMicros: []int64{0, 2_000_000, 10_000_000}[s.rng.IntN(3)],
			MaxOffsets: []int64{0, 0, 3, 8}[s.rng.IntN(4)],
		}
		_ = s.sub.SetRetention(s.name(), policy)
	case op < 92:
		s.clock += s.rng.Int64N(1_500_000)
		_ = s.sub.AdvanceClock(s.clock)
	case op < 96:
		_ = s.sub.CommitOffsets(s.groups[s.rng.IntN(2)], s.offsets())
	default:
		_, _ = s.sub.CommittedOffsets(s.groups[s.rng.IntN(2)])
	}
}

// run runs n operations, stopping early once c (if set) has diverged.
func (s *seededOps) run(n int, c *Substrate) {
	for range n {
		if c != nil && c.Divergence() != nil {
			return
		}
		s.step()
	}
}

func TestComparisonAgreesOverKfake(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	k := liveKafka(t, "comparison-agrees-")
	c := New(k, substrate.SeededTopicIDs(3))
	ops := newSeededOps(11, c)
	ops.run(comparisonOps, nil)
	if d := c.Divergence(); d != nil {
		t.Fatalf("after %d operations: %s", ops.calls, d)
	}
	for _, name := range ops.names { // the model uses the live topic IDs
		idM, _, errM := c.model.LookupTopic(name)
		idL, _, errL := k.LookupTopic(name)
		if idM != idL || substrate.ErrorClass(errM) != substrate.ErrorClass(errL) {
			t.Fatalf("topic %q: model %s (%v), live %s (%v)", name, idM, errM, idL, errL)
		}
	}
	t.Logf("%d records produced, %d fetched, %d commits, %d recreations, %d reads past a raised log start", ops.produced, ops.fetched, ops.committed, ops.recreated, ops.trimmed)
	if ops.produced < 600 || ops.fetched < 300 || ops.committed < 30 || ops.recreated < 40 || ops.trimmed < 50 {
		t.Fatalf("the sequence exercised too little: %d records produced, %d fetched, %d commits, "+
			"%d recreations, %d reads past a raised log start", ops.produced, ops.fetched, ops.committed,
			ops.recreated, ops.trimmed)
	}
}

// plantedFault wraps a live substrate and corrupts one answer: the n-th successful call of
// method (one that returned records, for a fetch), noting the comparison's call number.
type plantedFault struct {
	substrate.Substrate
	c         *Substrate
	method    string
	n         int
	seen      int
	plantedAt int
}

func (p *plantedFault) hit(method string) bool {
	if method != p.method {
		return false
	}
	p.seen++
	if p.seen != p.n {
		return false
	}
	p.plantedAt = p.c.calls
	return true
}

func (p *plantedFault) Produce(tp substrate.TopicPartition, rec substrate.Record, mode substrate.ProduceMode) (substrate.Offset, error) {
	o, err := p.Substrate.Produce(tp, rec, mode)
	if err == nil && p.hit("Produce") {
		o++
	}
	return o, err
}

func (p *plantedFault) Fetch(tp substrate.TopicPartition, from substrate.Offset, maxRecords int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	return p.FetchInto(nil, tp, from, maxRecords)
}

func (p *plantedFault) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, maxRecords int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	n := len(dst)
	out, next, err := p.Substrate.FetchInto(dst, tp, from, maxRecords)
	if len(out) > n && p.hit("FetchInto") {
		out[n].Headers = append(out[n].Headers, substrate.Header{Key: "planted"})
	}
	return out, next, err
}

func (p *plantedFault) ListOffsets(tp substrate.TopicPartition) (substrate.Offsets, error) {
	o, err := p.Substrate.ListOffsets(tp)
	if err == nil && p.hit("ListOffsets") {
		return substrate.Offsets{}, fmt.Errorf("%w: planted", substrate.ErrUnknownTopic)
	}
	return o, err
}

// TestComparisonReportsPlantedDifference plants one wrong answer in the live substrate (a wrong
// offset, a record with an extra header, an error) on the n-th call of a method, and checks that
// the comparison reports exactly that call, with both results, and nothing before it.
func TestComparisonReportsPlantedDifference(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	for i, plant := range []struct {
		method     string
		n          int
		model, liv string // substrings of the two results
	}{
		{"Produce", 40, ", ok", ", ok"},
		{"FetchInto", 15, "ts ", `header "planted"=null`},
		{"ListOffsets", 60, "HighWatermark", "error: substrate: unknown topic: planted"},
	} {
		t.Run(plant.method, func(t *testing.T) {
			k := liveKafka(t, fmt.Sprintf("comparison-planted-%d-", i))
			live := &plantedFault{Substrate: k, method: plant.method, n: plant.n}
			c := New(live, substrate.SeededTopicIDs(3))
			live.c = c
			ops := newSeededOps(11, c)
			ops.run(comparisonOps, c)
			d := c.Divergence()
			if d == nil {
				t.Fatalf("no divergence reported after %d calls (%d calls of %s)", ops.calls, live.seen, plant.method)
			}
			if d.Call != live.plantedAt || d.Method != plant.method || !strings.Contains(d.Model, plant.model) ||
				!strings.Contains(d.Live, plant.liv) || d.Model == d.Live {
				t.Fatalf("reported %s; the planted fault was at call %d", d, live.plantedAt)
			}
			t.Log(d)
			// From then on the comparison answers with the model alone.
			before := live.seen
			ops.run(200, nil)
			if live.seen != before || c.Divergence() != d {
				t.Fatalf("the live substrate was still called after the divergence")
			}
		})
	}
}

func TestDivergenceNamesTheCall(t *testing.T) {
	tp := substrate.TopicPartition{Topic: substrate.TopicID{1}, Partition: 2}
	d := &Divergence{Call: 7, Method: "Produce", Args: showArgs(tp, substrate.Record{Key: []byte("k"), TimestampMicros: 1500}, substrate.ProducePlain)(),
		Model: showResult(nil, substrate.Offset(3)), Live: showResult(errors.New("boom"))}
	want := `call 7, Produce(01000000-0000-0000-0000-000000000000/2, {key "k" value null ts 1500us}, 1): model 3, ok; live error: boom`
	if d.String() != want {
		t.Fatalf("got  %s\nwant %s", d, want)
	}
}

// liveKafka connects an adapter with its own topic prefix to an embedded kfake cluster of the
// test's own.
func liveKafka(t *testing.T, prefix string) *substrate.Kafka {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	k, err := substrate.NewKafka(cluster.ListenAddrs(), substrate.KafkaOptions{ReplicationFactor: 1, TopicPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

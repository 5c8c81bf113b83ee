package substrate

import (
	"bytes"
	"errors"
	"testing"
)

func mustCreate(t *testing.T, m *Model, name string, partitions int) TopicID {
	t.Helper()
	id, err := m.CreateTopic(name, partitions)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustInit(t *testing.T, m *Model, txnID string) TxnProducer {
	t.Helper()
	p, err := m.InitTransactions(txnID)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.BeginTransaction(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func offsetsOf(recs []FetchedRecord) []Offset {
	var out []Offset
	for _, r := range recs {
		out = append(out, r.Offset)
	}
	return out
}

func equalOffsets(a, b []Offset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestModelMarkersAbortedAndLSO walks interleaved transactions and checks, after every step, the
// three watermarks and what a read_committed fetch from 0 serves.
func TestModelMarkersAbortedAndLSO(t *testing.T) {
	m := NewSeededModel(1)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	var a, b TxnProducer
	steps := []struct {
		name    string
		do      func() error
		want    Offsets
		visible []Offset
		next    Offset
	}{
		{"plain record at 0", func() error { _, err := m.Produce(tp, Record{}, ProducePlain); return err },
			Offsets{0, 1, 1}, []Offset{0}, 1},
		{"txn A writes 1", func() error { a = mustInit(t, m, "a"); _, err := m.ProduceTx(a, tp, Record{}); return err },
			Offsets{0, 1, 2}, []Offset{0}, 1},
		{"txn B writes 2", func() error { b = mustInit(t, m, "b"); _, err := m.ProduceTx(b, tp, Record{}); return err },
			Offsets{0, 1, 3}, []Offset{0}, 1},
		{"B commits: marker 3, LSO still held by A", func() error { return m.CommitTransaction(b) },
			Offsets{0, 1, 4}, []Offset{0}, 1},
		{"A writes 4", func() error { _, err := m.ProduceTx(a, tp, Record{}); return err },
			Offsets{0, 1, 5}, []Offset{0}, 1},
		{"A aborts: marker 5, LSO = HW", func() error { return m.AbortTransaction(a) },
			Offsets{0, 6, 6}, []Offset{0, 2}, 6},
		{"plain record at 6", func() error { _, err := m.Produce(tp, Record{}, ProduceIdempotent); return err },
			Offsets{0, 7, 7}, []Offset{0, 2, 6}, 7},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got, err := m.ListOffsets(tp)
		if err != nil || got != s.want {
			t.Fatalf("%s: offsets %+v (%v), want %+v", s.name, got, err, s.want)
		}
		recs, next, err := m.Fetch(tp, 0, 0)
		if err != nil || !equalOffsets(offsetsOf(recs), s.visible) || next != s.next {
			t.Fatalf("%s: fetch %v next %d (%v), want %v next %d", s.name, offsetsOf(recs), next, err, s.visible, s.next)
		}
	}
	// maxRecords stops early and next points just past the last record served.
	if recs, next, _ := m.Fetch(tp, 1, 1); !equalOffsets(offsetsOf(recs), []Offset{2}) || next != 3 {
		t.Fatalf("fetch from 1 max 1: %v next %d", offsetsOf(recs), next)
	}
}

func TestModelFencing(t *testing.T) {
	m := NewSeededModel(1)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	zombie := mustInit(t, m, "x")
	if _, err := m.ProduceTx(zombie, tp, Record{}); err != nil {
		t.Fatal(err)
	}
	current, err := m.InitTransactions("x")
	if err != nil || current.Epoch != zombie.Epoch+1 {
		t.Fatalf("re-init: %+v %v", current, err)
	}
	// Re-init aborted the zombie's transaction: record 0 aborted, marker 1.
	if o, _ := m.ListOffsets(tp); o != (Offsets{0, 2, 2}) {
		t.Fatalf("offsets after re-init %+v", o)
	}
	for name, call := range map[string]func() error{
		"commit": func() error { return m.CommitTransaction(zombie) },
		"abort":  func() error { return m.AbortTransaction(zombie) },
		"begin":  func() error { return m.BeginTransaction(zombie) },
		"produce": func() error {
			_, err := m.ProduceTx(zombie, tp, Record{})
			return err
		},
		"offsets": func() error { return m.SendOffsetsToTransaction(zombie, "g", []GroupOffset{{tp, 1}}) },
	} {
		if err := call(); !errors.Is(err, ErrFenced) {
			t.Errorf("zombie %s: %v, want ErrFenced", name, err)
		}
	}
	if err := m.CommitTransaction(current); !errors.Is(err, ErrTxnState) {
		t.Errorf("commit without begin: %v, want ErrTxnState", err)
	}
	if recs, _, _ := m.Fetch(tp, 0, 0); len(recs) != 0 {
		t.Errorf("zombie's records visible: %v", offsetsOf(recs))
	}
}

func TestModelFetchRange(t *testing.T) {
	m := NewSeededModel(1)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	for range 5 {
		if _, err := m.Produce(tp, Record{}, ProducePlain); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.DeleteRecords(tp, 3); err != nil {
		t.Fatal(err)
	}
	if err := m.DeleteRecords(tp, 1); err != nil { // below log start: no-op, as in Kafka
		t.Fatal(err)
	}
	for _, c := range []struct {
		from Offset
		err  error
	}{{2, ErrOffsetOutOfRange}, {3, nil}, {5, nil}, {6, ErrOffsetOutOfRange}} {
		_, _, err := m.Fetch(tp, c.from, 0)
		if !errors.Is(err, c.err) && !(err == nil && c.err == nil) {
			t.Errorf("fetch from %d: %v, want %v", c.from, err, c.err)
		}
	}
	if err := m.DeleteRecords(tp, 6); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("delete beyond HW: %v", err)
	}
	if _, err := m.Produce(TopicPartition{tp.Topic, 1}, Record{}, ProducePlain); !errors.Is(err, ErrUnknownPartition) {
		t.Errorf("produce to partition 1 of 1: %v", err)
	}
}

func TestModelRetention(t *testing.T) {
	m := NewSeededModel(1)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	for _, ts := range []int64{100, 200, 300, 400} {
		if _, err := m.Produce(tp, Record{TimestampMicros: ts}, ProducePlain); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.SetRetention("t", RetentionPolicy{TimeMicros: 150}); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceClock(400); err != nil { // cutoff 250: offsets 0 and 1 expire
		t.Fatal(err)
	}
	if o, _ := m.ListOffsets(tp); o.LogStart != 2 {
		t.Fatalf("time retention: log start %d, want 2", o.LogStart)
	}
	if err := m.SetRetention("t", RetentionPolicy{MaxOffsets: 1}); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceClock(400); err != nil {
		t.Fatal(err)
	}
	if o, _ := m.ListOffsets(tp); o.LogStart != 3 {
		t.Fatalf("size retention: log start %d, want 3", o.LogStart)
	}
	if _, _, err := m.Fetch(tp, 2, 0); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Fatalf("fetch below retained start: %v", err)
	}
}

func TestModelRecreateAndDescribe(t *testing.T) {
	m := NewSeededModel(1)
	old := mustCreate(t, m, "t", 2)
	if _, err := m.Produce(TopicPartition{old, 1}, Record{}, ProducePlain); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTopic("t", 1); !errors.Is(err, ErrTopicExists) {
		t.Fatalf("create existing: %v", err)
	}
	cur, err := m.RecreateTopic("t")
	if err != nil || cur == old || cur.IsZero() {
		t.Fatalf("recreate: %s %v", cur, err)
	}
	if d, _ := m.DescribeTopic(old); d.State != TopicRecreated || d.CurrentID != cur {
		t.Fatalf("old after recreate: %+v", d)
	}
	if o, _ := m.ListOffsets(TopicPartition{cur, 1}); o != (Offsets{}) {
		t.Fatalf("new incarnation offsets %+v, want zeros", o)
	}
	if _, _, err := m.Fetch(TopicPartition{old, 1}, 0, 0); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("fetch old ID: %v", err)
	}
	if err := m.DeleteTopic("t"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []TopicID{old, cur} {
		if d, _ := m.DescribeTopic(id); d.State != TopicDeleted || !d.CurrentID.IsZero() {
			t.Fatalf("after delete: %+v", d)
		}
	}
	if _, err := m.DescribeTopic(TopicID{1}); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("describe never-issued ID: %v", err)
	}
	// A deleted name is unbound everywhere (the model keeps its stale name entry internally).
	if _, _, err := m.LookupTopic("t"); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("lookup deleted name: %v", err)
	}
	if err := m.DeleteTopic("t"); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("delete deleted name: %v", err)
	}
	if err := m.SetRetention("t", RetentionPolicy{MaxOffsets: 1}); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("retention on deleted name: %v", err)
	}
	if _, err := m.RecreateTopic("t"); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("recreate deleted name: %v", err)
	}
	if ts := m.Topics(); len(ts) != 0 {
		t.Fatalf("topics after delete: %+v", ts)
	}
	again := mustCreate(t, m, "t", 1)
	if d, _ := m.DescribeTopic(cur); d.State != TopicRecreated || d.CurrentID != again {
		t.Fatalf("deleted incarnation after the name is created again: %+v", d)
	}
	if ts := m.Topics(); len(ts) != 1 || ts[0].ID != again {
		t.Fatalf("topics after create again: %+v", ts)
	}
}

// TestModelManyTopics resolves IDs in a model with more incarnations than topicIndex scans, so
// the ID map is used, and agrees with the scan on a small one.
func TestModelManyTopics(t *testing.T) {
	m := NewSeededModel(1)
	var ids []TopicID
	for i := range topicScanMax + 3 {
		ids = append(ids, mustCreate(t, m, "t"+itoa(i), 1))
		if _, err := m.Produce(TopicPartition{ids[i], 0}, Record{}, ProducePlain); err != nil {
			t.Fatalf("produce to topic %d of %d: %v", i, len(ids), err)
		}
	}
	if err := m.DeleteTopic("t2"); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		o, err := m.ListOffsets(TopicPartition{id, 0})
		if i == 2 {
			if !errors.Is(err, ErrUnknownTopic) {
				t.Fatalf("list offsets of deleted topic: %v", err)
			}
			continue
		}
		if err != nil || o.HighWatermark != 1 {
			t.Fatalf("topic %d: offsets %+v, %v", i, o, err)
		}
		if n, ok := m.incarnation(id); !ok || n != i {
			t.Fatalf("incarnation of topic %d: %d %v", i, n, ok)
		}
	}
}

func TestModelGroupOffsetsAtomicWithTransaction(t *testing.T) {
	m := NewSeededModel(1)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	p := mustInit(t, m, "x")
	if err := m.SendOffsetsToTransaction(p, "g", []GroupOffset{{tp, 7}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.CommittedOffsets("g"); len(got) != 0 {
		t.Fatalf("staged offsets visible before commit: %+v", got)
	}
	if err := m.AbortTransaction(p); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.CommittedOffsets("g"); len(got) != 0 {
		t.Fatalf("aborted offsets visible: %+v", got)
	}
	if err := m.BeginTransaction(p); err != nil {
		t.Fatal(err)
	}
	if err := m.SendOffsetsToTransaction(p, "g", []GroupOffset{{tp, 9}}); err != nil {
		t.Fatal(err)
	}
	if err := m.CommitTransaction(p); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.CommittedOffsets("g"); len(got) != 1 || got[0].Offset != 9 {
		t.Fatalf("committed offsets %+v, want offset 9", got)
	}
}

func TestModelTopicIDsNeverZeroNorReused(t *testing.T) {
	draws := []TopicID{{}, {1}, {1}, {}, {2}}
	m := NewModel(func() TopicID { id := draws[0]; draws = draws[1:]; return id })
	a := mustCreate(t, m, "a", 1)
	b := mustCreate(t, m, "b", 1)
	if a != (TopicID{1}) || b != (TopicID{2}) {
		t.Fatalf("ids %s %s, want 01.. and 02..", a, b)
	}
	if got := (TopicID{0xab, 1}).String(); got != "ab010000-0000-0000-0000-000000000000" {
		t.Fatalf("String() = %s", got)
	}
}

func TestModelCloneAndCanonical(t *testing.T) {
	m := NewSeededModel(7)
	tp := TopicPartition{mustCreate(t, m, "t", 1), 0}
	p := mustInit(t, m, "x")
	if _, err := m.ProduceTx(p, tp, Record{Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	if !bytes.Equal(m.appendCanonical(nil), c.appendCanonical(nil)) {
		t.Fatal("clone encodes differently")
	}
	if err := c.CommitTransaction(p); err != nil { // handles stay valid on the clone
		t.Fatal(err)
	}
	if bytes.Equal(m.appendCanonical(nil), c.appendCanonical(nil)) {
		t.Fatal("commit on the clone did not change its encoding")
	}
	if o, _ := m.ListOffsets(tp); o != (Offsets{0, 0, 1}) {
		t.Fatalf("original changed by clone's commit: %+v", o)
	}
	// A seeded clone issues the IDs its original would.
	idM, _ := m.CreateTopic("u", 1)
	idC, _ := c.CreateTopic("u", 1)
	if idM != idC {
		t.Fatalf("clone ID stream diverged: %s vs %s", idM, idC)
	}
	// Same history, different ID values: equal encodings.
	a, b := NewSeededModel(1), NewSeededModel(2)
	for _, x := range []*Model{a, b} {
		id := mustCreate(t, x, "t", 1)
		if _, err := x.Produce(TopicPartition{id, 0}, Record{Key: []byte{}}, ProducePlain); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.appendCanonical(nil), b.appendCanonical(nil)) {
		t.Fatal("canonical encoding depends on topic ID values")
	}
}

// TestModelManyGroups commits offsets for more groups than searchGroup scans, in an order that
// inserts at the front, middle and back, and reads every group back.
func TestModelManyGroups(t *testing.T) {
	m := NewSeededModel(1)
	id := mustCreate(t, m, "t", 1)
	order := []int{5, 0, 11, 3, 8, 1, 10, 2, 9, 4, 7, 6}
	for _, g := range order {
		if err := m.CommitOffsets("g"+itoa(g), []GroupOffset{{TopicPartition{id, 0}, Offset(g)}}); err != nil {
			t.Fatal(err)
		}
	}
	for g := range order {
		offs, err := m.CommittedOffsets("g" + itoa(g))
		if err != nil || len(offs) != 1 || offs[0].Offset != Offset(g) {
			t.Fatalf("group g%d: %+v, %v", g, offs, err)
		}
	}
	if offs, _ := m.CommittedOffsets("g12"); offs != nil {
		t.Fatalf("unknown group has offsets %+v", offs)
	}
}

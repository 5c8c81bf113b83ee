package substrate

import (
	"bytes"
	"testing"
)

// TestModelCloneIsCopyOnWrite checks that a clone and its original share nothing a change can
// reach: every kind of change applied to one side (produce, transactions, group offsets,
// deletion, recreation, record deletion, retention) leaves the other side's encoding as it was,
// and the two sides, given the same changes, encode alike again.
func TestModelCloneIsCopyOnWrite(t *testing.T) {
	changes := []struct {
		name string
		do   func(t *testing.T, m *Model, p TxnProducer)
	}{
		{"produce", func(t *testing.T, m *Model, _ TxnProducer) { mustProduce(t, m, "a", Record{Value: []byte("x")}) }},
		{"produce-tx", func(t *testing.T, m *Model, p TxnProducer) {
			if _, err := m.ProduceTx(p, tpOf(t, m, "b"), Record{Value: []byte("y")}); err != nil {
				t.Fatal(err)
			}
		}},
		{"commit-tx", func(t *testing.T, m *Model, p TxnProducer) {
			if err := m.SendOffsetsToTransaction(p, "g", []GroupOffset{{tpOf(t, m, "a"), 1}}); err != nil {
				t.Fatal(err)
			}
			if err := m.CommitTransaction(p); err != nil {
				t.Fatal(err)
			}
		}},
		{"abort-tx", func(t *testing.T, m *Model, p TxnProducer) {
			if err := m.AbortTransaction(p); err != nil {
				t.Fatal(err)
			}
		}},
		{"init-tx", func(t *testing.T, m *Model, _ TxnProducer) { mustInit(t, m, "other") }},
		{"commit-offsets", func(t *testing.T, m *Model, _ TxnProducer) {
			if err := m.CommitOffsets("g", []GroupOffset{{tpOf(t, m, "a"), 2}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete-records", func(t *testing.T, m *Model, _ TxnProducer) {
			if err := m.DeleteRecords(tpOf(t, m, "a"), 1); err != nil {
				t.Fatal(err)
			}
		}},
		{"retention", func(t *testing.T, m *Model, _ TxnProducer) {
			if err := m.SetRetention("a", RetentionPolicy{MaxOffsets: 1}); err != nil {
				t.Fatal(err)
			}
			if err := m.AdvanceClock(10); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete-topic", func(t *testing.T, m *Model, _ TxnProducer) {
			if err := m.DeleteTopic("b"); err != nil {
				t.Fatal(err)
			}
		}},
		{"recreate-topic", func(t *testing.T, m *Model, _ TxnProducer) {
			if _, err := m.RecreateTopic("a"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			m := NewSeededModel(3)
			mustCreate(t, m, "a", 1)
			mustCreate(t, m, "b", 2)
			p := mustInit(t, m, "x") // and begins a transaction
			mustProduce(t, m, "a", Record{Value: []byte("v")})
			mustProduce(t, m, "a", Record{Value: []byte("w")})
			if _, err := m.ProduceTx(p, tpOf(t, m, "a"), Record{Value: []byte("t")}); err != nil {
				t.Fatal(err)
			}
			if err := m.CommitOffsets("g", []GroupOffset{{tpOf(t, m, "a"), 1}}); err != nil {
				t.Fatal(err)
			}
			c := m.Clone()
			before := m.appendCanonical(nil)
			ch.do(t, c, p)
			changed := c.appendCanonical(nil)
			if bytes.Equal(before, changed) {
				t.Fatal("the change did not change the clone's encoding")
			}
			if !bytes.Equal(before, m.appendCanonical(nil)) {
				t.Fatal("a change to the clone changed the original")
			}
			ch.do(t, m, p)
			if !bytes.Equal(changed, m.appendCanonical(nil)) {
				t.Fatal("the same change on the original encodes differently")
			}
			// The original changes again (a write to a log, a transaction end, a group offset):
			// the clone must not see it.
			mustProduce(t, m, "a", Record{Value: []byte("z")})
			if err := m.CommitOffsets("g", []GroupOffset{{tpOf(t, m, "a"), 0}}); err != nil {
				t.Fatal(err)
			}
			if _, err := m.InitTransactions("x"); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(changed, c.appendCanonical(nil)) {
				t.Fatal("a change to the original changed the clone")
			}
		})
	}
}

// mustProduce produces rec to partition 0 of the live topic name.
func mustProduce(t *testing.T, m *Model, name string, rec Record) {
	t.Helper()
	if _, err := m.Produce(tpOf(t, m, name), rec, ProducePlain); err != nil {
		t.Fatal(err)
	}
}

// tpOf returns partition 0 of the live topic name.
func tpOf(t *testing.T, m *Model, name string) TopicPartition {
	t.Helper()
	id, _, err := m.LookupTopic(name)
	if err != nil {
		t.Fatal(err)
	}
	return TopicPartition{Topic: id, Partition: 0}
}

// TestRaisingLogStartOfSharedLog deletes records from, and applies retention to, a clone whose
// log is shared with its original, far enough for the dead prefix to be trimmed: the clone must
// not copy the records or write the shared log, the original must encode and fetch as before,
// and both must go on producing independently.
func TestRaisingLogStartOfSharedLog(t *testing.T) {
	for _, how := range []string{"delete-records", "retention"} {
		t.Run(how, func(t *testing.T) {
			m := NewSeededModel(4)
			mustCreate(t, m, "a", 1)
			for i := range 200 {
				mustProduce(t, m, "a", Record{Value: []byte{byte(i)}, TimestampMicros: int64(i)})
			}
			before := m.appendCanonical(nil)
			c := m.Clone()
			if how == "delete-records" {
				if err := c.DeleteRecords(tpOf(t, c, "a"), 150); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := c.SetRetention("a", RetentionPolicy{MaxOffsets: 50}); err != nil {
					t.Fatal(err)
				}
				if err := c.AdvanceClock(1000); err != nil {
					t.Fatal(err)
				}
			}
			cp, mp := &c.topics[0].partitions[0], &m.topics[0].partitions[0]
			if cp.logStart != 150 || &cp.entries[0] != &mp.entries[150] {
				t.Fatalf("clone's log starts at %d, base %d: want 150, sharing the original's records", cp.logStart, cp.base)
			}
			if !bytes.Equal(before, m.appendCanonical(nil)) {
				t.Fatal("raising the clone's log start changed the original")
			}
			mustProduce(t, c, "a", Record{Value: []byte("c")})
			mustProduce(t, m, "a", Record{Value: []byte("m")})
			recs, _, err := c.Fetch(tpOf(t, c, "a"), 150, 0)
			if err != nil || len(recs) != 51 || recs[0].Value[0] != 150 || string(recs[50].Value) != "c" {
				t.Fatalf("clone fetched %d records, %v", len(recs), err)
			}
			recs, _, err = m.Fetch(tpOf(t, m, "a"), 0, 0)
			if err != nil || len(recs) != 201 || recs[149].Value[0] != 149 || string(recs[200].Value) != "m" {
				t.Fatalf("original fetched %d records, %v", len(recs), err)
			}
		})
	}
}

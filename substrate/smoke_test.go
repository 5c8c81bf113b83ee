package substrate

import (
	"errors"
	"testing"
)

// TestSubstrateSmoke runs one short script against both implementations and checks the
// contract's basic promises directly.
func TestSubstrateSmoke(t *testing.T) {
	k, err := NewKfake()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, s := range []struct {
		name string
		sub  Substrate
	}{{"model", NewSeededModel(1)}, {"kfake", k}} {
		t.Run(s.name, func(t *testing.T) {
			sub := s.sub
			id, err := sub.CreateTopic("smoke", 2)
			if err != nil {
				t.Fatal(err)
			}
			tp := TopicPartition{id, 0}
			o, err := sub.Produce(tp, Record{Key: []byte("k"), Value: []byte("v"), Headers: []Header{{"h", nil}, {"e", []byte{}}}, TimestampMicros: 5000}, ProducePlain)
			if err != nil || o != 0 {
				t.Fatalf("produce: %d %v", o, err)
			}
			p, err := sub.InitTransactions("tx")
			if err != nil {
				t.Fatal(err)
			}
			if err := sub.BeginTransaction(p); err != nil {
				t.Fatal(err)
			}
			if o, err := sub.ProduceTx(p, tp, Record{Value: []byte("t1")}); err != nil || o != 1 {
				t.Fatalf("produce tx: %d %v", o, err)
			}
			if err := sub.SendOffsetsToTransaction(p, "g", []GroupOffset{{tp, 1}}); err != nil {
				t.Fatal(err)
			}
			offs, err := sub.ListOffsets(tp)
			if err != nil || offs != (Offsets{0, 1, 2}) {
				t.Fatalf("offsets %+v %v", offs, err)
			}
			if err := sub.CommitTransaction(p); err != nil {
				t.Fatal(err)
			}
			recs, next, err := sub.Fetch(tp, 0, 0)
			if err != nil || len(recs) != 2 || next != 3 {
				t.Fatalf("fetch: %+v %d %v", recs, next, err)
			}
			if recs[0].Headers[0].Value != nil || recs[0].Headers[1].Value == nil || recs[0].TimestampMicros != 5000 {
				t.Fatalf("headers/timestamp not preserved: %+v", recs[0])
			}
			g, err := sub.CommittedOffsets("g")
			if err != nil || len(g) != 1 || g[0].Offset != 1 {
				t.Fatalf("group offsets %+v %v", g, err)
			}
			p2, err := sub.InitTransactions("tx")
			if err != nil {
				t.Fatal(err)
			}
			if err := sub.BeginTransaction(p2); err != nil {
				t.Fatal(err)
			}
			if _, err := sub.ProduceTx(p2, tp, Record{Value: []byte("t2")}); err != nil {
				t.Fatal(err)
			}
			if err := sub.CommitTransaction(p); !errors.Is(err, ErrFenced) {
				t.Fatalf("zombie commit: %v", err)
			}
			if err := sub.AbortTransaction(p2); err != nil {
				t.Fatal(err)
			}
			recs, next, err = sub.Fetch(tp, 3, 0)
			if err != nil || len(recs) != 0 || next != 5 {
				t.Fatalf("fetch after abort: %+v %d %v", recs, next, err)
			}
			id2, err := sub.RecreateTopic("smoke")
			if err != nil {
				t.Fatal(err)
			}
			if d, err := sub.DescribeTopic(id); err != nil || d.State != TopicRecreated || d.CurrentID != id2 {
				t.Fatalf("describe: %+v %v", d, err)
			}
			if _, _, err := sub.Fetch(tp, 0, 0); !errors.Is(err, ErrUnknownTopic) {
				t.Fatalf("fetch deleted: %v", err)
			}
			if g, err := sub.CommittedOffsets("g"); err != nil || len(g) != 0 {
				t.Fatalf("group offsets after recreate %+v %v", g, err)
			}
		})
	}
}

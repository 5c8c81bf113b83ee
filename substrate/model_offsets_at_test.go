package substrate

import (
	"errors"
	"testing"
)

// TestIncarnationOffsetsMatchesListOffsets holds IncarnationOffsets to ListOffsets of the
// incarnation's ID for every partition number (in range or not) of every incarnation (live,
// deleted, recreated), and checks it refuses numbers no incarnation has.
func TestIncarnationOffsetsMatchesListOffsets(t *testing.T) {
	m := NewModel(SeededTopicIDs(7))
	a := mustCreate(t, m, "a", 2)
	b := mustCreate(t, m, "b", 1)
	if _, err := m.Produce(TopicPartition{Topic: a, Partition: 1}, Record{Value: []byte("x")}, ProducePlain); err != nil {
		t.Fatal(err)
	}
	p, err := m.InitTransactions("t")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.BeginTransaction(p); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ProduceTx(p, TopicPartition{Topic: b}, Record{Value: []byte("y")}); err != nil {
		t.Fatal(err)
	}
	b2, err := m.RecreateTopic("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.ProduceTx(p, TopicPartition{Topic: b2}, Record{Value: []byte("z")}); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, id := range []TopicID{a, b, b2} {
		inc, ok := m.incarnation(id)
		if !ok {
			t.Fatalf("no incarnation for %s", id)
		}
		for part := Partition(-1); part <= 2; part++ {
			want, wantErr := m.ListOffsets(TopicPartition{Topic: id, Partition: part})
			got, gotErr := m.IncarnationOffsets(int32(inc), part)
			if got != want || (gotErr == nil) != (wantErr == nil) ||
				(gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("IncarnationOffsets(%d, %d) = %+v, %v; ListOffsets says %+v, %v", inc, part, got, gotErr, want, wantErr)
			}
			checked++
		}
	}
	if offs, err := m.IncarnationOffsets(2, 0); err != nil || offs != (Offsets{LogStart: 0, LastStable: 0, HighWatermark: 1}) {
		t.Fatalf("IncarnationOffsets of b2/0 = %+v, %v; want the open transaction's record holding the LSO at 0", offs, err)
	}
	if _, err := m.IncarnationOffsets(1, 0); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("IncarnationOffsets of deleted b = %v, want ErrUnknownTopic", err)
	}
	for _, inc := range []int32{-1, 3, 1 << 30} {
		if _, err := m.IncarnationOffsets(inc, 0); !errors.Is(err, ErrUnknownTopic) {
			t.Fatalf("IncarnationOffsets(%d, 0) = %v, want ErrUnknownTopic", inc, err)
		}
	}
	if checked != 12 {
		t.Fatalf("checked %d partitions, want 12", checked)
	}
}

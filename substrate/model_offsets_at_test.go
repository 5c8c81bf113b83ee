package substrate

import (
	"errors"
	"testing"
)

// TestListOffsetsAtMatchesListOffsets holds ListOffsetsAt to ListOffsets for every partition ID
// (live, deleted, recreated, out-of-range partition, never issued) under every incarnation
// number, right or wrong, including negative and past-the-end ones.
func TestListOffsetsAtMatchesListOffsets(t *testing.T) {
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
	ids := []TopicID{a, b, b2, {1}}
	checked := 0
	for _, id := range ids {
		for part := Partition(-1); part <= 2; part++ {
			tp := TopicPartition{Topic: id, Partition: part}
			want, wantErr := m.ListOffsets(tp)
			for inc := int32(-1); inc <= int32(len(m.topics)); inc++ {
				got, gotErr := m.ListOffsetsAt(inc, tp)
				if got != want || (gotErr == nil) != (wantErr == nil) ||
					(gotErr != nil && gotErr.Error() != wantErr.Error()) {
					t.Fatalf("ListOffsetsAt(%d, %v) = %+v, %v; ListOffsets says %+v, %v", inc, tp, got, gotErr, want, wantErr)
				}
				checked++
			}
		}
	}
	inc, _ := m.Incarnation(a)
	if offs, err := m.ListOffsetsAt(int32(inc), TopicPartition{Topic: a, Partition: 1}); err != nil || offs.HighWatermark != 1 {
		t.Fatalf("ListOffsetsAt of a/1 = %+v, %v; want high watermark 1", offs, err)
	}
	if _, err := m.ListOffsetsAt(1, TopicPartition{Topic: b}); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("ListOffsetsAt of deleted b = %v, want ErrUnknownTopic", err)
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

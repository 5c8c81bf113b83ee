package substrate

import (
	"fmt"
	"slices"
	"testing"
)

// TestTxnOffsetsStagedAcrossRecreation stages offsets in one transaction for a partition of a
// topic, deletes and recreates the topic, stages an offset for the new incarnation's partition of
// the same number and commits: Kafka keys pending offsets by name and partition, drops the dead
// incarnation's with the topic and commits the new one's, and the model and the kfake adapter
// must both say so. It failed (found by TestDifferentialModelVersusKfake with rapid seed
// 16449098941881609742) when the adapter, undoing what kfake applies for a deleted partition,
// deleted the offset the recreated topic's staging had just committed.
func TestTxnOffsetsStagedAcrossRecreation(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a kfake cluster")
	}
	k, err := NewKafka(kfakeCluster(t).ListenAddrs(), KafkaOptions{ReplicationFactor: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for _, s := range []Substrate{NewSeededModel(1), k} {
		got := stageAcrossRecreation(t, s)
		if want := []string{"a/1=2", "b#2/1=6"}; !slices.Equal(got, want) {
			t.Errorf("%T: committed %v, want %v", s, got, want)
		}
	}
}

// stageAcrossRecreation runs the test's sequence on s and returns the group's committed offsets
// as name#incarnation/partition=offset, sorted.
func stageAcrossRecreation(t *testing.T, s Substrate) []string {
	must := func(what string, err error) {
		if err != nil {
			t.Fatalf("%T %s: %v", s, what, err)
		}
	}
	a, err := s.CreateTopic("a", 3)
	must("create a", err)
	b, err := s.CreateTopic("b", 3)
	must("create b", err)
	h, err := s.InitTransactions("tx")
	must("init", err)
	must("begin", s.BeginTransaction(h))
	must("stage a and b", s.SendOffsetsToTransaction(h, "g", []GroupOffset{{TopicPartition{a, 1}, 2}, {TopicPartition{b, 1}, 0}}))
	must("delete b", s.DeleteTopic("b"))
	b2, err := s.CreateTopic("b", 2)
	must("create b again", err)
	must("stage b again", s.SendOffsetsToTransaction(h, "g", []GroupOffset{{TopicPartition{b2, 1}, 6}}))
	must("commit", s.CommitTransaction(h))
	offs, err := s.CommittedOffsets("g")
	must("committed offsets", err)
	names := map[TopicID]string{a: "a", b: "b#1", b2: "b#2"}
	var out []string
	for _, o := range offs {
		out = append(out, fmt.Sprintf("%s/%d=%d", names[o.Topic], o.Partition, o.Offset))
	}
	slices.Sort(out)
	return out
}

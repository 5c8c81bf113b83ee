package substrate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRecycledClonesMatchPlainClones walks a tree of models the way the simulator's explorer does:
// each child is a clone of its parent changed by one operation, cloned with CloneInto into a model
// released earlier (whose pool then recycles the slices its copies made), and released once its
// own subtree is done. Beside each child it builds the same child with a plain Clone and checks
// that both encode alike and answer alike, and that a parent encodes as it did before its children
// were made. It fails when a recycled slice is still read by a live model (a change in one model
// showing in another) or a reused one keeps stale content.
func TestRecycledClonesMatchPlainClones(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	root := NewSeededModel(5)
	mustCreate(t, root, "a", 1)
	mustCreate(t, root, "b", 2)
	p := mustInit(t, root, "x")
	var free []*Model
	nodes := 0
	var walk func(m *Model, p TxnProducer, depth int)
	walk = func(m *Model, p TxnProducer, depth int) {
		before := m.appendCanonical(nil)
		for range 3 {
			op := rng.IntN(len(poolOps))
			var recycled *Model
			if n := len(free); n > 0 {
				recycled, free = free[n-1], free[:n-1]
			}
			rc := m.CloneInto(recycled, SeededTopicIDs(uint64(nodes)+100))
			pc := m.CloneWithIDs(SeededTopicIDs(uint64(nodes) + 100))
			rp, pp := p, p
			rerr, perr := poolOps[op](rc, &rp), poolOps[op](pc, &pp)
			nodes++
			if rerr != perr || !bytes.Equal(rc.appendCanonical(nil), pc.appendCanonical(nil)) || rp != pp {
				t.Fatalf("node %d, op %d: recycled clone %q %x, plain clone %q %x", nodes, op, rerr,
					rc.appendCanonical(nil), perr, pc.appendCanonical(nil))
			}
			if depth < 6 {
				walk(rc, rp, depth+1)
			}
			free = append(free, rc)
		}
		if !bytes.Equal(before, m.appendCanonical(nil)) {
			t.Fatalf("depth %d: making children changed their parent", depth)
		}
	}
	walk(root, p, 0)
	if nodes < 1000 {
		t.Fatalf("only %d models made", nodes)
	}
}

// poolOps are the changes TestRecycledClonesMatchPlainClones applies: every kind of copy-on-write
// copy (incarnations, logs, partition slices, transactions and their lists, groups and their
// offsets), retention included.
var poolOps = []func(m *Model, p *TxnProducer) string{
	func(m *Model, _ *TxnProducer) string {
		return poolErr(m.Produce(poolTP(m, "a", 0), Record{Value: []byte("v")}, ProducePlain))
	},
	func(m *Model, _ *TxnProducer) string {
		return poolErr(m.Produce(poolTP(m, "b", 1), Record{Value: []byte("w")}, ProducePlain))
	},
	func(m *Model, p *TxnProducer) string {
		return poolErr(m.ProduceTx(*p, poolTP(m, "a", 0), Record{Value: []byte("t")}))
	},
	func(m *Model, p *TxnProducer) string {
		return poolErr(m.ProduceTx(*p, poolTP(m, "b", 0), Record{Value: []byte("u")}))
	},
	func(m *Model, p *TxnProducer) string {
		return poolErr(0, m.SendOffsetsToTransaction(*p, "g", []GroupOffset{{poolTP(m, "a", 0), 1}}))
	},
	func(m *Model, p *TxnProducer) string { return poolErr(0, m.CommitTransaction(*p)) },
	func(m *Model, p *TxnProducer) string { return poolErr(0, m.AbortTransaction(*p)) },
	func(m *Model, p *TxnProducer) string { return poolErr(0, m.BeginTransaction(*p)) },
	func(m *Model, p *TxnProducer) string {
		q, err := m.InitTransactions("x")
		if err == nil {
			*p = q
		}
		return poolErr(0, err)
	},
	func(m *Model, _ *TxnProducer) string {
		return poolErr(0, m.CommitOffsets("h", []GroupOffset{{poolTP(m, "b", 1), 1}}))
	},
	func(m *Model, _ *TxnProducer) string { return poolErr(0, m.DeleteRecords(poolTP(m, "a", 0), 1)) },
	func(m *Model, _ *TxnProducer) string {
		if err := m.SetRetention("b", RetentionPolicy{MaxOffsets: 1}); err != nil {
			return poolErr(0, err)
		}
		return poolErr(0, m.AdvanceClock(m.clockMicros+1))
	},
	func(m *Model, _ *TxnProducer) string { return poolErr(0, m.DeleteTopic("b")) },
	func(m *Model, _ *TxnProducer) string { _, err := m.RecreateTopic("a"); return poolErr(0, err) },
}

// poolTP returns partition part of the topic name's latest incarnation (live or not).
func poolTP(m *Model, name string, part Partition) TopicPartition {
	id, _, err := m.LookupTopic(name)
	if err != nil {
		return TopicPartition{Topic: TopicID{9}, Partition: part}
	}
	return TopicPartition{Topic: id, Partition: part}
}

// poolErr renders an operation's error (its result aside) for comparison.
func poolErr[T any](_ T, err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}

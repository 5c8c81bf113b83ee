package oracle

import (
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// BenchmarkOracle measures what the oracle's causal-order check (S1) costs per checked delivery,
// over the committed history of a hand-built run: one process receiving four channels is fed and
// delivers 5,000 records in order, each naming as its true past the latest record of every other
// channel, committing every eighth delivery. Sub-benchmark check=at-delivery re-runs the
// delivery-time half on every delivery: a walk over the record's true past (three entries) with a
// lookup and two comparisons each. check=lifetime re-runs the end-of-run half over the whole
// history; its ns/delivery is its time divided by the deliveries it judged. Both are read-only on
// an honest history: a violation found fails the benchmark. The checksum is the number of
// deliveries checked.
//
//	go test ./sim/oracle/ -run '^$' -bench Oracle -benchmem
func BenchmarkOracle(b *testing.B) {
	const chans, records = 4, 5000
	o := New([]string{"a", "b", "c", "d"}, nil, 0)
	p := NewProc(0)
	o.SetProc(0, &p)
	recv := make([]int32, chans)
	for c := range int32(chans) {
		o.OnChannelCreated(c, nc(byte(c+1)), int(c), 0, 0)
		recv[c] = c
	}
	step := 0
	at := func() At { step++; return At{Step: step, Micros: int64(step)} }
	o.OnReceived(at(), &p, recv, make([]node.Cause, chans), nil, nil)
	o.OnStart(&p)
	var uids []uint64
	var last [chans]int64
	for i := range records {
		c := int32(i % chans)
		var past node.Causes
		for other := range int32(chans) {
			if other != c && last[other] > 0 {
				past.Merge(nc(byte(other+1)), node.Offset(last[other]-1))
			}
		}
		pos := last[c]
		last[c]++
		uid := o.Add(Message{Ch: c, Pos: pos, Sender: -1, Kind: MsgPlain, State: MsgCommitted, Past: past, Expressed: past}, 0)
		p.BeginStep()
		o.OnFeed(at(), &p, c, uid, pos, heap{})
		o.OnDeliver(at(), &p, c, uid, heap{})
		if i%8 == 7 {
			o.OnCommit(at(), &p)
		}
		uids = append(uids, uid)
	}
	o.OnCommit(at(), &p)
	if vs := o.Violations(); len(vs) > 0 {
		b.Fatalf("the honest history breaks %v", vs[0])
	}
	b.Run("check=at-delivery", func(b *testing.B) {
		n := 0
		for b.Loop() {
			for _, uid := range uids {
				o.checkCausalOrderAtDelivery(At{}, &p, uid)
			}
			n += len(uids)
		}
		report(b, &o, &p, n, len(uids))
	})
	b.Run("check=lifetime", func(b *testing.B) {
		n := 0
		for b.Loop() {
			o.checkCausalOrderLifetime(At{})
			n += len(uids)
		}
		report(b, &o, &p, n, len(uids))
	})
}

// report fails on a staged or found violation and reports ns per checked delivery.
func report(b *testing.B, o *Oracle, p *Proc, checked, deliveries int) {
	if len(p.staged) > 0 {
		b.Fatalf("re-check staged %v", p.staged[0])
	}
	if len(o.Violations()) > 0 {
		b.Fatalf("re-check found %v", o.Violations()[0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(checked), "ns/delivery")
	b.ReportMetric(float64(deliveries), "checksum")
}

package benchmarks

import (
	"fmt"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/substrate"
)

// Allocations per operation of the hot paths, measured with testing.AllocsPerRun (which reports
// the integer average over the runs) and gated exactly: an allocation that creeps into a loop
// the node runs per message is a regression whatever the wall clock says.

// allocRuns is how many runs each allocation measurement averages over.
const allocRuns = workloadOps

// allocCase is one measured operation: setup returns the operation to repeat.
type allocCase struct {
	name  string
	setup func() (func(), error)
}

// frontierOf returns a frontier of n entries on n single-partition topics (the wide-topic
// layout: 26 wire bytes an entry).
func frontierOf(n int) node.Causes {
	var c node.Causes
	for i := range n {
		var id node.TopicID
		id[0], id[1], id[15] = byte(i>>8), byte(i), 1
		c.Merge(node.Channel{Topic: id, Partition: 0}, node.Offset(1000+i))
	}
	return c
}

// gateOf builds Decide's deliverable case at width w: causes naming w channels at a receiver of
// those w and w others, all settled above the causes (as node's BenchmarkDecide).
func gateOf(w int) (node.Causes, *node.SettledTable) {
	var causes node.Causes
	table := &node.SettledTable{}
	for i := 0; i < 2*w; i++ {
		ch := benchChannel(byte(i+1), node.Partition(i%3))
		table.Settle(ch, node.Offset(5000+i))
		if i%2 == 0 {
			causes.Merge(ch, node.Offset(4000+i))
		}
	}
	return causes, table
}

// allocCases lists the measured hot paths.
func allocCases() []allocCase {
	var out []allocCase
	for _, n := range []int{1, 64} {
		enc := node.Encode(frontierOf(n))
		out = append(out,
			allocCase{fmt.Sprintf("node.DecodeInto/entries=%d", n), func() (func(), error) {
				var dst node.Causes
				return func() { _ = node.DecodeInto(&dst, enc) }, nil
			}},
			allocCase{fmt.Sprintf("node.Decode/entries=%d", n), func() (func(), error) {
				return func() { _, _ = node.Decode(enc) }, nil
			}},
			allocCase{fmt.Sprintf("node.AppendEncode/entries=%d", n), func() (func(), error) {
				c, buf := frontierOf(n), make([]byte, 0, len(enc))
				return func() { buf = node.AppendEncode(buf[:0], c) }, nil
			}})
	}
	causes, table := gateOf(4)
	out = append(out,
		allocCase{"node.Decide/width=4", func() (func(), error) {
			return func() { _ = node.Decide(causes, table, table) }, nil
		}},
		allocCase{"node.AppendBlockers/width=4", func() (func(), error) {
			held := &node.SettledTable{}
			for _, c := range causes.Pairs() {
				held.Settle(c.Channel, c.Position-1)
			}
			var buf []node.Blocker
			return func() { buf = node.AppendBlockers(buf[:0], causes, held, held) }, nil
		}})
	for _, wl := range engineWorkloads() {
		out = append(out, allocCase{"engine/" + wl.name, func() (func(), error) {
			run, err := wl.setup()
			if err != nil {
				return nil, err
			}
			i := 0
			return func() {
				if err := run.op(i); err != nil {
					panic(fmt.Sprintf("engine workload %s op %d: %v", wl.name, i, err))
				}
				i++
			}, nil
		}})
	}
	return append(out, substrateAllocCases()...)
}

// substrateAllocCases measures the model substrate's produce and fetch.
func substrateAllocCases() []allocCase {
	return []allocCase{
		{"substrate.Model.Produce", func() (func(), error) {
			m := substrate.NewSeededModel(1)
			id, err := m.CreateTopic("bench", 4)
			if err != nil {
				return nil, err
			}
			rec, i := substrate.Record{Value: []byte("value")}, 0
			return func() {
				_, _ = m.Produce(substrate.TopicPartition{Topic: id, Partition: substrate.Partition(i & 3)}, rec, substrate.ProduceIdempotent)
				i++
			}, nil
		}},
		{"substrate.Model.FetchInto/records=16", func() (func(), error) {
			m := substrate.NewSeededModel(1)
			id, err := m.CreateTopic("bench", 1)
			if err != nil {
				return nil, err
			}
			tp := substrate.TopicPartition{Topic: id, Partition: 0}
			for i := range 16 * (allocRuns + 1) {
				if _, err := m.Produce(tp, substrate.Record{TimestampMicros: int64(i)}, substrate.ProducePlain); err != nil {
					return nil, err
				}
			}
			dst := make([]substrate.FetchedRecord, 0, 16)
			from := substrate.Offset(0)
			return func() { dst, from, _ = m.FetchInto(dst[:0], tp, from, 16) }, nil
		}},
	}
}

// Allocs measures every hot path's allocations per operation.
func Allocs() (map[string]int64, error) {
	out := map[string]int64{}
	for _, c := range allocCases() {
		op, err := c.setup()
		if err != nil {
			return nil, fmt.Errorf("allocations of %s: %w", c.name, err)
		}
		out[c.name] = int64(testing.AllocsPerRun(allocRuns, op))
	}
	return out, nil
}

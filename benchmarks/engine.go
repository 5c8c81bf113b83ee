package benchmarks

import (
	"fmt"

	"github.com/parsleysim/parsleysim/node"
)

// Engine workloads: the shapes of node/engine_bench_test.go (chain, fan-in 8, constant
// hold-back depth), built on the engine's public API, run for a fixed number of operations. The
// engine's work counters over them are exact, so "flat in depth" is gated as a fact: the work per
// operation at depth 4096 must equal the work at depth 1.

// workloadOps is how many operations each engine workload measures.
const workloadOps = 1024

// engineWorkload is one workload: setup builds a fresh engine, op performs operation i (and
// returns an error on a refusal).
type engineWorkload struct {
	name  string
	setup func() (*engineRun, error)
}

// engineRun is a started workload: the engine and the operation that drives it.
type engineRun struct {
	eng *node.Engine
	op  func(i int) error
}

// benchTopic returns topic n's ID (bytes n, 0, ..., 0, 1, so topics order by n).
func benchTopic(n byte) node.TopicID {
	var id node.TopicID
	id[0], id[15] = n, 1
	return id
}

func benchChannel(topic byte, partition node.Partition) node.Channel {
	return node.Channel{Topic: benchTopic(topic), Partition: partition}
}

// benchRecord returns a record whose parsley.causes header carries causes.
func benchRecord(causes ...node.Cause) node.Record {
	r := node.Record{Key: []byte("k"), Value: []byte("v"), TimestampMicros: 42}
	if len(causes) > 0 {
		r.Headers = []node.Header{{Key: node.HeaderKey, Value: node.Encode(node.CausesOf(causes...))}}
	}
	return r
}

// drainAll delivers everything deliverable and returns how many were delivered.
func drainAll(e *node.Engine) int {
	n := 0
	for {
		if _, ok := e.Next(); !ok {
			return n
		}
		n++
	}
}

// engineWorkloads lists the workloads: chain and fan-in 8 deliver every message at once; the
// depth workloads keep depth messages held while each operation releases one and holds one more.
func engineWorkloads() []engineWorkload {
	out := []engineWorkload{
		{"chain", func() (*engineRun, error) { return chainRun(workloadOps + 1) }},
		{"fan_in=8", func() (*engineRun, error) { return fanInRun(8, workloadOps+1) }},
	}
	for _, depth := range []int{1, 16, 256, 4096} {
		out = append(out,
			engineWorkload{fmt.Sprintf("drain/depth=%d", depth), func() (*engineRun, error) { return depthRun(depth, workloadOps+1, false) }},
			engineWorkload{fmt.Sprintf("commit/depth=%d", depth), func() (*engineRun, error) { return depthRun(depth, workloadOps+1, true) }})
	}
	return out
}

// chainRun: one received channel; message i names (own channel, i−1) and an unreceived upstream
// coordinate; each operation receives one and drains it.
func chainRun(ops int) (*engineRun, error) {
	c, up := benchChannel(1, 0), benchChannel(9, 0)
	recs := make([]node.Record, ops)
	for i := range recs {
		causes := []node.Cause{{Channel: up, Position: node.Offset(i)}}
		if i > 0 {
			causes = append(causes, node.Cause{Channel: c, Position: node.Offset(i - 1)})
		}
		recs[i] = benchRecord(causes...)
	}
	e, err := node.Start(nil, node.Init{Received: []node.Channel{c}}, node.Options{})
	if err != nil {
		return nil, err
	}
	return &engineRun{e, func(i int) error {
		if _, err := e.Receive(c, node.Offset(i), recs[i]); err != nil {
			return err
		}
		drainAll(e)
		return nil
	}}, nil
}

// fanInRun: width channels fed round-robin; each message names the latest position of every
// channel (width causes) and delivers at once.
func fanInRun(width, ops int) (*engineRun, error) {
	chans := make([]node.Channel, width)
	for j := range chans {
		chans[j] = benchChannel(byte(j+1), node.Partition(j))
	}
	recs := make([]node.Record, ops)
	for i := range recs {
		own, round := i%width, node.Offset(i/width)
		var causes []node.Cause
		for j := 0; j < width; j++ {
			switch {
			case j < own:
				causes = append(causes, node.Cause{Channel: chans[j], Position: round})
			case round > 0:
				causes = append(causes, node.Cause{Channel: chans[j], Position: round - 1})
			}
		}
		recs[i] = benchRecord(causes...)
	}
	e, err := node.Start(nil, node.Init{Received: chans}, node.Options{})
	if err != nil {
		return nil, err
	}
	return &engineRun{e, func(i int) error {
		if _, err := e.Receive(chans[i%width], node.Offset(i/width), recs[i]); err != nil {
			return err
		}
		drainAll(e)
		return nil
	}}, nil
}

// depthRun: channel a holds depth messages, message k blocked on z@k. Operation i receives z@i
// (no causes), drains (z@i, then the head a@i) and receives a@(depth+i), blocked on z@(depth+i),
// so the depth stays constant; with commit, each operation also commits and applies the delta.
func depthRun(depth, ops int, commit bool) (*engineRun, error) {
	a, z := benchChannel(1, 0), benchChannel(2, 0)
	recs := make([]node.Record, depth+ops)
	for k := range recs {
		recs[k] = benchRecord(node.Cause{Channel: z, Position: node.Offset(k)})
	}
	e, err := node.Start(nil, node.Init{Received: []node.Channel{a, z}}, node.Options{})
	if err != nil {
		return nil, err
	}
	for k := 0; k < depth; k++ {
		if _, err := e.Receive(a, node.Offset(k), recs[k]); err != nil {
			return nil, err
		}
	}
	if n := drainAll(e); n != 0 {
		return nil, fmt.Errorf("depth workload delivered %d messages while filling", n)
	}
	st := &node.State{}
	if err := st.Apply(e.Commit()); err != nil {
		return nil, err
	}
	free := benchRecord()
	return &engineRun{e, func(i int) error {
		if _, err := e.Receive(z, node.Offset(i), free); err != nil {
			return err
		}
		if n := drainAll(e); n != 2 {
			return fmt.Errorf("depth workload op %d delivered %d messages, want 2", i, n)
		}
		if _, err := e.Receive(a, node.Offset(depth+i), recs[depth+i]); err != nil {
			return err
		}
		if commit {
			return st.Apply(e.Commit())
		}
		return nil
	}}, nil
}

// EngineWork runs every engine workload for workloadOps operations and returns, per workload,
// the engine's work counters over those operations (setup excluded), exact.
func EngineWork() (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for _, wl := range engineWorkloads() {
		run, err := wl.setup()
		if err != nil {
			return nil, fmt.Errorf("engine workload %s: %w", wl.name, err)
		}
		base := run.eng.Counters()
		for i := range workloadOps {
			if err := run.op(i); err != nil {
				return nil, fmt.Errorf("engine workload %s, op %d: %w", wl.name, i, err)
			}
		}
		out[wl.name] = countersMetrics(run.eng.Counters().Minus(base))
	}
	return out, nil
}

// countersMetrics names the engine's counters.
func countersMetrics(c node.Counters) map[string]int64 {
	return map[string]int64{
		"ops":                  workloadOps,
		"heads_offered":        int64(c.HeadsOffered),
		"causes_compared":      int64(c.CausesCompared),
		"causes_merged":        int64(c.CausesMerged),
		"header_bytes_decoded": int64(c.HeaderBytesDecoded),
		"header_bytes_encoded": int64(c.HeaderBytesEncoded),
		"holds_added":          int64(c.HoldsAdded),
		"holds_removed":        int64(c.HoldsRemoved),
		"deliveries":           int64(c.Deliveries),
	}
}

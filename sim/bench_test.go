package sim

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/world"
)

// Benchmarks of the world with every check on.
//
//	go test ./sim/ -run '^$' -bench 'Actions|Scale' -benchtime 3x
//
// BenchmarkActions: scheduler actions per second of wall time on the diamond scenario (every
// checker on, no trace sink). Envelope: an action is a choice (two weighted draws), at most one
// fetch and engine Receive (~200 ns), or a drain that delivers a few heads and forwards each
// (engine Next + Emit + ProduceTx + oracle frontier merges, ~1 µs each), plus the per-step
// eligibility scan over processes (~10 ns each): a few µs per action at worst, so ≥ 300,000
// actions/s is the goal. The reported "hash" metric is the sum of deliveries, so the work cannot
// be optimised away.
func BenchmarkActions(b *testing.B) {
	set := throughputSettings(7)
	actions, deliveries := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := Run(diamondScenario(), set, choose.NewRandom(uint64(i)), RunOptions{})
		actions += res.Steps
		deliveries += res.Stats.Deliveries
	}
	b.ReportMetric(float64(actions)/b.Elapsed().Seconds(), "actions/s")
	b.ReportMetric(float64(deliveries)/float64(b.N), "deliveries/run")
}

// throughputSettings are seed settings with every fault that fails a process closed for good
// switched off (deletion, recreation, corrupt headers, truncation, retention, redeclaration), so
// a long run keeps every process busy: crashes, restarts, rewinds, migrations, zombies and
// transactions stay on.
func throughputSettings(seed uint64) swarm.Settings {
	set := swarm.ExpandSettings(seed)
	set.SafetySteps = 20000
	set.LivenessStepsMax = 0
	for _, k := range []spec.ActionKind{spec.ActDeleteTopic, spec.ActRecreateTopic, spec.ActProduceCorrupt, spec.ActDeleteRecords, spec.ActRetention, spec.ActRedeclare} {
		set.Weights[k] = 0
	}
	set.RetentionMicros, set.RetentionRecords = 0, 0
	for _, k := range []spec.ActionKind{spec.ActFeed, spec.ActDrain, spec.ActCommit, spec.ActStart, spec.ActProducePlain} {
		set.Weights[k] = max(set.Weights[k], 1)
	}
	return set
}

// gridScenario is a generated topology of n processes: 100 external topics of 10 partitions, and
// per process one sent topic of 10 partitions (so n=1000 gives 11,000 channels); process i is
// task i%10 of its application and receives one external topic and the sent topic of a process
// chosen by a fixed permutation; it forwards each delivery to its one sent topic.
func gridScenario(n int) *spec.Scenario {
	scn := &spec.Scenario{Name: fmt.Sprintf("grid-%d", n), MetadataBudgetBytes: 1 << 22}
	ext := min(100, max(1, n/10))
	for e := range ext {
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: fmt.Sprintf("ext-%d", e), Partitions: 10, External: true})
	}
	for i := range n {
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: fmt.Sprintf("out-%d", i), Partitions: 10})
	}
	for i := range n {
		up := (i*7 + 3) % n
		recv := []string{fmt.Sprintf("ext-%d", i%ext)}
		if up != i {
			recv = append(recv, fmt.Sprintf("out-%d", up))
		}
		scn.Processes = append(scn.Processes, spec.ProcessSpec{Name: fmt.Sprintf("p%d", i), Task: i % 10,
			Receives: recv, Sends: []string{fmt.Sprintf("out-%d", i)}, HopsMax: 3})
	}
	return scn
}

// BenchmarkScale: step cost and memory as processes and channels grow (every check on). Each
// sub-benchmark runs a fixed number of actions over the grid topology and reports ns per action,
// channels, and the live heap of the whole world (substrate logs, oracle and engines included)
// after the run, per process. Envelope: the per-step eligibility
// scan is O(processes); everything else is O(received channels + frontier width) of the
// process acted on, so ns/action should grow at most linearly in processes and memory with
// processes × reachable channels.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("processes=%d", n), func(b *testing.B) {
			scn := gridScenario(n)
			set := throughputSettings(3)
			set.RestartCheck = swarm.RestartCheck{} // the world's own run, no rerun
			var res *spec.Result
			var liveBytes uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w := world.New(scn, set, choose.NewRandom(uint64(i)), RunOptions{})
				w.Start()
				res = runFrom(w, scn.Script, 0, set.SafetySteps, nil)
				b.StopTimer()
				liveBytes = liveHeap() // with the world alive
				runtime.KeepAlive(w)
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*res.Steps), "ns/action")
			b.ReportMetric(float64(len(scn.Topics)*10), "channels")
			b.ReportMetric(float64(res.Stats.Deliveries), "deliveries")
			b.ReportMetric(float64(liveBytes)/float64(n), "liveB/process")
		})
	}
}

// diamondScenario: p1 forwards in to mid; p2 receives in and mid and sends to out.
func diamondScenario() *spec.Scenario {
	return &spec.Scenario{
		Name: "diamond",
		Topics: []spec.TopicSpec{
			{Name: "in", Partitions: 1, External: true},
			{Name: "mid", Partitions: 1},
			{Name: "out", Partitions: 1},
		},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"in"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"in", "mid"}, Sends: []string{"out"}},
		},
	}
}

// liveHeap returns the live heap after a collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

func TestRandomTopologyDeterministic(t *testing.T) {
	for seed := range uint64(200) {
		a, errA := RandomTopology(seed, RandomOptions{})
		b, errB := RandomTopology(seed, RandomOptions{})
		if errA != nil || errB != nil {
			t.Fatalf("seed %d: %v / %v", seed, errA, errB)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d generated two different topologies:\n%s\n%s", seed, a, b)
		}
	}
	a, _ := RandomTopology(1, RandomOptions{})
	b, _ := RandomTopology(2, RandomOptions{})
	if reflect.DeepEqual(a, b) {
		t.Fatal("seeds 1 and 2 generated the same topology")
	}
}

// TestRandomTopologyShape checks the bounds on every seed of a sweep, and that every
// feature the generator declared is really in the graph.
func TestRandomTopologyShape(t *testing.T) {
	for seed := range uint64(1000) {
		topo, err := RandomTopology(seed, RandomOptions{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		quarry := 0
		if _, ok := topo.topic(quarryHeldTopic); ok {
			quarry = 1 // the deletion quarry's process (TestRandomDeletionQuarry)
		}
		if n := len(topo.Processes) - quarry; n < 2 || n > 7 {
			t.Fatalf("seed %d: %d processes besides the quarry, want 2..7", seed, n)
		}
		ext := 0
		for _, tp := range topo.Topics {
			if tp.External && !tp.DeletionOnly {
				ext++
			}
		}
		if ext < 1 || ext > 3 {
			t.Fatalf("seed %d: %d external topics, want 1..3", seed, ext)
		}
		have := topo.Features()
		for _, f := range topo.Declared {
			if !slices.Contains(have, f) {
				t.Fatalf("seed %d: declared %s but the graph lacks it:\n%s", seed, f, topo)
			}
		}
	}
}

// TestRandomFeatureCoverage is the generator's part of the vacuity guard: across 200 seeds every
// feature appears, none appears in every seed (the swarm varies the shapes), and some seeds use
// task 1.
func TestRandomFeatureCoverage(t *testing.T) {
	const seeds = 200
	count := map[Feature]int{}
	task1 := 0
	for seed := range uint64(seeds) {
		topo, _ := RandomTopology(seed, RandomOptions{})
		for _, f := range topo.Features() {
			count[f]++
		}
		if slices.ContainsFunc(topo.Processes, func(p Process) bool { return p.Task == 1 }) {
			task1++
		}
	}
	for _, f := range AllFeatures() {
		if count[f] == 0 {
			t.Errorf("feature %s in none of %d seeds", f, seeds)
		}
	}
	for _, f := range []Feature{FeatureCycle, FeatureMultiNodeCycle, FeatureDiamond, FeatureSilentNode, FeatureSharedSink, FeatureSelfConsumer} {
		if count[f] == seeds {
			t.Errorf("feature %s in every seed: the swarm does not vary it", f)
		}
	}
	if task1 == 0 {
		t.Error("no seed has a process reading partition 1")
	}
	t.Logf("feature counts over %d seeds: %v; seeds with a task-1 process: %d", seeds, count, task1)
}

// TestFeatureDetection checks each detector on a hand-built topology that has the feature and
// one that does not, so a detector that always says yes or no fails.
func TestFeatureDetection(t *testing.T) {
	x := Topic{Name: "x", Partitions: 1, External: true}
	out := func(n string) Topic { return Topic{Name: n, Partitions: 1} }
	proc := func(name string, recv, sends []string) Process {
		return Process{Name: name, Receives: recv, Sends: sends}
	}
	chain := &Topology{Topics: []Topic{x, out("a"), out("b"), out("c")}, Processes: []Process{
		proc("A", []string{"x"}, []string{"a"}), proc("B", []string{"a"}, []string{"b"}), proc("C", []string{"b"}, []string{"c"}),
	}}
	if got := chain.Features(); len(got) != 0 {
		t.Fatalf("a plain chain has features %v:\n%s", got, chain)
	}
	cases := map[Feature]*Topology{
		FeatureSharedSink: {Topics: []Topic{x, out("s")}, Processes: []Process{
			proc("A", []string{"x"}, []string{"s"}), proc("B", []string{"x"}, []string{"s"})}},
		FeatureSelfConsumer: {Topics: []Topic{x, out("a")}, Processes: []Process{proc("A", []string{"a", "x"}, []string{"a"})}},
		FeatureCycle: {Topics: []Topic{x, out("a"), out("b")}, Processes: []Process{
			proc("A", []string{"b", "x"}, []string{"a"}), proc("B", []string{"a"}, []string{"b"})}},
		FeatureMultiNodeCycle: {Topics: []Topic{x, out("a"), out("b"), out("c")}, Processes: []Process{
			proc("A", []string{"c", "x"}, []string{"a"}), proc("B", []string{"a"}, []string{"b"}), proc("C", []string{"b"}, []string{"c"})}},
		FeatureDiamond: {Topics: []Topic{x, out("a"), out("b"), out("c"), out("d")}, Processes: []Process{
			proc("A", []string{"x"}, []string{"a"}), proc("B", []string{"a"}, []string{"b"}),
			proc("C", []string{"a"}, []string{"c"}), proc("D", []string{"b", "c"}, []string{"d"})}},
		FeatureSilentNode: {Topics: []Topic{x}, Processes: []Process{proc("A", []string{"x"}, nil)}},
		FeatureFunnel: {Topics: []Topic{x, out("a"), out("b"), out("c")}, Processes: []Process{
			proc("A", []string{"x"}, []string{"a"}), proc("B", []string{"x"}, []string{"b"}),
			proc("F", []string{"a", "b", "x"}, []string{"c"})}},
		FeatureDifferingScope: {Topics: []Topic{x, out("a"), out("b")}, Processes: []Process{
			proc("A", []string{"x"}, []string{"a"}), proc("B", []string{"a", "x"}, []string{"b"})}},
		FeatureMultiPartition: {Topics: []Topic{{Name: "x", Partitions: 2, External: true}, out("a")}, Processes: []Process{
			proc("A", []string{"x"}, []string{"a"})}},
	}
	for _, f := range AllFeatures() {
		topo := cases[f]
		if err := topo.Validate(); err != nil {
			t.Fatalf("%s fixture invalid: %v", f, err)
		}
		if !topo.has(f) {
			t.Errorf("%s not detected in:\n%s", f, topo)
		}
	}
	// A two-cycle is not a multi-node cycle, and a narrow topic a task-1 process cannot read
	// creates no edge.
	if cases[FeatureCycle].has(FeatureMultiNodeCycle) {
		t.Error("a two-process cycle was reported as a multi-node cycle")
	}
	narrow := &Topology{Topics: []Topic{{Name: "x", Partitions: 2, External: true}, out("a"), out("b")}, Processes: []Process{
		proc("A", []string{"b", "x"}, []string{"a"}), {Name: "B", Task: 1, Receives: []string{"a", "x"}, Sends: []string{"b"}}}}
	if narrow.has(FeatureCycle) {
		t.Errorf("task 1 reading a one-partition topic made a cycle:\n%s", narrow)
	}
}

func TestLargeTopology(t *testing.T) {
	topo, err := RandomTopology(7, RandomOptions{Processes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Processes) != 1000 || topo.channels() < 10000 {
		t.Fatalf("1000-process topology has %d processes over %d channels, want 1000 over ≥ 10000", len(topo.Processes), topo.channels())
	}
	if got := topo.Features(); len(got) != len(AllFeatures()) {
		t.Fatalf("large topology features %v, want all", got)
	}
	for _, n := range []int{2, 3, 8} {
		topo, err := RandomTopology(3, RandomOptions{Processes: n})
		if err != nil || len(topo.Processes) != n {
			t.Fatalf("--processes %d: %v processes, err %v", n, len(topo.Processes), err)
		}
	}
	for _, n := range []int{1, spec.MaxProcesses + 1} {
		if _, err := RandomTopology(3, RandomOptions{Processes: n}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("must be 2-%d", spec.MaxProcesses)) {
			t.Fatalf("--processes %d gave %v, want an error naming the limit", n, err)
		}
	}
}

// TestRandomDeletionQuarry: a small random topology has the deletion quarry (a silent process
// reading the two deletion-only topics) exactly when its seed's settings delete topics, and
// stamped records are produced there (stampWhereDeleted); large topologies never have it.
func TestRandomDeletionQuarry(t *testing.T) {
	with, without := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		topo, err := RandomTopology(seed, RandomOptions{})
		if err != nil {
			t.Fatal(err)
		}
		set := swarm.ExpandSettings(seed)
		held, okH := topo.topic(quarryHeldTopic)
		cause, okC := topo.topic(quarryCauseTopic)
		if okH != set.Enabled(spec.ActDeleteTopic) || okC != okH {
			t.Fatalf("seed %d: quarry topics %v/%v, deletion on %v", seed, okH, okC, set.Enabled(spec.ActDeleteTopic))
		}
		if !okH {
			without++
			continue
		}
		with++
		if !held.External || !held.DeletionOnly || !cause.External || !cause.DeletionOnly {
			t.Fatalf("seed %d: quarry topics %+v %+v", seed, held, cause)
		}
		readers := 0
		for _, p := range topo.Processes {
			if slices.Contains(p.Receives, quarryHeldTopic) {
				readers++
				if !slices.Equal(p.Receives, []string{quarryCauseTopic, quarryHeldTopic}) || len(p.Sends) != 0 {
					t.Fatalf("seed %d: quarry process %+v", seed, p)
				}
			}
		}
		if readers != 1 || !set.Enabled(spec.ActProduceStamped) {
			t.Fatalf("seed %d: %d readers of the held topic, stamped produce on %v", seed, readers, set.Enabled(spec.ActProduceStamped))
		}
	}
	if with == 0 || without == 0 {
		t.Fatalf("quarry in %d seeds, none in %d: both kinds must occur", with, without)
	}
	large, err := RandomTopology(1, RandomOptions{Processes: 40})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := large.topic(quarryHeldTopic); ok {
		t.Fatalf("a large topology has the quarry")
	}
}

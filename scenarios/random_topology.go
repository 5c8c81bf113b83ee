package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// topologyStream is the PCG stream constant of the topology generator ("topology" in ASCII). The
// generator draws from its own stream derived from the seed, not from the run's Chooser, so a
// topology never shifts when the schedule's choices change, and replay and shrinking never have
// to reproduce it choice by choice.
const topologyStream = 0x746f706f6c6f6779

// Sizes of the default random topology and of generated large ones.
const (
	smallProcessesMin   = 2
	smallProcessesMax   = 7
	externalTopicsMax   = 3
	featureOnPct        = 45 // chance each feature is built into a small topology
	largeOutPartitions  = 12 // partitions of each process's output topic in a large topology
	largeReceiveWindow  = 20 // a large topology's process receives from the previous 20 processes
	largeSilentPct      = 10 // share of silent processes in a large topology
	largeFeatureRepeats = 3  // each feature is built this many times into a large topology
)

// externalTopicsMenu is the number of external topics of a small topology, one drawn per seed:
// two or three, so the run's few fail-closed faults (a deleted or recreated topic, a corrupt
// header) can stop some receivers while others carry on and expose the rest: with one external
// topic, a single recreation or truncation of it ends every delivery of the run.
var externalTopicsMenu = []int{2, 2, 2, 3, 3}

// twoReadersMinProcesses is the size from which a small topology gives every external topic two
// readers (receiveEveryExternal): a second reader of a topic the stamped and plain producers
// write is a second place where a stamped record waits and a plain one queues behind it. Smaller
// topologies keep one reader: there a second one takes too many receivers from the truncation
// fault.
const twoReadersMinProcesses = 5

// RandomOptions shape the random scenario beyond its seed.
type RandomOptions struct {
	// Processes, when non-zero, fixes the number of processes and switches to the large-topology
	// layout above 7: each process gets an output topic of 12 partitions (1,000 processes give
	// more than 10,000 channels), receives from up to three of its 20 predecessors or the external
	// topics, and every feature is built in a few times.
	Processes int
}

// topoGen builds one topology from one seeded stream.
type topoGen struct {
	rng       *rand.Rand
	t         *Topology
	recv      []map[string]bool // per process, the received topic names
	sends     []map[string]bool
	silent    []bool
	tasks     []int
	externals []string
	large     bool
}

// RandomTopology generates the topology of the random scenario for a seed: 2–7 processes over
// 2–3 external topics (some with two partitions), each read by some process, each process with
// an output topic unless it is silent, wired by a random spine and a per-seed subset of the
// features; and, when the seed's settings delete topics, the deletion quarry (one more process
// and two deletion-only topics, addDeletionQuarry). The same seed and options always give the
// same topology.
func RandomTopology(seed uint64, opts RandomOptions) (*Topology, error) {
	if opts.Processes == 1 || opts.Processes < 0 || opts.Processes > spec.MaxProcesses {
		return nil, fmt.Errorf("random scenario: --processes must be 2-%d, got %d", spec.MaxProcesses, opts.Processes)
	}
	g := &topoGen{rng: rand.New(rand.NewPCG(seed, topologyStream)), t: &Topology{}}
	features := g.pickFeatures(opts.Processes)
	n := opts.Processes
	if n == 0 {
		need := processesNeeded(features)
		n = need + g.rng.IntN(smallProcessesMax-need+1)
	}
	large := n > smallProcessesMax
	g.large = large
	g.layout(n, features, large)
	if large {
		for range largeFeatureRepeats {
			for _, f := range features {
				g.build(f)
			}
		}
	} else {
		g.extraEdges()
		for _, f := range features {
			g.build(f)
		}
	}
	g.t.Declared = features
	slices.Sort(g.t.Declared)
	if !large {
		g.receiveEveryExternal()
	}
	g.assignTasks(large)
	if !large {
		g.readEveryExternalPartition()
	}
	g.finish()
	if set := swarm.ExpandSettings(seed); opts.Processes == 0 && set.Enabled(spec.ActDeleteTopic) {
		addDeletionQuarry(g.t) // a fixed --processes N gets exactly N processes
	}
	if err := g.t.Validate(); err != nil {
		return nil, fmt.Errorf("random scenario seed %d: generator bug: %w", seed, err)
	}
	return g.t, nil
}

// pickFeatures chooses which features to build: each with probability featureOnPct for a small
// topology (at most those that fit a fixed process count), all of them for a large one.
func (g *topoGen) pickFeatures(fixedN int) []Feature {
	var out []Feature
	for _, f := range AllFeatures() {
		roll := g.rng.IntN(100) // drawn for every feature so the stream stays aligned
		if f == FeatureMultiPartition {
			continue // a property of the topics, drawn per topic in layout
		}
		on := roll < featureOnPct || fixedN > smallProcessesMax
		if on && (fixedN == 0 || processesNeeded(append(slices.Clone(out), f)) <= fixedN) {
			out = append(out, f)
		}
	}
	return out
}

// processesNeeded is the fewest processes that can carry the features: the senders each needs
// (a silent node needs one more process) and four for a diamond.
func processesNeeded(fs []Feature) int {
	senders, silent, need := 1, 0, smallProcessesMin
	for _, f := range fs {
		switch f {
		case FeatureCycle, FeatureSharedSink, FeatureDifferingScope:
			senders = max(senders, 2)
		case FeatureMultiNodeCycle, FeatureDiamond:
			senders = max(senders, 3)
		case FeatureSilentNode:
			silent = 1
		}
		if f == FeatureDiamond {
			need = max(need, 4)
		}
	}
	return max(need, senders+silent)
}

// layout creates the topics and processes and the spine: every process receives one topic from
// the external topics or an earlier sender's output.
func (g *topoGen) layout(n int, features []Feature, large bool) {
	externals := externalTopicsMenu[g.rng.IntN(len(externalTopicsMenu))]
	if large {
		externals = max(externalTopicsMax, n/100)
	}
	for i := range externals {
		g.addTopic(fmt.Sprintf("x%d", i), g.partitions(), true)
		g.externals = append(g.externals, fmt.Sprintf("x%d", i))
	}
	g.recv, g.sends, g.silent = make([]map[string]bool, n), make([]map[string]bool, n), make([]bool, n)
	silentOne := -1
	if slices.Contains(features, FeatureSilentNode) {
		silentOne = g.rng.IntN(n)
	}
	for i := range n {
		g.recv[i], g.sends[i] = map[string]bool{}, map[string]bool{}
		g.silent[i] = i == silentOne || (large && g.rng.IntN(100) < largeSilentPct)
		if !g.silent[i] {
			out := outName(i)
			g.addTopic(out, g.partitions(), false)
			g.sends[i][out] = true
		}
		g.recv[i][g.spineSource(i, large)] = true
		if large {
			for range g.rng.IntN(3) {
				g.recv[i][g.spineSource(i, large)] = true
			}
		}
	}
	if len(g.senders()) == 0 { // every process drawn silent (large layouts only): keep one sender
		g.silent[0] = false
		g.addTopic(outName(0), g.partitions(), false)
		g.sends[0][outName(0)] = true
	}
}

// partitions draws a topic's partition count: 1, or 2 for a quarter of small topics; every
// topic of a large topology has largeOutPartitions.
func (g *topoGen) partitions() int {
	roll := g.rng.IntN(100)
	if g.large {
		return largeOutPartitions
	}
	if roll < 25 {
		return 2
	}
	return 1
}

// spineSource picks a topic for process i to receive: an external topic or the output of an
// earlier sender (within the window for large topologies).
func (g *topoGen) spineSource(i int, large bool) string {
	var pool []string
	pool = append(pool, g.externals...)
	from := 0
	if large {
		from = max(0, i-largeReceiveWindow)
	}
	for j := from; j < i; j++ {
		if !g.silent[j] {
			pool = append(pool, outName(j))
		}
	}
	return pool[g.rng.IntN(len(pool))]
}

func outName(i int) string { return fmt.Sprintf("p%d.out", i) }

func (g *topoGen) addTopic(name string, partitions int, external bool) {
	g.t.Topics = append(g.t.Topics, Topic{Name: name, Partitions: partitions, External: external})
}

// senders returns the indices of the processes that send.
func (g *topoGen) senders() []int {
	var out []int
	for i, s := range g.silent {
		if !s {
			out = append(out, i)
		}
	}
	return out
}

// pickDistinct draws k distinct entries of pool in random order (pool must hold at least k).
func (g *topoGen) pickDistinct(pool []int, k int) []int {
	pool = slices.Clone(pool)
	for i := range k {
		j := i + g.rng.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	return pool[:k]
}

// receiveEveryExternal makes every external topic received by at least one process (two in a
// topology of twoReadersMinProcesses or more), adding receivers drawn at random. External
// producers write every external topic (plain, stamped and corrupt records, the fail-closed
// faults' targets), so a topic nobody reads wastes them: a third of the seeds had one, and a
// corrupt header produced there was never read by anyone (UNDECODABLE_AS_ABSENT uncaught), a
// stamped record there never held (results/heuristics.md has the measured effect).
func (g *topoGen) receiveEveryExternal() {
	for _, x := range g.externals {
		n := 0
		for i := range g.recv {
			if g.recv[i][x] {
				n++
			}
		}
		want := 1
		if len(g.recv) >= twoReadersMinProcesses {
			want = 2
		}
		for n < want {
			if i := g.rng.IntN(len(g.recv)); !g.recv[i][x] {
				g.recv[i][x] = true
				n++
			}
		}
	}
}

// readEveryExternalPartition gives every partition of an external topic that no process reads a
// reader: a process whose task is that partition receives the topic too (when there is one).
// Otherwise a two-partition external topic whose readers all have task 0 leaves partition 1
// unread, and the produces and faults aimed there are wasted.
func (g *topoGen) readEveryExternalPartition() {
	for _, tp := range g.t.Topics {
		if !tp.External {
			continue
		}
		for k := range tp.Partitions {
			var readers, withTask []int
			for i := range g.recv {
				if g.tasks[i] == k {
					withTask = append(withTask, i)
					if g.recv[i][tp.Name] {
						readers = append(readers, i)
					}
				}
			}
			if len(readers) == 0 && len(withTask) > 0 {
				g.recv[withTask[g.rng.IntN(len(withTask))]][tp.Name] = true
			}
		}
	}
}

// assignTasks picks each process's task (the partition it reads of each received topic). In a
// small topology about one process in seven takes task 1 and every topic they receive is widened
// to two partitions, so the process graph the features were built on stays intact while
// partition 1 gets readers. In a large one, task i mod 12 spreads the readers over the
// partitions of the (all 12-wide) topics.
func (g *topoGen) assignTasks(large bool) {
	g.tasks = make([]int, len(g.recv))
	width := map[string]int{}
	for i := range g.recv {
		roll := g.rng.IntN(100)
		switch {
		case large:
			g.tasks[i] = i % largeOutPartitions
		case roll < 15:
			g.tasks[i] = 1
			for name := range g.recv[i] {
				width[name] = 2
			}
		}
	}
	for i, tp := range g.t.Topics {
		if w := width[tp.Name]; w > tp.Partitions {
			g.t.Topics[i].Partitions = w
		}
	}
}

// finish writes the sorted channel lists into the topology's processes.
func (g *topoGen) finish() {
	for i := range g.recv {
		p := Process{Name: fmt.Sprintf("p%d", i), Task: g.tasks[i], Receives: sortedKeys(g.recv[i]), Sends: sortedKeys(g.sends[i])}
		g.t.Processes = append(g.t.Processes, p)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

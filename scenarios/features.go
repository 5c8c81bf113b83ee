package scenarios

import (
	"slices"
	"strings"
)

// Feature is a shape a generated topology may have. The sweep's vacuity guard
// checks that every feature appears across the CI seeds.
type Feature string

// The features of the random generator.
const (
	FeatureSharedSink     Feature = "shared-sink"      // a topic two or more processes send to
	FeatureSelfConsumer   Feature = "self-consumer"    // a process receives a topic it sends to
	FeatureCycle          Feature = "cycle"            // two processes each receive what the other sends
	FeatureMultiNodeCycle Feature = "multi-node-cycle" // a cycle through three or more processes
	FeatureDifferingScope Feature = "differing-scope"  // two processes share a received topic but not all of them
	FeatureSilentNode     Feature = "silent-node"      // a process that sends nothing
	FeatureFunnel         Feature = "funnel"           // a process receiving three or more topics
	FeatureDiamond        Feature = "diamond"          // a -> b, a -> c, b -> d, c -> d
	FeatureMultiPartition Feature = "multi-partition"  // a topic with two or more partitions
)

// AllFeatures returns every feature, in a fixed order. The generator builds features in this
// order; differing scope comes after the ones that add received topics, so they cannot undo it.
func AllFeatures() []Feature {
	return []Feature{FeatureSharedSink, FeatureSelfConsumer, FeatureCycle, FeatureMultiNodeCycle,
		FeatureSilentNode, FeatureFunnel, FeatureDiamond, FeatureDifferingScope, FeatureMultiPartition}
}

// FeatureNames joins features with commas ("none" when empty).
func FeatureNames(fs []Feature) string {
	if len(fs) == 0 {
		return "none"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ",")
}

// cycleSearchMaxProcesses bounds the exact search for cycles through three or more processes
// (exponential in the worst case); larger topologies report the features they declared.
const cycleSearchMaxProcesses = 16

// Features returns the features the topology's graph actually has, in AllFeatures order. It is
// computed from the graph, not trusted from the generator; for topologies larger than 16
// processes the cycle and diamond searches are skipped and the declared ones are reported.
func (t *Topology) Features() []Feature {
	g := newProcessGraph(t)
	small := len(t.Processes) <= cycleSearchMaxProcesses
	has := map[Feature]bool{
		FeatureSharedSink:     g.sharedSink(),
		FeatureSelfConsumer:   g.selfConsumer(),
		FeatureDifferingScope: differingScope(t),
		FeatureSilentNode:     slices.ContainsFunc(t.Processes, func(p Process) bool { return len(p.Sends) == 0 }),
		FeatureFunnel:         funnel(t),
		FeatureMultiPartition: slices.ContainsFunc(t.Topics, func(tp Topic) bool { return tp.Partitions >= 2 }),
	}
	if small {
		has[FeatureCycle] = g.twoCycle()
		has[FeatureMultiNodeCycle] = g.longCycle()
		has[FeatureDiamond] = g.diamond()
	} else {
		for _, f := range t.Declared {
			if f == FeatureCycle || f == FeatureMultiNodeCycle || f == FeatureDiamond {
				has[f] = true
			}
		}
	}
	var out []Feature
	for _, f := range AllFeatures() {
		if has[f] {
			out = append(out, f)
		}
	}
	return out
}

// has reports whether the topology has feature f (as Features computes it).
func (t *Topology) has(f Feature) bool { return slices.Contains(t.Features(), f) }

// processGraph is the process-to-process graph: p -> q when q reads a topic p sends (records are
// spread over a topic's partitions by key, so any sender can reach any reader of the topic).
type processGraph struct {
	n       int
	succ    [][]int // sorted successor lists, self-loops excluded
	self    []bool  // p receives a topic p sends
	senders map[string]int
}

func newProcessGraph(t *Topology) *processGraph {
	g := &processGraph{n: len(t.Processes), succ: make([][]int, len(t.Processes)),
		self: make([]bool, len(t.Processes)), senders: map[string]int{}}
	sentBy := map[string][]int{}
	for i, p := range t.Processes {
		for _, name := range p.Sends {
			sentBy[name] = append(sentBy[name], i)
			g.senders[name]++
		}
	}
	topics := t.topicsByName()
	for q, p := range t.Processes {
		for _, name := range p.Receives {
			if !p.reads(topics[name]) {
				continue
			}
			for _, from := range sentBy[name] {
				if from == q {
					g.self[q] = true
				} else if !slices.Contains(g.succ[from], q) {
					g.succ[from] = append(g.succ[from], q)
				}
			}
		}
	}
	for i := range g.succ {
		slices.Sort(g.succ[i])
	}
	return g
}

func (g *processGraph) edge(a, b int) bool { _, ok := slices.BinarySearch(g.succ[a], b); return ok }

func (g *processGraph) sharedSink() bool {
	for _, n := range g.senders {
		if n >= 2 {
			return true
		}
	}
	return false
}

func (g *processGraph) selfConsumer() bool { return slices.Contains(g.self, true) }

func (g *processGraph) twoCycle() bool {
	for a := range g.n {
		for _, b := range g.succ[a] {
			if g.edge(b, a) {
				return true
			}
		}
	}
	return false
}

// longCycle reports a simple cycle through three or more distinct processes (depth-first from
// each start, visiting only higher-numbered processes so each cycle is found from its minimum).
func (g *processGraph) longCycle() bool {
	onPath := make([]bool, g.n)
	var dfs func(start, at, depth int) bool
	dfs = func(start, at, depth int) bool {
		for _, nx := range g.succ[at] {
			if nx == start && depth >= 3 {
				return true
			}
			if nx > start && !onPath[nx] {
				onPath[nx] = true
				found := dfs(start, nx, depth+1)
				onPath[nx] = false
				if found {
					return true
				}
			}
		}
		return false
	}
	for s := range g.n {
		onPath[s] = true
		found := dfs(s, s, 1)
		onPath[s] = false
		if found {
			return true
		}
	}
	return false
}

// diamond reports four distinct processes a, b, c, d with a -> b, a -> c, b -> d, c -> d.
func (g *processGraph) diamond() bool {
	for a := range g.n {
		for i, b := range g.succ[a] {
			for _, c := range g.succ[a][i+1:] {
				for _, d := range g.succ[b] {
					if d != a && d != c && g.edge(c, d) {
						return true
					}
				}
			}
		}
	}
	return false
}

// differingScope reports two processes whose read topic sets overlap but differ.
func differingScope(t *Topology) bool {
	reads := make([][]string, len(t.Processes))
	topics := t.topicsByName()
	for i, p := range t.Processes {
		for _, name := range p.Receives {
			if p.reads(topics[name]) {
				reads[i] = append(reads[i], name)
			}
		}
	}
	for i := range reads {
		for _, other := range reads[i+1:] {
			overlap := slices.ContainsFunc(reads[i], func(n string) bool { return slices.Contains(other, n) })
			if overlap && !slices.Equal(reads[i], other) {
				return true
			}
		}
	}
	return false
}

// funnel reports a process reading three or more topics.
func funnel(t *Topology) bool {
	topics := t.topicsByName()
	for _, p := range t.Processes {
		n := 0
		for _, name := range p.Receives {
			if p.reads(topics[name]) {
				n++
			}
		}
		if n >= 3 {
			return true
		}
	}
	return false
}

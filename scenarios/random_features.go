package scenarios

import (
	"fmt"
	"slices"
)

// build wires feature f into the topology under construction. Each case picks its processes from
// the generator's stream; processesNeeded guarantees there are enough.
func (g *topoGen) build(f Feature) {
	senders := g.senders()
	all := make([]int, len(g.recv))
	for i := range all {
		all[i] = i
	}
	switch f {
	case FeatureSelfConsumer: // p receives its own output
		p := g.pickDistinct(senders, 1)[0]
		g.recv[p][outName(p)] = true
	case FeatureCycle: // a <-> b
		ab := g.pickDistinct(senders, 2)
		g.recv[ab[1]][outName(ab[0])] = true
		g.recv[ab[0]][outName(ab[1])] = true
	case FeatureMultiNodeCycle: // a -> b -> c -> a
		abc := g.pickDistinct(senders, 3)
		for i := range 3 {
			g.recv[abc[(i+1)%3]][outName(abc[i])] = true
		}
	case FeatureDiamond: // a -> b, a -> c, b -> d, c -> d
		abc := g.pickDistinct(senders, 3)
		rest := slices.DeleteFunc(slices.Clone(all), func(i int) bool { return slices.Contains(abc, i) })
		d := g.pickDistinct(rest, 1)[0]
		g.recv[abc[1]][outName(abc[0])] = true
		g.recv[abc[2]][outName(abc[0])] = true
		g.recv[d][outName(abc[1])] = true
		g.recv[d][outName(abc[2])] = true
	case FeatureSharedSink: // two or three senders write one topic; one process reads it
		g.buildSharedSink(senders)
	case FeatureFunnel: // one process receives three or more topics
		g.buildFunnel(g.pickDistinct(all, 1)[0])
	case FeatureDifferingScope: // p and q share a topic; p receives one q does not
		g.buildDifferingScope(all)
	}
}

func (g *topoGen) buildSharedSink(senders []int) {
	name := "sink"
	for i := 1; g.hasTopic(name); i++ {
		name = fmt.Sprintf("sink%d", i)
	}
	g.addTopic(name, g.partitions(), false)
	writers := g.pickDistinct(senders, min(len(senders), 2+g.rng.IntN(2)))
	for _, w := range writers {
		g.sends[w][name] = true
	}
	g.recv[g.rng.IntN(len(g.recv))][name] = true
}

func (g *topoGen) buildFunnel(f int) {
	for len(g.t.Topics) < 3 {
		name := fmt.Sprintf("x%d", len(g.externals))
		g.addTopic(name, 1, true)
		g.externals = append(g.externals, name)
	}
	for len(g.recv[f]) < 3 {
		g.recv[f][g.t.Topics[g.rng.IntN(len(g.t.Topics))].Name] = true
	}
}

func (g *topoGen) buildDifferingScope(all []int) {
	pq := g.pickDistinct(all, 2)
	p, q := pq[0], pq[1]
	shared := sortedKeys(g.recv[p])
	g.recv[q][shared[g.rng.IntN(len(shared))]] = true
	if !sameKeys(g.recv[p], g.recv[q]) {
		return
	}
	for _, tp := range g.t.Topics { // make p's scope wider than q's
		if !g.recv[q][tp.Name] {
			g.recv[p][tp.Name] = true
			return
		}
	}
	for _, name := range sortedKeys(g.recv[q]) { // q reads every topic: narrow q instead
		if name != shared[0] {
			delete(g.recv[q], name)
			return
		}
	}
}

// extraEdges gives each process of a small topology a 15% chance of one more received topic.
func (g *topoGen) extraEdges() {
	for i := range g.recv {
		roll := g.rng.IntN(100)
		pick := g.t.Topics[g.rng.IntN(len(g.t.Topics))].Name
		if roll < 15 {
			g.recv[i][pick] = true
		}
	}
}

func (g *topoGen) hasTopic(name string) bool {
	return slices.ContainsFunc(g.t.Topics, func(t Topic) bool { return t.Name == name })
}

func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

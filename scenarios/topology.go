package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// Topic is one topic of a generated topology.
type Topic struct {
	Name       string
	Partitions int  // ≥ 1
	External   bool // written by external producers (no process sends to it)
	// DeletionOnly marks an external topic no fail-closed fault but its deletion touches
	// (spec.TopicSpec.DeletionOnly; addDeletionQuarry).
	DeletionOnly bool
}

// Process is one process (one Kafka-Streams-like task) of a generated topology.
//
// Like a Kafka Streams task, the process receives partition Task of each received topic that has
// such a partition (spec.ProcessSpec); a narrower received topic is declared but not read.
type Process struct {
	Name     string
	Task     int      // the partition it reads of each received topic
	Receives []string // received topic names, sorted; at least one wide enough for Task
	Sends    []string // sent topic names, sorted; empty for a silent node
}

// reads reports whether the process actually reads topic tp (tp is wide enough for its task).
func (p Process) reads(tp Topic) bool { return tp.Partitions > p.Task }

// Topology is the shape of a scenario: its topics and processes. Topic and process order is
// fixed by the generator and meaningful (it is the order the simulator offers them in).
type Topology struct {
	Topics    []Topic
	Processes []Process
	// Declared lists the features the generator set out to build (sorted); Features() checks
	// them against the graph.
	Declared []Feature
}

// channels returns the number of topic-partitions.
func (t *Topology) channels() int {
	n := 0
	for _, tp := range t.Topics {
		n += tp.Partitions
	}
	return n
}

// topic returns the topic with the given name.
func (t *Topology) topic(name string) (Topic, bool) {
	for _, tp := range t.Topics {
		if tp.Name == name {
			return tp, true
		}
	}
	return Topic{}, false
}

// topicsByName indexes the topics by name.
func (t *Topology) topicsByName() map[string]Topic {
	m := make(map[string]Topic, len(t.Topics))
	for _, tp := range t.Topics {
		m[tp.Name] = tp
	}
	return m
}

// Validate checks the topology's invariants: unique names, every referenced topic declared,
// every process receiving something, external topics sent by no process, sorted and duplicate-
// free channel lists, and at least one external topic (so the run has input).
func (t *Topology) Validate() error {
	topics := map[string]Topic{}
	external := 0
	for _, tp := range t.Topics {
		if _, dup := topics[tp.Name]; dup || tp.Name == "" {
			return fmt.Errorf("topology: topic name %q empty or repeated", tp.Name)
		}
		if tp.Partitions < 1 {
			return fmt.Errorf("topology: topic %s has %d partitions", tp.Name, tp.Partitions)
		}
		if tp.External {
			external++
		}
		if tp.DeletionOnly && !tp.External {
			return fmt.Errorf("topology: topic %s is deletion-only but not external", tp.Name)
		}
		topics[tp.Name] = tp
	}
	if external == 0 {
		return fmt.Errorf("topology: no external topic")
	}
	names := map[string]bool{}
	for _, p := range t.Processes {
		if names[p.Name] || p.Name == "" {
			return fmt.Errorf("topology: process name %q empty or repeated", p.Name)
		}
		names[p.Name] = true
		if !slices.ContainsFunc(p.Receives, func(n string) bool { return p.reads(topics[n]) }) {
			return fmt.Errorf("topology: process %s (task %d) reads no channel of %v", p.Name, p.Task, p.Receives)
		}
		for _, list := range [][]string{p.Receives, p.Sends} {
			if !slices.IsSorted(list) || len(slices.Compact(slices.Clone(list))) != len(list) {
				return fmt.Errorf("topology: process %s channel list %v not sorted and unique", p.Name, list)
			}
			for _, name := range list {
				if _, ok := topics[name]; !ok {
					return fmt.Errorf("topology: process %s names undeclared topic %s", p.Name, name)
				}
			}
		}
		for _, name := range p.Sends {
			if topics[name].External {
				return fmt.Errorf("topology: process %s sends to external topic %s", p.Name, name)
			}
		}
	}
	return nil
}

// String renders the topology compactly, a line per topic and per process, for printouts and test
// failures: "process p1 task=0 <- x0,p0.out -> p1.out".
func (t *Topology) String() string {
	var b strings.Builder
	for _, tp := range t.Topics {
		kind := "internal"
		if tp.External {
			kind = "external"
		}
		if tp.DeletionOnly {
			kind += " deletion-only"
		}
		fmt.Fprintf(&b, "topic %s partitions=%d %s\n", tp.Name, tp.Partitions, kind)
	}
	for _, p := range t.Processes {
		sends := strings.Join(p.Sends, ",")
		if sends == "" {
			sends = "(silent)"
		}
		fmt.Fprintf(&b, "process %s task=%d <- %s -> %s\n", p.Name, p.Task, strings.Join(p.Receives, ","), sends)
	}
	fmt.Fprintf(&b, "features %s\n", FeatureNames(t.Features()))
	return b.String()
}

package trace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// names renders the world's numbering the way a scenario file and its story write it: a process
// by its name, and a channel of a topic's first incarnation as T/P, of its N-th recreation as
// T#N/P, where events and their details number incarnations across the whole world (T#G/P). The
// world creates each topic's first incarnation in declaration order (G is the topic's index) and
// one more at each recreation, whose "recreated" event names it ("T#G replaces #O"), so the
// numbers are learnt from the events as they pass.
type names struct {
	processes []string
	topic     map[int]string // world incarnation -> its topic
	number    map[int]int    // world incarnation -> its number among its topic's (0 first)
}

func newNames(scn *spec.Scenario) *names {
	n := &names{topic: map[int]string{}, number: map[int]int{}}
	for _, p := range scn.Processes {
		n.processes = append(n.processes, p.Name)
	}
	for i, t := range scn.Topics {
		n.topic[i], n.number[i] = t.Name, 0
	}
	return n
}

// worldIncarnation matches the world's name of an incarnation, T#G.
var worldIncarnation = regexp.MustCompile(`([A-Za-z0-9_.-]+)#(\d+)`)

// learn records the incarnation a "recreated" event creates.
func (n *names) learn(ev *Event) {
	if ev.Kind != "recreated" {
		return
	}
	now, old, ok := strings.Cut(ev.Detail, " replaces #")
	m := worldIncarnation.FindStringSubmatch(now)
	o, err := strconv.Atoi(old)
	if !ok || m == nil || err != nil {
		return
	}
	g, _ := strconv.Atoi(m[2])
	n.topic[g], n.number[g] = m[1], n.number[o]+1
}

// incarnation returns how a scenario file names topic's world incarnation g: topic, or topic#N.
func (n *names) incarnation(topic string, g int) string {
	num, ok := n.number[g]
	if !ok || n.topic[g] != topic {
		return fmt.Sprintf("%s#%d", topic, g) // not one the world announced: its world name
	}
	if num == 0 {
		return topic
	}
	return fmt.Sprintf("%s#%d", topic, num)
}

// process returns process i's name.
func (n *names) process(i int) string {
	if i < len(n.processes) {
		return n.processes[i]
	}
	return fmt.Sprintf("p%d", i)
}

// detail rewrites the world's incarnation names in a detail.
func (n *names) detail(ev *Event) string {
	if ev.Kind == "recreated" {
		now, old, ok := strings.Cut(ev.Detail, " replaces #")
		if m := worldIncarnation.FindStringSubmatch(now); ok && m != nil {
			o, _ := strconv.Atoi(old)
			return n.rename(now) + " replaces " + n.incarnation(m[1], o)
		}
	}
	return n.rename(ev.Detail)
}

func (n *names) rename(s string) string {
	return worldIncarnation.ReplaceAllStringFunc(s, func(w string) string {
		m := worldIncarnation.FindStringSubmatch(w)
		g, err := strconv.Atoi(m[2])
		if err != nil {
			return w
		}
		return n.incarnation(m[1], g)
	})
}

package scopes

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// The general family of the explore catalogue: small topologies enumerated, not shaped for a
// mode. A wiring is up to three processes over up to three single-partition topics, each topic
// external (written by the external producers) or internal (written by the processes that send
// to it); each process receives a non-empty set of topics and sends to a set of internal topics
// (a process may receive what it sends: a self-channel). Wirings are taken up to isomorphism
// (renaming processes, renaming external topics among themselves and internal topics among
// themselves) and kept when they are connected (processes and topics joined by receiving and
// sending), every internal topic has a sender (a disconnected wiring is two smaller ones side by
// side, and an internal topic nobody sends to never carries a record) and they have at most
// generalMaxArcs arcs (a process receiving or sending to a topic): the states of a scope grow
// fast with its arcs, and the family must stay explorable in minutes. Each wiring is explored
// under each fault kind of the explorer's budget vocabulary, one kind per scope, with a budget
// of records that depends on the wiring's size only (generalBudget). A scope is named
// general.FAULT.WIRING, the wiring in its canonical name (Wiring.Name).

// Wiring is one topology of the general family: external topics a, b, c (the first Ext of
// them), internal topics m, n, o (the first Int), and the processes' received and sent topics
// as bit sets over topic indexes (bit i for topic i; externals first, then internals).
type Wiring struct {
	Ext, Int int
	Procs    []WiredProc
}

// WiredProc is one process of a wiring: the topics it receives and sends to, as bit sets.
type WiredProc struct{ Recv, Send uint8 }

// topicLetter names topic i of a wiring with ext external topics.
func topicLetter(i, ext int) byte {
	if i < ext {
		return "abc"[i]
	}
	return "mno"[i-ext]
}

// Maximum size of a general wiring: processes, topics, and arcs (a process receiving or
// sending to a topic).
const (
	generalMaxProcs  = 3
	generalMaxTopics = 3
	generalMaxArcs   = 5
)

// procName renders one process as its received topics' letters, then "-" and its sent topics'
// letters when it sends ("am-m": receives a and m, sends to m).
func (w Wiring) procName(p WiredProc) string {
	var b strings.Builder
	for i := range w.Ext + w.Int {
		if p.Recv&(1<<i) != 0 {
			b.WriteByte(topicLetter(i, w.Ext))
		}
	}
	if p.Send != 0 {
		b.WriteByte('-')
		for i := range w.Ext + w.Int {
			if p.Send&(1<<i) != 0 {
				b.WriteByte(topicLetter(i, w.Ext))
			}
		}
	}
	return b.String()
}

// Name renders the wiring as its processes' names in sorted order, joined by ".": "a-m.am" is
// one process receiving a and sending to m and one receiving a and m. The name does not depend on
// the order of the processes; it does on the topics' labels (Canonical picks them).
func (w Wiring) Name() string {
	names := make([]string, len(w.Procs))
	for i, p := range w.Procs {
		names[i] = w.procName(p)
	}
	slices.Sort(names)
	return strings.Join(names, ".")
}

// relabel returns w with topic i renamed perm[i] (a permutation that keeps externals external).
func (w Wiring) relabel(perm []int) Wiring {
	out := Wiring{Ext: w.Ext, Int: w.Int, Procs: make([]WiredProc, len(w.Procs))}
	move := func(set uint8) uint8 {
		var r uint8
		for i := range w.Ext + w.Int {
			if set&(1<<i) != 0 {
				r |= 1 << perm[i]
			}
		}
		return r
	}
	for i, p := range w.Procs {
		out.Procs[i] = WiredProc{Recv: move(p.Recv), Send: move(p.Send)}
	}
	return out
}

// Canonical returns the wiring isomorphic to w whose name is the smallest: over every renaming
// of the external topics among themselves and of the internal ones among themselves (processes
// are unordered in a name already), with its processes in name order. Two wirings are
// isomorphic exactly when their canonical names are equal.
func (w Wiring) Canonical() Wiring {
	var best Wiring
	bestName := ""
	for _, perm := range topicPerms(w.Ext, w.Int) {
		c := w.relabel(perm)
		if n := c.Name(); bestName == "" || n < bestName {
			best, bestName = c, n
		}
	}
	slices.SortFunc(best.Procs, func(x, y WiredProc) int { return strings.Compare(best.procName(x), best.procName(y)) })
	return best
}

// topicPerms lists the permutations of ext+int topic indexes that map externals to externals
// and internals to internals.
func topicPerms(ext, in int) [][]int {
	var out [][]int
	for _, pe := range permutations(ext) {
		for _, pi := range permutations(in) {
			perm := slices.Clone(pe)
			for _, j := range pi {
				perm = append(perm, ext+j)
			}
			out = append(out, perm)
		}
	}
	return out
}

// permutations lists every permutation of 0..n-1 (one, empty, for n = 0).
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := slices.Insert(slices.Clone(p), at, n-1)
			out = append(out, q)
		}
	}
	return out
}

// Valid reports whether w is a member shape of the family: 1-3 processes, 1-3 topics with at
// least one external, every process receiving some topic and sending only to internal ones,
// every internal topic sent to, and the wiring connected.
func (w Wiring) Valid() bool {
	n := w.Ext + w.Int
	if w.Ext < 1 || w.Int < 0 || n > generalMaxTopics || len(w.Procs) < 1 || len(w.Procs) > generalMaxProcs {
		return false
	}
	all := uint8(1)<<n - 1
	ext := uint8(1)<<w.Ext - 1
	var sent uint8
	for _, p := range w.Procs {
		if p.Recv == 0 || p.Recv&^all != 0 || p.Send&^all != 0 || p.Send&ext != 0 {
			return false
		}
		sent |= p.Send
	}
	return sent == all&^ext && w.Arcs() <= generalMaxArcs && w.connected()
}

// connected reports whether every process and topic is reached from the first process through
// received and sent topics.
func (w Wiring) connected() bool {
	reached := w.Procs[0].Recv | w.Procs[0].Send
	joined := uint(1)
	for changed := true; changed; {
		changed = false
		for i, p := range w.Procs {
			if joined&(1<<i) == 0 && (p.Recv|p.Send)&reached != 0 {
				joined |= 1 << i
				reached |= p.Recv | p.Send
				changed = true
			}
		}
	}
	return bits.OnesCount(joined) == len(w.Procs) && bits.OnesCount8(reached) == w.Ext+w.Int
}

// GeneralWirings lists the family's wirings, one per isomorphism class, canonical, ordered by
// size (processes, then topics) and then name.
func GeneralWirings() []Wiring {
	var out []Wiring
	for procs := 1; procs <= generalMaxProcs; procs++ {
		for topics := 1; topics <= generalMaxTopics; topics++ {
			seen := map[string]bool{}
			var group []Wiring
			for ext := 1; ext <= topics; ext++ {
				in := topics - ext
				choices := procChoices(ext, in)
				for _, idx := range multisets(len(choices), procs) {
					w := Wiring{Ext: ext, Int: in}
					for _, i := range idx {
						w.Procs = append(w.Procs, choices[i])
					}
					if !w.Valid() {
						continue
					}
					c := w.Canonical()
					if n := c.Name(); !seen[n] {
						seen[n] = true
						group = append(group, c)
					}
				}
			}
			slices.SortFunc(group, func(x, y Wiring) int { return strings.Compare(x.Name(), y.Name()) })
			out = append(out, group...)
		}
	}
	return out
}

// procChoices lists every process of a wiring with ext external and in internal topics: each
// non-empty received set with each sent set of internal topics.
func procChoices(ext, in int) []WiredProc {
	n := ext + in
	var out []WiredProc
	for r := uint8(1); r < 1<<n; r++ {
		for s := uint8(0); s < 1<<n; s++ {
			if s&(1<<ext-1) == 0 {
				out = append(out, WiredProc{Recv: r, Send: s})
			}
		}
	}
	return out
}

// multisets lists every non-decreasing k-tuple of 0..n-1.
func multisets(n, k int) [][]int {
	if k == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, rest := range multisets(n, k-1) {
		from := 0
		if len(rest) > 0 {
			from = rest[len(rest)-1]
		}
		for i := from; i < n; i++ {
			out = append(out, append(slices.Clone(rest), i))
		}
	}
	return out
}

// Scenario builds the wiring's scenario: topics named by their letters (single-partition),
// processes p1, p2, p3 in name order, forwarding every delivery to their sent topics.
func (w Wiring) Scenario(name string) *spec.Scenario {
	scn := &spec.Scenario{Name: name}
	for i := range w.Ext + w.Int {
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: string(topicLetter(i, w.Ext)), Partitions: 1, External: i < w.Ext})
	}
	letters := func(set uint8) []string {
		var out []string
		for i := range w.Ext + w.Int {
			if set&(1<<i) != 0 {
				out = append(out, string(topicLetter(i, w.Ext)))
			}
		}
		return out
	}
	for i, p := range w.Procs {
		scn.Processes = append(scn.Processes, spec.ProcessSpec{Name: fmt.Sprintf("p%d", i+1), Receives: letters(p.Recv), Sends: letters(p.Send)})
	}
	return scn
}

// generalFault is one fault kind of the general family: its name in scope names and the budget
// it adds to the messages.
type generalFault struct{ name, budget string }

// tightFault is the kind that adds no action but sets every engine's metadata budget (SPEC §3: a
// header or a frontier of more than B bytes is refused) to exactly the size of a one-cause header
// (tightBudgetBytes), so the limit is explored at its boundary: a frontier or a stamp of one cause
// fits exactly, one of two is refused.
const tightFault = "budget"

// tight reports whether f is tightFault.
func (f generalFault) tight() bool { return f.name == tightFault }

// tightBudgetBytes is the encoded size of a header naming one position on partition 0 of one
// topic (positions have a fixed width, and a general scope's topics have one partition, so every
// one-cause header of a general scope has this size).
var tightBudgetBytes = node.EncodedLen(node.CausesOf(node.Cause{Channel: node.Channel{Topic: node.TopicID{0: 1}}}))

// generalFaults are the family's fault kinds, one per scope: every budgeted kind of the
// explorer's vocabulary (budget.Parse) but the session actions, none at all, and a tight
// metadata budget. A rewind and a redeclaration act on a stopped process, so their scopes also
// allow one clean stop.
var generalFaults = []generalFault{
	{"none", ""}, {"stamped", "stamped=1"}, {"corrupt", "corrupt=1"},
	{"crash", "crash=1"}, {"stop", "stop=1"}, {"rewind", "stop=1,rewind=1"}, {"redeclare", "stop=1,redeclare=1"},
	{"truncate", "truncate=1"}, {"retention", "retention=1"}, {"delete", "delete=1"}, {"recreate", "recreate=1"},
	{"abort", "abort=1"}, {"open", "open=1"}, {"migrate", "migrate=1"}, {"zombie", "zombie=1"},
	{tightFault, ""}, {"commitcrash", "commitcrash=1"},
}

// generalBudget is the budget of wiring w under fault f. The states of a scope grow with its
// wiring and its records alike, so a small wiring gets more records: with a fault, its arcs plus
// its records make at most generalSize (and there is at least one record); without one, one
// record more. A one-arc wiring thus gets three records and a fault, a two-arc one two (enough
// for two independent records on two channels, or a record behind another), every larger one a
// single record and a fault, or two records and none.
func generalBudget(w Wiring, f generalFault) string {
	msgs := max(1, generalSize-w.Arcs())
	if f.budget == "" {
		return fmt.Sprintf("msgs=%d", msgs+1)
	}
	return fmt.Sprintf("msgs=%d,%s", msgs, f.budget)
}

// generalSize bounds a general scope: arcs plus records (generalBudget).
const generalSize = 4

// Pairs of fault kinds. Some behaviour needs two faults to show: a replay re-merges the causes of
// a record whose channel an identity change pruned from the frontier only when a deletion or a
// recreation and a rewind meet. So every wiring of at most generalPairArcs arcs and
// generalPairProcs processes is also explored under every pair of distinct kinds that act (all
// but none and budget), with one record: a scope named general.KIND+KIND.WIRING, its Fault
// "pair". Corrupt is left out, as its branching over every representative header multiplies a
// pair scope's states by that branching again, and so are three-process wirings, whose pairs
// dominate the family's cost (results/explore.md has the state counts).
const (
	generalPairArcs  = 3
	generalPairProcs = 2
	pairFault        = "pair"
)

// generalPairs returns the pairs of distinct acting fault kinds, in generalFaults order.
func generalPairs() [][2]generalFault {
	var acting []generalFault
	for _, f := range generalFaults {
		if f.budget != "" && f.name != "corrupt" {
			acting = append(acting, f)
		}
	}
	var out [][2]generalFault
	for i := range acting {
		for j := i + 1; j < len(acting); j++ {
			out = append(out, [2]generalFault{acting[i], acting[j]})
		}
	}
	return out
}

// pairBudget is one record and both kinds' budgets, an entry both give (a stop) once.
func pairBudget(pair [2]generalFault) string {
	parts := []string{"msgs=1"}
	for _, f := range pair {
		for _, e := range strings.Split(f.budget, ",") {
			if !slices.Contains(parts, e) {
				parts = append(parts, e)
			}
		}
	}
	return strings.Join(parts, ",")
}

// Arcs counts the wiring's arcs: every topic a process receives or sends to.
func (w Wiring) Arcs() int {
	n := 0
	for _, p := range w.Procs {
		n += bits.OnesCount8(p.Recv) + bits.OnesCount8(p.Send)
	}
	return n
}

// generalScopes is the family, built once.
var generalScopes = sync.OnceValue(func() []Scope {
	var out []Scope
	for _, w := range GeneralWirings() {
		for _, f := range generalFaults {
			name := FamilyGeneral + "." + f.name + "." + w.Name()
			out = append(out, Scope{Name: name, Family: FamilyGeneral, Fault: f.name, Budget: generalBudget(w, f),
				Summary: w.describe() + "; " + f.describe(),
				Build: func() *spec.Scenario {
					scn := w.Scenario(name)
					if f.tight() {
						scn.MetadataBudgetBytes = tightBudgetBytes
					}
					return scn
				}})
		}
		if w.Arcs() > generalPairArcs || len(w.Procs) > generalPairProcs {
			continue
		}
		for _, pair := range generalPairs() {
			name := FamilyGeneral + "." + pair[0].name + "+" + pair[1].name + "." + w.Name()
			out = append(out, Scope{Name: name, Family: FamilyGeneral, Fault: pairFault, Budget: pairBudget(pair),
				Summary: w.describe() + "; one " + pair[0].name + " and one " + pair[1].name,
				Build:   func() *spec.Scenario { return w.Scenario(name) }})
		}
	}
	return out
})

// GeneralScopes returns the general family: every wiring (GeneralWirings, in that order) under
// every fault kind (generalFaults, in that order), named general.FAULT.WIRING, then, for a small
// wiring, under every pair of kinds (generalPairs), named general.KIND+KIND.WIRING.
func GeneralScopes() []Scope { return slices.Clone(generalScopes()) }

// generalByName indexes the family by name.
var generalByName = sync.OnceValue(func() map[string]Scope {
	m := make(map[string]Scope)
	for _, sc := range generalScopes() {
		m[sc.Name] = sc
	}
	return m
})

// describe renders the wiring for a summary: "p1 a>m, p2 am>" reads p1 receives a and sends to
// m, p2 receives a and m.
func (w Wiring) describe() string {
	parts := make([]string, len(w.Procs))
	for i, p := range w.Procs {
		recv, send, _ := strings.Cut(w.procName(p), "-")
		parts[i] = fmt.Sprintf("p%d %s>%s", i+1, recv, send)
	}
	return strings.Join(parts, ", ")
}

// describe renders the fault for a summary.
func (f generalFault) describe() string {
	switch {
	case f.tight():
		return fmt.Sprintf("no fault, metadata budget %d bytes (one cause)", tightBudgetBytes)
	case f.budget == "":
		return "no fault"
	}
	return "one " + f.name
}

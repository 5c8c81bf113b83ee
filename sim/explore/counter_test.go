package explore

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/explore/budget"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// counterWorld is a World the search can step without a simulator: n processes, each feeding
// records from a topic of its own until it has fed limit of them. A step feeds one process (a
// local transition: feeds of two processes are independent, their topics disjoint), so every
// interleaving of the feeds is a path and the states are the counters' combinations. A process
// that has fed something can be restarted cleanly; a restart of the process buggy makes it
// deliver one record less. A violation is found on the step that makes process 0 full while
// process 1 has fed nothing, when violating is set.
type counterWorld struct {
	fed       []int
	limit     int
	buggy     int // the process whose restart loses a delivery; -1: none
	restarted int // -1: none
	violating bool
	ch        choose.Chooser
	set       *swarm.Settings
	ids       rand.PCG
	script    []spec.ScriptedAction
	local     TransitionKey
	found     []spec.Violation
}

// counterScenario is the topology counterWorld stands for: process pI receives topic tI.
func counterScenario(n int) *spec.Scenario {
	scn := &spec.Scenario{Name: "counters"}
	for i := range n {
		scn.Topics = append(scn.Topics, spec.TopicSpec{Name: fmt.Sprintf("t%d", i), Partitions: 1, External: true})
		scn.Processes = append(scn.Processes, spec.ProcessSpec{Name: fmt.Sprintf("p%d", i), Receives: []string{fmt.Sprintf("t%d", i)}})
	}
	return scn
}

// counterConfig is the exploration of n counters up to limit, the restart check on; with reduce,
// sleep sets.
func counterConfig(n, limit, buggy int, violating, reduce bool) Config {
	set := &swarm.Settings{}
	set.Weights[spec.ActFeed] = 1
	cfg := Config{
		Root: func() (World, *rand.PCG) {
			w := &counterWorld{fed: make([]int, n), limit: limit, buggy: buggy, restarted: -1, violating: violating, set: set}
			return w, rand.NewPCG(1, 2)
		},
		Hasher:       func() Hasher { return counterHasher{} },
		Budget:       budget.Budget{},
		RestartCheck: true,
	}
	if reduce {
		cfg.Sleep = func() *SleepTable { return NewSleepTable(counterScenario(n), set) }
	}
	return cfg
}

func (w *counterWorld) copyInto(into World, ids *rand.PCG, ch choose.Chooser) *counterWorld {
	c, _ := into.(*counterWorld)
	if c == nil {
		c = new(counterWorld)
	}
	fed := append(c.fed[:0], w.fed...)
	*c = *w
	c.fed, c.ids, c.ch = fed, *ids, ch
	c.script, c.found = nil, append([]spec.Violation(nil), w.found...)
	return c
}

func (w *counterWorld) Clone(into World, ids *rand.PCG, ch choose.Chooser) World {
	return w.copyInto(into, ids, ch)
}

func (w *counterWorld) EndCopy(into World, ids *rand.PCG) World {
	c := w.copyInto(into, ids, nil)
	c.found = nil
	return c
}

func (w *counterWorld) IDs() *rand.PCG { return &w.ids }

func (w *counterWorld) Actions(a *Actions) {
	a.Masks = append(a.Masks[:0], make([]Mask, len(w.fed))...)
	a.Weights, a.Enabled, a.Left = [spec.NumActionKinds]uint32{}, false, 0
	if w.set.Weights[spec.ActFeed] == 0 {
		return
	}
	a.Left = 1 << spec.ActFeed
	for i, n := range w.fed {
		if n < w.limit {
			a.Masks[i] = 1 << spec.ActFeed
			a.Weights[spec.ActFeed], a.Enabled = 1, true
		}
	}
}

func (w *counterWorld) Step(weights []uint32, masks []Mask) spec.ActionKind {
	k := spec.ActionKind(w.ch.Choose("action", weights))
	procs := make([]uint32, len(masks))
	for i, m := range masks {
		if m&(1<<k) != 0 {
			procs[i] = 1
		}
	}
	p := w.ch.Choose("process", procs)
	w.fed[p]++
	w.script = append(w.script, spec.ScriptedAction{Kind: k, Process: w.ProcessName(p), Topic: fmt.Sprintf("t%d", p)})
	w.local = TransitionKey{Kind: k, Proc: p, Topic: p}
	if w.violating && p == 0 && w.fed[0] == w.limit && w.fed[1] == 0 {
		w.found = append(w.found, spec.Violation{Criterion: spec.CritS1, Process: 1, Detail: "p0 full first"})
	}
	return k
}

func (w *counterWorld) Replay(ch choose.Chooser) spec.ActionKind {
	var a Actions
	w.Actions(&a)
	w.ch = ch
	return w.Step(a.Weights[:], a.Masks)
}

func (w *counterWorld) TakeScript(dst []spec.ScriptedAction) []spec.ScriptedAction {
	dst = append(dst, w.script...)
	w.script = w.script[:0]
	return dst
}

func (w *counterWorld) Violations() []spec.Violation    { return w.found }
func (w *counterWorld) Settings() *swarm.Settings       { return w.set }
func (w *counterWorld) SetSettings(set *swarm.Settings) { w.set = set }
func (w *counterWorld) Finish()                         {}
func (w *counterWorld) Processes() int                  { return len(w.fed) }
func (w *counterWorld) Restartable(i int) bool          { return w.fed[i] > 0 }
func (w *counterWorld) Restart(i int)                   { w.restarted = i }
func (w *counterWorld) ProcessName(i int) string        { return fmt.Sprintf("p%d", i) }

func (w *counterWorld) Result() *spec.Result {
	r := &spec.Result{Verdict: "pass", Violations: w.found}
	if len(w.found) > 0 {
		r.Verdict = "violation"
	}
	return r
}

func (w *counterWorld) LocalTransition() (TransitionKey, bool) { return w.local, len(w.script) == 1 }

func (w *counterWorld) Deliveries() [][]uint64 {
	out := make([][]uint64, len(w.fed))
	for i, n := range w.fed {
		for u := range n {
			out[i] = append(out[i], uint64(i<<8|u))
		}
		if i == w.buggy && w.restarted == i && n > 0 {
			out[i] = out[i][:n-1]
		}
	}
	return out
}

// counterHasher hashes a counterWorld's counters and the search's extra bytes. Its first word
// is small, so every state is sampled for the restart check (restartSampled).
type counterHasher struct{}

func (counterHasher) Hash(w World, extra []byte) HashKey {
	c := w.(*counterWorld)
	var k uint64
	for _, n := range c.fed {
		k = k*16 + uint64(n)
	}
	h := fnv.New64a()
	_ = binary.Write(h, binary.LittleEndian, k)
	h.Write(extra)
	return HashKey{k, h.Sum64()}
}

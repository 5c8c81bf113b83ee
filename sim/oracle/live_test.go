package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/parsleysim/parsleysim/node"
)

// TestLiveIncarnationMatchesScan creates, recreates and deletes topics at random, as the world
// does (a recreation kills the old incarnation before creating the new one's channels), clones
// the oracle now and then and goes on changing both, and after every change holds each channel's
// live incarnation and recreated answer to a scan of every channel: the per-topic record the
// oracle keeps must follow each change, and a clone's changes must not reach the original's.
func TestLiveIncarnationMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	scan := func(o *Oracle, c int32) int32 {
		for i := len(o.ids) - 1; i >= 0; i-- {
			if o.ids[i].topic == o.ids[c].topic && o.logs[i].alive {
				return o.ids[i].inc
			}
		}
		return -1
	}
	type world struct {
		o    Oracle
		incs [][2]int32 // per incarnation: first channel, partitions
		cur  []int32    // per topic: live incarnation or -1
	}
	const topics = 6
	newWorld := func() *world {
		w := &world{o: New(make([]string, topics), nil, 0), cur: make([]int32, topics)}
		for t := range topics {
			w.cur[t] = -1
		}
		return w
	}
	create := func(w *world, t int) {
		if w.cur[t] >= 0 {
			in := w.incs[w.cur[t]]
			w.o.OnIncarnationDead(in[0], int(in[1]))
		}
		inc, parts := int32(len(w.incs)), int32(1+rng.IntN(3))
		w.incs = append(w.incs, [2]int32{int32(len(w.o.ids)), parts})
		for p := range parts {
			w.o.OnChannelCreated(int32(len(w.o.ids)), node.Channel{Topic: node.TopicID{byte(inc + 1)}, Partition: node.Partition(p)}, t, inc, p)
		}
		w.cur[t] = inc
	}
	check := func(w *world, step int) {
		for c := range w.o.ids {
			live := scan(&w.o, int32(c))
			if got := w.o.liveInc(int32(c)); got != live || got != w.cur[w.o.ids[c].topic] {
				t.Fatalf("step %d: channel %d: live incarnation %d, the scan says %d, the test's record %d",
					step, c, got, live, w.cur[w.o.ids[c].topic])
			}
			want := !w.o.logs[c].alive && live >= 0 && live != w.o.ids[c].inc
			if got := w.o.recreated(int32(c)); got != want {
				t.Fatalf("step %d: channel %d: recreated %v, the scan says %v", step, c, got, want)
			}
		}
	}
	worlds := []*world{newWorld()}
	for t := range topics - 1 { // one topic is created later, past the others' channels
		create(worlds[0], t)
	}
	for step := range 2000 {
		w := worlds[rng.IntN(len(worlds))]
		switch t := rng.IntN(topics); {
		case rng.IntN(10) == 0 && len(worlds) < 8:
			c := &world{o: w.o, incs: append([][2]int32(nil), w.incs...), cur: append([]int32(nil), w.cur...)}
			c.o.CloneFrom(&w.o, Storage{})
			worlds = append(worlds, c)
		case w.cur[t] >= 0 && rng.IntN(3) == 0: // a deletion
			in := w.incs[w.cur[t]]
			w.o.OnIncarnationDead(in[0], int(in[1]))
			w.cur[t] = -1
		default: // a creation or a recreation
			create(w, t)
		}
		for _, w := range worlds {
			check(w, step)
		}
	}
}

package sim

import (
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// TestObservedNamesNoWorld fails when a method of Observed takes or returns a type of package
// world: a result handed to a caller exposes no way to write into it as the world's observer.
func TestObservedNamesNoWorld(t *testing.T) {
	typ := reflect.TypeOf(&Observed{})
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		for _, u := range slices.Concat(slices.Collect(m.Type.Ins()), slices.Collect(m.Type.Outs())) {
			for u.Kind() == reflect.Pointer || u.Kind() == reflect.Slice {
				u = u.Elem()
			}
			if u.PkgPath() == "github.com/parsleysim/parsleysim/sim/world" {
				t.Errorf("Observed.%s names world.%s", m.Name, u.Name())
			}
		}
	}
}

// chainScope: p1 reads ext and sends to mid; p2 reads both.
func chainScope() *spec.Scenario {
	return &spec.Scenario{Name: "chain",
		Topics: []spec.TopicSpec{{Name: "ext", Partitions: 1, External: true}, {Name: "mid", Partitions: 1}},
		Processes: []spec.ProcessSpec{
			{Name: "p1", Receives: []string{"ext"}, Sends: []string{"mid"}},
			{Name: "p2", Receives: []string{"ext", "mid"}},
		}}
}

// act is one scripted action.
func act(k spec.ActionKind, process, topic string) spec.ScriptedAction {
	return spec.ScriptedAction{Kind: k, Process: process, Topic: topic}
}

// chainScript is n rounds of: produce to ext, p1 delivers it and forwards it to mid, p2 delivers
// both; every fourth round p2 crashes before committing (its deliveries of the round are taken
// back) and starts again.
func chainScript(n int) []spec.ScriptedAction {
	var script []spec.ScriptedAction
	for i := range n {
		script = append(script, act(spec.ActProducePlain, "", "ext"),
			act(spec.ActFeed, "p1", "ext"), act(spec.ActDrain, "p1", ""), act(spec.ActCommit, "p1", ""),
			act(spec.ActFeed, "p2", "ext"), act(spec.ActFeed, "p2", "mid"), act(spec.ActDrain, "p2", ""))
		if i%4 == 3 {
			script = append(script, act(spec.ActCrash, "p2", ""), act(spec.ActStart, "p2", ""))
		} else {
			script = append(script, act(spec.ActCommit, "p2", ""))
		}
	}
	return script
}

func observeChain(n int) *Observed {
	scn := chainScope()
	scn.Script = chainScript(n)
	return RunObserved(scn, swarm.Settings{Seed: 1}, choose.NewRandom(1), RunOptions{})
}

// TestObservedViewsMatchTheRun: the views RunObserved keeps give, at every snapshot, each
// process's deliveries as the run made them, and at the end exactly Run's delivery sequences;
// a snapshot lists a process only when its view changed.
func TestObservedViewsMatchTheRun(t *testing.T) {
	scn := chainScope()
	scn.Script = chainScript(12)
	ob := RunObserved(scn, swarm.Settings{Seed: 1}, choose.NewRandom(1), RunOptions{})
	res := Run(scn, swarm.Settings{Seed: 1}, choose.NewRandom(1), RunOptions{})
	end := len(ob.Snapshots) - 1
	for i := range scn.Processes {
		if got := ob.View(end, i).Delivered(); !slices.Equal(got, res.Deliveries[i]) {
			t.Fatalf("process %d delivered %v at the end, Run says %v", i, got, res.Deliveries[i])
		}
	}
	crashes := 0
	for k := 1; k < len(ob.Snapshots); k++ {
		a := ob.Snapshots[k].Action
		if a >= 0 && a < len(scn.Script) && scn.Script[a].Kind == spec.ActCrash {
			crashes++
			before, after := ob.View(k-1, 1).Delivered(), ob.View(k, 1).Delivered()
			if len(after) != len(before)-2 || !slices.Equal(after, before[:len(after)]) {
				t.Fatalf("the crash at action %d left %v of %v", a, after, before)
			}
		}
		for i := range scn.Processes {
			prev, now := ob.View(k-1, i), ob.View(k, i)
			if changed := slices.Contains(ob.Snapshots[k].Changed, i); changed == sameView(&prev, &now) {
				t.Fatalf("snapshot %d: process %d listed as changed %v, but its view changed %v", k, i, changed, !sameView(&prev, &now))
			}
		}
	}
	if crashes != 3 {
		t.Fatalf("%d crashes observed, want 3", crashes)
	}
}

// TestObservedMemoryIsLinear: observing a script four times as long allocates about four times
// as much (it was quadratic: every snapshot copied every process's whole delivery list).
func TestObservedMemoryIsLinear(t *testing.T) {
	allocated := func(n int) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		observeChain(n)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(500), allocated(2000)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Fatalf("observing 2,000 rounds allocated %d bytes, 500 rounds %d: %.1f times for 4 times the script", large, small, ratio)
	}
}

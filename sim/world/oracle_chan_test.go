package world

import (
	"reflect"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// checkingChooser runs check before every choice of a run, between its actions.
type checkingChooser struct {
	choose.Chooser
	check func()
}

func (c checkingChooser) Choose(label string, weights []uint32) int {
	c.check()
	return c.Chooser.Choose(label, weights)
}

// executionFacts are what the host and the oracle both know of a channel in an execution.
type executionFacts struct {
	received          bool
	startPos, lastFed int64
}

// oracleExecutionFacts reads the per-execution facts of every channel state of o, by channel. The
// oracle keeps them to itself (its canonical encoding leaves them out because they repeat the
// host's): the test reads them by reflection.
func oracleExecutionFacts(o *oracle.Proc) map[int32]executionFacts {
	out := map[int32]executionFacts{}
	list := reflect.ValueOf(o).Elem().FieldByName("list")
	for i := range list.Len() {
		oc := list.Index(i).Elem()
		out[int32(oc.FieldByName("ch").Int())] = executionFacts{oc.FieldByName("received").Bool(),
			oc.FieldByName("startPos").Int(), oc.FieldByName("lastFed").Int()}
	}
	return out
}

// TestOracleExecutionFactsAreTheHosts runs swarm seeds and checks, before every choice, that the
// oracle knows exactly the channels the host keeps a read state for, and that its per-execution
// facts of each (received, start position, last position fed) are the host's: what lets the
// explorer's hash leave them out of the oracle's encoding. It fails if an event the oracle
// learns them from is missing or misplaced.
func TestOracleExecutionFactsAreTheHosts(t *testing.T) {
	checks, restarted := 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		set := swarm.ExpandSettings(seed)
		var w *World
		check := func() {
			for _, p := range w.procs {
				facts := oracleExecutionFacts(&p.o)
				if len(facts) != p.pcs.Len() {
					t.Fatalf("seed %d step %d: %s: the oracle knows %d channels, the host %d", seed, w.step, p.spec.Name, len(facts), p.pcs.Len())
				}
				for _, pc := range p.pcs.Values() {
					oc, ok := facts[pc.ch]
					if !ok || oc != (executionFacts{pc.received, pc.startPos, pc.lastFed}) {
						t.Fatalf("seed %d step %d: %s channel %d: oracle %+v (known: %v), host %+v", seed, w.step, p.spec.Name, pc.ch, oc, ok, pc)
					}
					checks++
					if pc.startPos > 0 {
						restarted++
					}
				}
			}
		}
		w = newWorld(diamondScenario(), &set, checkingChooser{choose.NewRandom(seed), check}, &RunOptions{})
		w.run()
	}
	if checks == 0 || restarted == 0 {
		t.Fatalf("%d channel states compared, %d after a restart from a committed position: the runs exercise nothing", checks, restarted)
	}
}

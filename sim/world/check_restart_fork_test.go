package world

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// TestRestartForkMatchesRerun holds the restart check's fork to the rerun it stands for
// (ForkMatchesRerun) on honest runs and under every sabotage mode, on the diamond and the session
// shop, at drawn restart points; package world_test does the same on the sweep's scenarios.
func TestRestartForkMatchesRerun(t *testing.T) {
	modes := []spec.SabotageMode{{Name: "NONE"}}
	modes = append(modes, spec.SabotageModes()...)
	var n [ForkContinued + 1]int
	for _, scn := range []func() *spec.Scenario{diamondScenario, func() *spec.Scenario { return shop() }} {
		for _, m := range modes {
			seeds := uint64(6)
			if m.Name == "NONE" {
				seeds = 60
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				set := swarm.ExpandSettings(seed)
				set.RestartCheck = swarm.RestartCheck{On: true, Process: int(seed), AtPermille: int(seed * 137 % 1000)}
				if seed%3 == 0 {
					set.LivenessStepsMax = 0 // the run ends sharing with its fork what it did not act on since
				}
				f, err := ForkMatchesRerun(scn, set, RunOptions{Sabotage: m.Engine, HostSabotage: m.Host})
				if err != nil {
					t.Fatalf("%s/%s/seed %d: %v", scn().Name, m.Name, seed, err)
				}
				n[f]++
			}
		}
	}
	t.Logf("%d reruns continued a fork and restarted, %d continued one without a restart, %d replayed the whole script",
		n[ForkContinued], n[ForkUnrestarted], n[ForkNotTaken])
	if n[ForkContinued] < 3*n[ForkNotTaken] || n[ForkContinued] < 100 {
		t.Fatalf("only %d of %d checked runs forked and restarted", n[ForkContinued], n[ForkContinued]+n[ForkUnrestarted]+n[ForkNotTaken])
	}
}

// ForkOutcome says what ForkMatchesRerun compared.
type ForkOutcome int

const (
	ForkUnchecked   ForkOutcome = iota // the run failed: its restart check does not run
	ForkNotTaken                       // the run took no fork at the planned point: the check replays the whole script
	ForkUnrestarted                    // the check continued the run's fork, which matched the whole rerun: neither restarted
	ForkContinued                      // the check continued the run's fork, restarted, and it matched the whole rerun
)

// ForkMatchesRerun runs scn under set (whose restart check must be on) as package sim runs it and
// holds the restart check's fork to the rerun it stands for. The run that forks is the run that
// does not (same trace, same result); the rerun continued from the fork (restartFork) ends
// exactly as the script replayed from the start does — where the restart went, every process's
// deliveries, every violation with its step and text, the steps and the virtual end time; and
// the fork's rerun changes neither the run's result nor its world (canonical hash, clock, steps,
// stats, violations, deliveries), owns every process it ran (forkOwns), and does not let the
// reference nodes judge on. It fails when the fork shares with its run anything either side goes
// on to change in place.
func ForkMatchesRerun(scn func() *spec.Scenario, set swarm.Settings, opts RunOptions) (ForkOutcome, error) {
	plain, _, plainHash := firstRun(scn(), set, opts, false)
	res, w, hash := firstRun(scn(), set, opts, true)
	if hash.Sum() != plainHash.Sum() || !sameResult(res, plain) {
		return ForkUnchecked, errors.New("the run that forked differs from the run that did not")
	}
	if res.Verdict != "pass" {
		return ForkUnchecked, nil // the check judges passing runs only
	}
	f := w.opts.fork
	if f == nil || f.world == nil || f.at != len(res.Script)*set.RestartCheck.AtPermille/1000 {
		return ForkNotTaken, nil
	}
	result := func() string { return fmt.Sprint(res.Deliveries, res.Violations, res.Script, res.Stats) }
	before, world := result(), worldDigest(w, &set)
	refs := refChanges(f.world)
	got, gotAt := rerun(w, res)
	if result() != before {
		return ForkContinued, errors.New("the fork's rerun changed the run's result")
	}
	if d := worldDigest(w, &set); d != world {
		return ForkContinued, fmt.Errorf("the fork's rerun changed the run's world:\nbefore: %s\nafter:  %s", world, d)
	}
	if err := forkOwns(f.world, w); err != nil {
		return ForkContinued, err
	}
	if n := refChanges(f.world); n != refs {
		return ForkContinued, fmt.Errorf("the fork's reference nodes went on judging (%d calls, %d at the fork)", n, refs)
	}
	w.opts.fork = nil // the rerun replays the whole script
	want, wantAt := rerun(w, res)
	if gotAt != wantAt {
		return ForkContinued, fmt.Errorf("the fork restarted %+v, the whole rerun %+v", gotAt, wantAt)
	}
	if !sameResult(got, want) {
		return ForkContinued, fmt.Errorf("the fork's rerun differs from the whole rerun:\nfork:  %d steps, end %d µs, %v, %v\nwhole: %d steps, end %d µs, %v, %v",
			got.Steps, got.Stats.EndMicros, got.Violations, got.Deliveries, want.Steps, want.Stats.EndMicros, want.Violations, want.Deliveries)
	}
	if gotAt.at < 0 {
		return ForkUnrestarted, nil
	}
	return ForkContinued, nil
}

// rerun runs the restart check's rerun of the run w made, whose result is res, and returns its
// result and where its restart went.
func rerun(w *World, res *spec.Result) (*spec.Result, restartPoint) {
	re, from := w.RestartRerun(res)
	return re.runFrom(from), *re.opts.restart
}

// forkOwns reports a process of the fork c whose state it still shares with the run's world w
// after its rerun: the fork changes its processes in place (scripted actions do not own them),
// so it must own each before its first action.
func forkOwns(c, w *World) error {
	for i, cp := range c.procs {
		p := w.procs[i]
		if cp.share.shared {
			return fmt.Errorf("the fork's %s shares its state with the run's", cp.spec.Name)
		}
		if cp.eng != nil && cp.eng == p.eng {
			return fmt.Errorf("the fork's %s changes the run's engine reference", cp.spec.Name)
		}
		states := map[*pcState]bool{}
		for _, pc := range p.pcs.Values() {
			states[pc] = true
		}
		for _, pc := range cp.pcs.Values() {
			if states[pc] {
				return fmt.Errorf("the fork's %s changes the run's host state of channel %d", cp.spec.Name, pc.ch)
			}
		}
	}
	return nil
}

// refChanges counts the calls the reference nodes of w's processes took.
func refChanges(w *World) int {
	n := 0
	for _, p := range w.procs {
		n += p.ref.Changes()
	}
	return n
}

// worldDigest describes w's state: its canonical hash, exact and with every cached digest
// recomputed (a verifying hasher panics on a stale one), and what the hash may leave out — the
// step, the clock, the stamped producers' ring, the stats, the violations and every process's
// deliveries.
func worldDigest(w *World, set *swarm.Settings) string {
	h := newStateHasher(set)
	h.Exact, h.Verify = true, true
	deliveries := make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		deliveries[i] = p.o.DeliverySequence()
	}
	return fmt.Sprint(h.Hash(w, nil), w.step, w.clock.Now(), w.recent, w.stats, w.or.Violations(), deliveries)
}

// firstRun runs scn under set as New makes a run whose restart check is on, recording its
// script, with the check's fork when fork is set, and returns its result, its world and its
// trace's hash.
func firstRun(scn *spec.Scenario, set swarm.Settings, opts RunOptions, fork bool) (*spec.Result, *World, *trace.HashSink) {
	h := trace.NewHashSink()
	opts.RecordScript, opts.Sinks = true, []trace.Sink{h}
	if fork {
		opts.restartCheck = true
		opts.fork = &restartFork{at: set.SafetySteps * set.RestartCheck.AtPermille / 1000}
	}
	w := newWorld(scn, &set, choose.NewRandom(set.Seed), &opts)
	return w.run(), w, h
}

// sameResult reports whether two runs ended alike: deliveries, violations, steps and the virtual
// time figures.
func sameResult(a, b *spec.Result) bool {
	return a.Verdict == b.Verdict && reflect.DeepEqual(a.Deliveries, b.Deliveries) &&
		reflect.DeepEqual(a.Violations, b.Violations) && a.Steps == b.Steps &&
		a.Stats.EndMicros == b.Stats.EndMicros && a.Stats.Deliveries == b.Stats.Deliveries &&
		a.Stats.HeldReleased == b.Stats.HeldReleased
}

// TestForkKeepsItsSets: the process sets of a run's fork (World.readers, declarers, topicIncs)
// stay as they were at the fork while the run goes on changing its own (a redeclaration, a
// recreated topic), so the fork is the world it was taken as even where nothing the restart
// check does reads it.
func TestForkKeepsItsSets(t *testing.T) {
	changed := 0
	for seed := uint64(1); seed <= 20; seed++ {
		set := swarm.ExpandSettings(seed)
		opts := RunOptions{RecordScript: true}
		w := newWorld(diamondScenario(), &set, choose.NewRandom(seed), &opts)
		w.Start()
		for range set.SafetySteps / 4 {
			w.SafetyStep()
		}
		c := w.fork()
		sets := func(w *World) string { return fmt.Sprint(w.readers, w.declarers, w.topicIncs) }
		atFork := sets(c)
		w.runFrom(0)
		if sets(w) != atFork {
			changed++
		}
		if got := sets(c); got != atFork {
			t.Fatalf("seed %d: the fork's sets moved with the run's:\nat the fork: %s\nnow:         %s", seed, atFork, got)
		}
	}
	if changed == 0 {
		t.Fatal("no run changed its sets after the fork")
	}
}

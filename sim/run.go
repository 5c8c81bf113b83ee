package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// HostSabotage selects a deliberate fault of the simulated host, like node.Sabotage for the
// engine: it exists only to prove the checkers bite. The zero value is the honest host.
type HostSabotage uint8

const (
	// HostHonest is the honest host.
	HostHonest HostSabotage = iota
	// HostResetPastLogStart resets a fetch below the log start to the log start instead of failing
	// closed (auto.offset.reset=earliest), silently skipping unread records.
	HostResetPastLogStart
	// HostStateBeforeCommit writes a step's ordering state to the state store by itself before
	// the step's transaction commits (a state store flushed before the commit), so a crash
	// between the two leaves the state of a step that never committed (host_commit.go).
	HostStateBeforeCommit
	// HostStateAfterCommit writes a step's ordering state to the state store by itself after the
	// step's transaction committed, so a crash between the two loses the state of a step that
	// committed.
	HostStateAfterCommit
	// HostOffsetsOutsideTxn commits a step's read positions with a plain offset commit before its
	// transaction instead of sending them into it, so a crash before the transaction commits (or a
	// zombie, whose offset commit no fence stops) skips records the step was fed.
	HostOffsetsOutsideTxn
	// HostZombieIgnoresFence takes a commit its fenced producer refused for done and writes the
	// step's ordering state anyway: a zombie's step reaches the state store.
	HostZombieIgnoresFence
)

// hostSabotageNames are the host's modes by documented name, in order.
var hostSabotageNames = []struct {
	mode HostSabotage
	name string
}{
	{HostResetPastLogStart, "RESET_PAST_LOG_START"}, {HostStateBeforeCommit, "STATE_BEFORE_COMMIT"},
	{HostStateAfterCommit, "STATE_AFTER_COMMIT"}, {HostOffsetsOutsideTxn, "OFFSETS_OUTSIDE_TXN"},
	{HostZombieIgnoresFence, "ZOMBIE_IGNORES_FENCE"},
}

// HostSabotageNames returns the names of the host's sabotage modes (not the session tiers'), in
// their documented order.
func HostSabotageNames() []string {
	out := make([]string, len(hostSabotageNames))
	for i, e := range hostSabotageNames {
		out[i] = e.name
	}
	return out
}

// IsHostSabotage reports whether name is one of the host's sabotage modes (not a session tier's).
func IsHostSabotage(name string) bool {
	_, ok := parseHostSabotage(name)
	return ok
}

// parseHostSabotage resolves a host mode's name.
func parseHostSabotage(name string) (HostSabotage, bool) {
	for _, e := range hostSabotageNames {
		if e.name == name {
			return e.mode, true
		}
	}
	return HostHonest, false
}

// String returns the mode's documented name ("RESET_PAST_LOG_START"; "NONE" for the honest host).
func (h HostSabotage) String() string {
	for _, e := range hostSabotageNames {
		if e.mode == h {
			return e.name
		}
	}
	if name, ok := sessionSabotageNames[h]; ok {
		return name
	}
	return "NONE"
}

// ParseSabotage resolves a sabotage name of any tier: an engine mode (node.ParseSabotage), a
// host mode (HostSabotageNames), or a session tier's mode (SessionSabotageModes), which is
// returned as a HostSabotage. An unknown name is an error listing every valid name.
func ParseSabotage(name string) (node.Sabotage, HostSabotage, error) {
	if m, ok := parseHostSabotage(name); ok {
		return node.SabotageNone, m, nil
	}
	if m, ok := parseSessionSabotage(name); ok {
		return node.SabotageNone, m, nil
	}
	s, err := node.ParseSabotage(name)
	if err != nil {
		names := []string{"NONE"}
		for _, m := range node.SabotageModes() {
			names = append(names, m.String())
		}
		names = append(names, HostSabotageNames()...)
		names = append(names, SessionSabotageNames()...)
		return 0, 0, fmt.Errorf("unknown sabotage mode %q (valid: %s)", name, strings.Join(names, ", "))
	}
	return s, HostHonest, nil
}

// RunOptions are the parts of a run that are not settings: sabotage, the data streams and the
// trace sinks.
type RunOptions struct {
	Sabotage     node.Sabotage // engine sabotage (zero = honest)
	HostSabotage HostSabotage  // host sabotage (zero = honest)
	Streams      Streams       // if zero, NewStreams(set.Seed)
	Sinks        []trace.Sink  // every event goes to each, in order
	// RecordScript makes Result.Script the safety phase's actions as a script: the same run
	// replayed as Scenario.Script, robust to actions being removed or inserted.
	RecordScript bool
	// Disabled lists criteria the oracle does not report (a disabled REFERENCE does not even run
	// its reference nodes), for tests only: one that shows what a criterion alone catches (the run
	// passes without it), or that judges what the other criteria catch (a diagram of the S1
	// violation IGNORE_CAUSES makes). No command sets it.
	Disabled []Criterion

	hooks *testHooks
	// journal makes every engine keep a journal of its calls, so the world can be cloned
	// (world_clone.go); the explorer sets it.
	journal bool
	restart *restartPoint
}

// reports reports whether the oracle reports violations of criterion c (RunOptions.Disabled).
func (o *RunOptions) reports(c Criterion) bool { return !slices.Contains(o.Disabled, c) }

// Result is the outcome of a run.
type Result struct {
	Seed       uint64
	Verdict    string // "pass" or "violation"
	Violations []Violation
	Stats      Stats
	Steps      int
	Choices    []int // every answer the Chooser gave, in order (for replay and shrinking)
	// Deliveries lists, per process, the uids of its committed first deliveries in delivery
	// order (the metamorphic restart check compares them).
	Deliveries [][]uint64 `json:"-"`
	// Script is the safety phase as a script, when RunOptions.RecordScript was set.
	Script []ScriptedAction `json:"-"`
}

// Run executes one run of scn under set, making every schedule and fault decision through ch:
// the safety phase (set.SafetySteps actions chosen by ch, or scn.Script when given), then the
// liveness phase (faults off; every process started, fed, drained and committed until nothing
// moves, at most set.LivenessStepsMax actions; skipped when that is 0), then the end-of-run
// checks, and, when set.RestartCheck asks for it and the run passed, the restart check
// (check_restart.go: the script once more with a clean restart inserted; not with opts.Streams
// given, which cannot be drawn again). It is deterministic: no map order, goroutine or wall clock reaches the result.
func Run(scn *Scenario, set Settings, ch choose.Chooser, opts RunOptions) *Result {
	if err := scn.Validate(); err != nil {
		panic("sim: " + err.Error())
	}
	check := set.RestartCheck.On && opts.restart == nil && opts.Streams.isZero() && opts.reports(CritRestartInvisibility)
	caller := opts
	if check {
		opts.RecordScript = true
	}
	res := newWorld(scn, &set, ch, &opts).run()
	if check && res.Verdict == "pass" {
		if vs := checkRestart(scn, set, caller, res); len(vs) > 0 {
			res.Violations, res.Verdict = append(res.Violations, vs...), "violation"
		}
	}
	if !caller.RecordScript {
		res.Script = nil
	}
	return res
}

// run executes the phases of a run and returns its result.
func (w *world) run() *Result {
	w.hooks = w.opts.hooks
	scn := w.scn
	for _, p := range w.procs {
		w.step++
		w.action = spec.ActStart
		p.start(true)
	}
	if len(scn.Script) > 0 {
		w.runScript(scn.Script)
	} else {
		w.safetyPhase()
	}
	w.stats.SafetySteps = w.step
	if w.set.LivenessStepsMax > 0 {
		w.livenessPhase()
		w.checkLiveness()
	}
	w.checkCausalOrderLifetime()
	return w.result()
}

// safetyPhase runs the scheduled actions of the safety phase.
func (w *world) safetyPhase() {
	masks := make([]procMask, len(w.procs))
	for n := 0; n < w.set.SafetySteps; n++ {
		k, ok := w.chooseAction(masks)
		if !ok {
			return
		}
		w.step++
		w.do(k, masks)
	}
}

// result assembles the Result.
func (w *world) result() *Result {
	w.stats.finish(w.clock.nowMicros, &w.lat)
	r := &Result{Seed: w.set.Seed, Verdict: "pass", Violations: w.violations, Stats: w.stats,
		Steps: w.step, Choices: w.chooser.Choices(), Script: w.script}
	if len(w.violations) > 0 {
		r.Verdict = "violation"
	}
	r.Deliveries = make([][]uint64, len(w.procs))
	for i, p := range w.procs {
		r.Deliveries[i] = p.deliverySequence()
	}
	return r
}

// deliverySequence returns p's committed first deliveries in delivery order.
func (p *proc) deliverySequence() []uint64 {
	seq := make([]uint64, p.o.deliveries)
	for _, pc := range p.pcList {
		for _, d := range pc.delivered {
			seq[d.index] = d.uid
		}
	}
	return seq
}

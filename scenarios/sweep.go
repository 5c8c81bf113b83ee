package scenarios

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/replay"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
)

// Sweeps: one Spec run over an inclusive range of seeds on a pool of worker goroutines. Each seed
// is an independent, deterministic run (its own scenario, settings and seeded chooser), so a
// seed's outcome does not depend on the number of workers; outcomes are handed to the caller and
// folded into the report in seed order. The driver lives here, below cmd/, so tests (the
// catch-rate floors, the vacuity guard) use the same code as `simrun sweep`.

// CritPanic is the criterion a sweep reports for a seed whose run panicked: a simulator crash is
// a failure with a replay command like any violation, never the end of the sweep.
const CritPanic spec.Criterion = "PANIC"

// SweepConfig says what to sweep: the Spec (scenario, sabotage, overrides; its Seed is ignored),
// the inclusive seed range and the number of workers.
type SweepConfig struct {
	Spec        Spec
	First, Last uint64 // inclusive; First <= Last
	Workers     int    // worker goroutines; 0 means runtime.GOMAXPROCS(0)
	// Shard, when set, runs only the seeds of the range that shard owns (sweep_shard.go).
	Shard Shard
	// Replays makes every failing seed's outcome carry its replay (SeedOutcome.Replay), for
	// `simrun sweep --save-failures`. It hashes every run's trace, as TraceDigest does.
	Replays bool
	// TraceDigest makes every run hash its trace (as `simrun --seed N` does) and the report carry
	// TraceDigest, a digest of every seed's trace hash in seed order. Tracing makes each run
	// slower, so it is off unless asked for.
	TraceDigest bool
	// Visit, when set, is called with every finished seed in seed order, from the goroutine that
	// called Sweep.
	Visit func(SeedOutcome)
	// Progress, when set, is called after every finished seed (in completion order) with the
	// number of seeds finished and failed so far, from the goroutine that called Sweep.
	Progress func(done, failed int)
	// Live, when not the model, runs every seed on a live substrate (a kfake cluster of its own,
	// or fresh topic names on real brokers), compared with the model when Live.Compare is set.
	Live Live
	// Without lists criteria the runs do not judge (sim.RunOptions.Disabled): without REFERENCE
	// no reference node runs beside the engines, without RESTART_INVISIBILITY no run is repeated
	// with a restart, and any other criterion is only not reported. It measures what a check
	// costs; a sweep so run vouches for none of them.
	Without []spec.Criterion
}

// SeedOutcome is what a sweep keeps of one run: its verdict, the distinct criteria it violated
// (first-seen order), its first violation, its stats and whether its settings make it eligible
// for the swept sabotage mode.
type SeedOutcome struct {
	Seed       uint64
	Verdict    string // "pass", "violation" or "panic"
	Criteria   []spec.Criterion
	Violations []spec.Violation
	Stats      spec.Stats
	Steps      int
	Eligible   bool // the settings switch on a fault class the sabotage mode needs (false when honest)
	// TraceHash is the run's trace hash (trace.HashSink.Sum64), when the sweep asked for
	// SweepConfig.TraceDigest; 0 otherwise.
	TraceHash uint64
	// Fired says an action of a fault class the mode needs was taken in the run (every run for a
	// mode that needs none; false when honest): eligible seeds whose fault never fired cannot
	// expose the mode, so the catch rate over fired seeds measures the checkers alone.
	Fired bool
	// Replay is a failing run's replay file, when the sweep asked for replays (SweepConfig.Replays).
	Replay *replay.File
	// Compared says the run was compared with the model (Live.Compare); a divergence is a
	// violation of CritModelDivergence.
	Compared bool
}

// Failed reports whether the seed's run failed (a violation or a panic).
func (o SeedOutcome) Failed() bool { return o.Verdict != "pass" }

// Sweep runs cfg.Spec for every seed from cfg.First to cfg.Last on cfg.Workers goroutines and
// returns the report. Cancelling ctx stops handing out seeds; runs already started finish and are
// reported, and the report says Interrupted. An error means the Spec itself is bad (unknown
// scenario or sabotage, a bad override, an empty range, a seed it does not prepare for), naming
// the bad input, or that a live substrate failed (wrapping ErrLiveFailed, naming the seed): an
// infrastructure failure is not a seed's verdict. When a seed stopped the sweep that way, the
// report of the seeds that ran (Interrupted) comes with the error, so their findings are not lost.
func Sweep(ctx context.Context, cfg SweepConfig) (*SweepReport, error) {
	if cfg.First > cfg.Last {
		return nil, fmt.Errorf("seed range %d-%d is empty (first > last)", cfg.First, cfg.Last)
	}
	if cfg.Last-cfg.First == math.MaxUint64 {
		return nil, fmt.Errorf("seed range %d-%d holds 2^64 seeds: at most 2^64-1", cfg.First, cfg.Last)
	}
	if err := cfg.Shard.Check(); err != nil {
		return nil, err
	}
	spec := cfg.Spec.Normalize()
	spec.Seed = cfg.First
	if _, err := spec.Prepare(); err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := cfg.Live.Check(); err != nil {
		return nil, err
	}
	rep := newSweepReport(spec, cfg.First, cfg.Last, cfg.TraceDigest)
	rep.live = cfg.Live
	if !cfg.Live.IsModel() {
		rep.Substrate = cfg.Live.Substrate
	}
	if cfg.Live.Compare {
		rep.ComparedSeeds, rep.AgreedSeeds = new(int), new(int)
	}
	rep.Shard, rep.shard = cfg.Shard.String(), cfg.Shard
	results := make(chan seedResult, workers)
	run := runOptions{hashTrace: cfg.TraceDigest || cfg.Replays, replays: cfg.Replays, live: cfg.Live, without: cfg.Without}
	rep.Without = slices.Clone(cfg.Without)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go feedSeeds(ctx, spec, cfg, workers, run, results)

	pending := map[uint64]SeedOutcome{} // finished out of order, waiting for their predecessors
	next, more := cfg.Shard.firstSeed(cfg.First, cfg.Last)
	done, failed := 0, 0
	var bad *seedResult // the lowest seed that did not prepare
	for r := range results {
		if r.err != nil {
			if bad == nil || r.out.Seed < bad.out.Seed {
				bad = &r
			}
			stop()
			continue
		}
		o := r.out
		done++
		if o.Failed() {
			failed++
		}
		pending[o.Seed] = o
		for more {
			ready, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			rep.add(ready, cfg.Visit)
			next, more = cfg.Shard.nextSeed(next, cfg.Last)
		}
		if cfg.Progress != nil {
			cfg.Progress(done, failed)
		}
	}
	// After an interruption the finished seeds may have gaps: report them in seed order too.
	rest := make([]uint64, 0, len(pending))
	for seed := range pending {
		rest = append(rest, seed)
	}
	slices.Sort(rest)
	for _, seed := range rest {
		rep.add(pending[seed], cfg.Visit)
	}
	rep.Interrupted = uint64(rep.Runs) < cfg.Shard.SeedCount(cfg.First, cfg.Last)
	rep.finish()
	if bad != nil {
		return rep, bad.err
	}
	return rep, nil
}

// seedResult is one seed's outcome, or the error that it did not prepare.
type seedResult struct {
	out SeedOutcome
	err error
}

// runOptions say what a sweep's run keeps besides the verdict: the trace hash, the replay of a
// failing seed.
type runOptions struct {
	hashTrace, replays bool
	live               Live
	without            []spec.Criterion // SweepConfig.Without
}

// feedSeeds runs the seeds of cfg's range and shard on a pool of workers, sending each outcome
// to results, and closes results when every started run has finished. It stops handing out seeds
// when ctx is done.
func feedSeeds(ctx context.Context, spec Spec, cfg SweepConfig, workers int, run runOptions, results chan<- seedResult) {
	seeds := make(chan uint64)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range seeds {
				out, err := runSeedWith(spec, seed, run)
				results <- seedResult{out, err}
			}
		}()
	}
	handOut(ctx, cfg.Shard, cfg.First, cfg.Last, seeds)
	close(seeds)
	wg.Wait()
	close(results)
}

// RunSeed runs spec with the given seed and its seeded random chooser, as `simrun --seed N` does,
// and returns what a sweep keeps. An error means the spec does not prepare for this seed (unknown
// scenario or sabotage, a bad override); it names the seed and the bad input. A panic inside the
// run is recovered and reported as a failure with criterion CritPanic, so one broken seed does
// not end a sweep.
func RunSeed(spec Spec, seed uint64) (SeedOutcome, error) { return runSeed(spec, seed, false) }

// runSeed is RunSeed, hashing the run's trace into SeedOutcome.TraceHash when hashTrace is set.
func runSeed(spec Spec, seed uint64, hashTrace bool) (SeedOutcome, error) {
	return runSeedWith(spec, seed, runOptions{hashTrace: hashTrace})
}

// runSeedWith is RunSeed keeping what run asks for.
func runSeedWith(sc Spec, seed uint64, run runOptions) (out SeedOutcome, err error) {
	sc.Seed = seed
	out.Seed = seed
	var lr *LiveRun
	defer func() {
		r := recover()
		var stopped error
		if r != nil {
			stopped = lr.Stopped() // before Cleanup, which would make every run look interrupted
		}
		lr.Cleanup()
		if stopped != nil {
			err = fmt.Errorf("seed %d: %w", seed, stopped)
			return
		}
		if r != nil {
			out.Verdict = "panic"
			v := spec.Violation{Criterion: CritPanic, Process: -1, Detail: fmt.Sprint(r)}
			out.Criteria, out.Violations = []spec.Criterion{CritPanic}, []spec.Violation{v}
			err = nil
		}
	}()
	prep, err := sc.Prepare()
	if err != nil {
		return out, fmt.Errorf("preparing seed %d: %w", seed, err)
	}
	prep.Options.Disabled = run.without
	if sc.Sabotage != "" {
		out.Eligible = prep.Settings.Eligible(sc.Sabotage)
	}
	var hash *trace.HashSink
	if run.hashTrace {
		hash = trace.NewHashSink()
		prep.Options.Sinks = append(prep.Options.Sinks, hash)
	}
	live := run.live
	if live.Kafka.TopicPrefix != "" {
		// Seeds run at once (-j) must not share topics or groups: each gets the prefix given
		// followed by its seed.
		live.Kafka.TopicPrefix += strconv.FormatUint(seed, 10) + "-"
	}
	live.Restrict(&prep.Settings)
	lr, err = live.StartLive(seed)
	if err != nil {
		return out, fmt.Errorf("seed %d: %w", seed, err)
	}
	lr.Use(&prep.Options)
	res := sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(seed), prep.Options)
	if hash != nil {
		out.TraceHash = hash.Sum64()
	}
	out.Compared = run.live.Compare
	if _, err := lr.Judge(prep.Scenario, prep.Settings, prep.Options, res); err != nil {
		return out, fmt.Errorf("seed %d: %w", seed, err)
	}
	out.Verdict, out.Violations, out.Stats, out.Steps = res.Verdict, res.Violations, res.Stats, res.Steps
	if run.replays && res.Verdict != "pass" {
		out.Replay = sc.ReplayOf(res, trace.FormatHash(out.TraceHash))
	}
	if sc.Sabotage != "" {
		out.Fired = faultFired(sc.Sabotage, res.Stats)
	}
	for _, v := range res.Violations {
		if !slices.Contains(out.Criteria, v.Criterion) {
			out.Criteria = append(out.Criteria, v.Criterion)
		}
	}
	return out, nil
}

// handOut sends the seeds of first..last that shard owns, in order, until ctx is done.
func handOut(ctx context.Context, shard Shard, first, last uint64, seeds chan<- uint64) {
	seed, more := shard.firstSeed(first, last)
	for more && ctx.Err() == nil {
		select {
		case <-ctx.Done():
			return
		case seeds <- seed:
		}
		seed, more = shard.nextSeed(seed, last)
	}
}

// faultFired reports whether a run took an action of a fault class the mode needs (any run, for
// a mode that needs none; no run, for a mode without an eligibility rule).
func faultFired(mode string, st spec.Stats) bool {
	needs, ok := swarm.SabotageNeeds(mode)
	if !ok {
		return false
	}
	if len(needs) == 0 {
		return true
	}
	for _, k := range needs {
		if st.Actions[k] > 0 {
			return true
		}
	}
	return false
}

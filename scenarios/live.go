package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/substrate"
	"github.com/parsleysim/parsleysim/substrate/comparison"
)

// Live runs: the same scenario, seed and schedule on a Kafka other than the model. The scheduler
// drives every substrate call synchronously, one at a time, so a live run follows the seed's or the
// file's schedule; its topic IDs are the ones the live substrate assigns (so a live run's trace
// hash is not the model run's, and two live runs of a seed differ in their IDs).
//
// What a live substrate's own topic IDs change, and how each is settled (model and adapter agree
// run for run otherwise: results/live.md):
//
//  1. The restart check runs the script a second time, which gets other IDs, so other drain
//     orders: it is switched off on a live substrate and named in the printed settings
//     (Live.SwitchOff), and a file's `expect restart-invisible` line is refused, naming the line.
//  2. A stamp lists its causes in topic-ID order: a file's story and `expect causes` compare the
//     causes as a set on a live substrate (scenariofile).
//  3. Heads deliverable at once drain in topic-ID order, so a file that expects the order of
//     deliveries from two channels holds only when the cluster's IDs order its topics as the
//     seeded ones do (never_yielding_cause_held_then_released, left out of CI's live tier).

// The substrates a run can go to (--substrate).
const (
	SubstrateModel = "model" // the deterministic in-memory model (the default)
	substrateKfake = "kfake" // an embedded kfake cluster, started for each run
	SubstrateKafka = "kafka" // real brokers (Live.Brokers)
)

// CritModelDivergence is the criterion of a compared run whose model and live substrate
// disagreed: a finding about the model or the adapter.
const CritModelDivergence spec.Criterion = "MODEL_DIVERGENCE"

// Live says which Kafka a run goes to: the model (the zero value), an embedded kfake cluster per
// run, or real brokers; and whether the model runs beside the live substrate, call for call
// (Compare, package comparison).
type Live struct {
	Substrate string   // SubstrateModel ("" too), substrateKfake or SubstrateKafka
	Brokers   []string // seed brokers, host:port, for SubstrateKafka
	// Kafka configures the connection to real brokers (TLS, SASL). Its TopicPrefix, when empty,
	// is substrate.DefaultTopicPrefix(seed), fresh for every run.
	Kafka substrate.KafkaOptions
	// Access is how the command line gave Kafka's TLS and SASL (" --tls-ca FILE ...", each value
	// shell-quoted), for the commands that repeat a run; never credentials, which come from the
	// environment.
	Access  string
	Compare bool
	// Wrap, when set, wraps every live substrate before the run uses it: a planted wrong answer,
	// to see a comparison report it.
	Wrap func(substrate.Substrate) substrate.Substrate
}

// IsModel reports whether runs go to the model alone.
func (l Live) IsModel() bool { return l.Substrate == "" || l.Substrate == SubstrateModel }

// Check names what is wrong with l: an unknown substrate, brokers missing or given to another
// substrate, a comparison with the model alone.
func (l Live) Check() error {
	switch l.Substrate {
	case "", SubstrateModel:
		if l.Compare {
			return errors.New("--compare needs a live substrate (--substrate kfake or kafka)")
		}
	case substrateKfake:
	case SubstrateKafka:
		if len(l.Brokers) == 0 {
			return errors.New("--substrate kafka needs --brokers (host:port pairs, comma-separated)")
		}
	default:
		return fmt.Errorf("--substrate: unknown substrate %q (model, kfake or kafka)", l.Substrate)
	}
	if len(l.Brokers) > 0 && l.Substrate != SubstrateKafka {
		return fmt.Errorf("--brokers is for --substrate kafka, not %s", l.name())
	}
	return nil
}

// name is the substrate's name as --substrate gives it.
func (l Live) name() string {
	if l.Substrate == "" {
		return SubstrateModel
	}
	return l.Substrate
}

// Describe says in one line where the runs go, for the settings a run prints first.
func (l Live) Describe(prefix string) string {
	s := "substrate: " + l.name()
	if l.Substrate == SubstrateKafka {
		s += " at " + strings.Join(l.Brokers, ",")
	}
	if prefix != "" {
		s += ", topic prefix " + prefix
	}
	if l.Compare {
		s += ", compared with the model call for call"
	}
	return s
}

// liveOff says why the restart check cannot run on a live substrate: the restart check runs the
// script a second time, and a live substrate gives that run other topic IDs than the first, so
// other drain orders, and the two would differ without a restart to blame.
const liveOff = "restart check off: its second run of the script would get other topic IDs from the live substrate"

// SwitchOff switches off in set what a live substrate cannot run, and says what it switched off
// ("" for the model, or when the settings had nothing to switch off).
func (l Live) SwitchOff(set *swarm.Settings) string {
	if l.IsModel() || !set.RestartCheck.On {
		return ""
	}
	set.RestartCheck = swarm.RestartCheck{}
	return liveOff
}

// Flags are the command-line flags that repeat l on another command (empty for the model).
func (l Live) Flags() string {
	if l.IsModel() {
		return ""
	}
	s := " --substrate " + l.Substrate
	if l.Substrate == SubstrateKafka {
		s += " --brokers " + ShellQuote(strings.Join(l.Brokers, ",")) + l.Access
	}
	if l.Compare {
		s += " --compare"
	}
	return s
}

// LiveRun is one run's live substrates: every one the run made (the restart check makes a second
// world), to compare, clean up and close when the run ends. Cleanup may be called from another
// goroutine (a Ctrl-C handler) while the run goes on.
type LiveRun struct {
	live   Live
	prefix string
	mu     sync.Mutex
	// cleaning is held for the whole of a Cleanup, so a second call (the run's end racing a
	// Ctrl-C handler) returns only once the first has deleted everything.
	cleaning sync.Mutex
	first    *substrate.Kafka // made by StartLive, handed to the first world
	made     []*substrate.Kafka
	comps    []*comparison.Substrate
	closed   bool
	// step is the step of the first event the run traced once a comparison had diverged: the
	// step whose substrate call disagreed (0 while none has).
	step int
	// log is what the compared run's processes did, for the second, live-only run to match.
	log *processLog
}

// StartLive connects the first live substrate of a run of seed (starting an embedded kfake
// cluster, or reaching the brokers), so a cluster that cannot be reached is an error before the
// run starts. It returns nil, nil for the model.
func (l Live) StartLive(seed uint64) (*LiveRun, error) {
	if l.IsModel() {
		return nil, nil
	}
	r := &LiveRun{live: l, prefix: l.Kafka.TopicPrefix}
	if l.Substrate == SubstrateKafka && r.prefix == "" {
		r.prefix = substrate.DefaultTopicPrefix(seed)
	}
	k, err := r.connect()
	if err != nil {
		return nil, err
	}
	r.first = k
	return r, nil
}

// Prefix is the topic prefix the run's adapter works under on the cluster ("" on an embedded
// cluster of the run's own).
func (r *LiveRun) Prefix() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.made) == 0 {
		return r.prefix
	}
	return r.made[0].TopicPrefix()
}

// connect makes one live substrate of the run.
func (r *LiveRun) connect() (*substrate.Kafka, error) { return r.connectWith(r.prefix) }

// connectWith makes one live substrate of the run, under prefix on real brokers.
func (r *LiveRun) connectWith(prefix string) (*substrate.Kafka, error) {
	var k *substrate.Kafka
	var err error
	if r.live.Substrate == substrateKfake {
		k, err = substrate.NewKfake()
	} else {
		opts := r.live.Kafka
		opts.TopicPrefix = prefix
		k, err = substrate.NewKafka(r.live.Brokers, opts)
	}
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		k.Close()
		return nil, errors.New("the run was interrupted")
	}
	r.made = append(r.made, k)
	return k, nil
}

// Use makes opts run on the live substrate (compared with the model when asked).
func (r *LiveRun) Use(opts *sim.RunOptions) {
	if r == nil {
		return
	}
	opts.Substrate = r.substrate
	if r.live.Compare {
		r.log = newProcessLog()
		opts.Sinks = append(opts.Sinks, divergenceStep{r}, r.log)
	}
}

// divergenceStep is a trace sink that dates a run's first divergence by the step of the event
// that follows it.
type divergenceStep struct{ r *LiveRun }

// Record implements trace.Sink.
func (d divergenceStep) Record(ev *trace.Event) {
	if d.r.step == 0 && d.r.divergence() != nil {
		d.r.step = ev.Step
	}
}

// substrate is sim.RunOptions.Substrate: the run's next live substrate, wrapped in a comparison
// when asked. A substrate that cannot be made mid-run (a second world's) panics, naming why.
func (r *LiveRun) substrate(ids func() substrate.TopicID) substrate.Substrate {
	k := r.first
	r.first = nil
	if k == nil {
		var err error
		if k, err = r.connect(); err != nil {
			panic(fmt.Sprintf("scenarios: another live substrate for the run: %v", err))
		}
	}
	var s substrate.Substrate = k
	if r.live.Wrap != nil {
		s = r.live.Wrap(s)
	}
	if !r.live.Compare {
		return s
	}
	c := comparison.New(s, ids)
	r.mu.Lock()
	r.comps = append(r.comps, c)
	r.mu.Unlock()
	return recording{c, r.log}
}

// divergence is the first disagreement of the run's comparisons, nil while they agree.
func (r *LiveRun) divergence() *comparison.Divergence {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.comps {
		if d := c.Divergence(); d != nil {
			return d
		}
	}
	return nil
}

// Cleanup deletes every topic and consumer group the run created on real brokers and closes its
// clients (an embedded cluster stops). It is idempotent and safe from a Ctrl-C handler: a call
// made while another is deleting waits for it to finish. The first error is returned, naming the
// prefix.
func (r *LiveRun) Cleanup() error {
	if r == nil {
		return nil
	}
	r.cleaning.Lock()
	defer r.cleaning.Unlock()
	r.mu.Lock()
	made := r.made
	r.made, r.closed = nil, true
	r.mu.Unlock()
	var first error
	for _, k := range made {
		// An embedded cluster goes with its topics: only real brokers need them deleted.
		if r.live.Substrate == SubstrateKafka {
			if err := k.Cleanup(); err != nil && first == nil {
				first = fmt.Errorf("cleaning up the topics under prefix %q: %w", r.prefix, err)
			}
		}
		k.Close()
	}
	return first
}

// Judge adds to res, as a violation of CritModelDivergence, the first disagreement of a compared
// run (scn under set and opts, which Use prepared): the first call on which the model and the live
// substrate disagreed (the step, the call and both results), or else the first process whose
// deliveries, refusals or stamps differ in a second run of the same choices on the live substrate
// alone. It reports whether there was one.
func (r *LiveRun) Judge(scn *spec.Scenario, set swarm.Settings, opts sim.RunOptions, res *spec.Result) bool {
	if r == nil || !r.live.Compare {
		return false
	}
	d := r.divergence()
	if d == nil {
		v := r.compareProcesses(scn, set, opts, res, r.log)
		if v == nil {
			return false
		}
		res.Violations = append(res.Violations, *v)
		res.Verdict = "violation"
		return true
	}
	step := r.step
	if step == 0 { // nothing was traced after the call: it was the run's last step
		step = res.Steps
	}
	res.Violations = append(res.Violations, spec.Violation{Criterion: CritModelDivergence, Process: -1, Step: step,
		Detail: fmt.Sprintf("the model and the live substrate disagree at step %d, %s", step, d)})
	res.Verdict = "violation"
	return true
}

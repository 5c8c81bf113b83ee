package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
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
//  1. The restart check runs the script a second time, which on the cluster would get other IDs,
//     so other drain orders: on a live substrate its runs go to the model, given the IDs the live
//     run adopted in the order it was given them (LiveRun.substrate), so the check compares the
//     compared run (whose answers are the model's) with the same schedule and a clean restart
//     under the same IDs. Without --compare the run's answers are the cluster's, which a model run
//     cannot be held to: the check is off there (Live.Restrict).
//  2. A stamp lists its causes in topic-ID order: a file's story and `expect causes` compare the
//     causes as a set on a live substrate (scenariofile).
//  3. Heads deliverable at once drain in topic-ID order, so a file whose story or expectations
//     give the order of two causally independent deliveries from two channels holds only when the
//     cluster's IDs order its topics as the seeded ones do: the targeted files avoid it (where
//     the order is not their point, a cause orders the two).

// The substrates a run can go to (--substrate).
const (
	SubstrateModel = "model" // the deterministic in-memory model (the default)
	substrateKfake = "kfake" // an embedded kfake cluster, started for each run
	SubstrateKafka = "kafka" // real brokers (Live.Brokers)
)

// CritModelDivergence is the criterion of a compared run whose model and live substrate
// disagreed: a finding about the model or the adapter.
const CritModelDivergence spec.Criterion = "MODEL_DIVERGENCE"

// What stops a live run without a finding about the model: the live substrate failed (it could not
// be reached, a run on it could not start, or a run lost its connection), or the run was
// interrupted (Ctrl-C: its clients were closed under it). Errors of a live run wrap one of them;
// neither is a violation.
var (
	ErrLiveFailed  = errors.New("the live substrate failed")
	ErrInterrupted = errors.New("the live run was interrupted")
)

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

// restartCheckOff is the line a run's settings print when Restrict switched the restart check off.
const restartCheckOff = "restart check: off, needs --compare on a live substrate"

// Restrict switches off in set what a run on l cannot check soundly, and returns a line naming it
// for the settings a run prints first ("" when nothing is). On a live substrate without Compare
// that is the restart check: its rerun goes to the model, and the run it would be held to saw the
// cluster's answers, so any difference between the cluster and the model would show as
// RESTART_INVISIBILITY, a finding against the engine. A compared run's answers are the model's,
// so there the check stays.
func (l Live) Restrict(set *swarm.Settings) string {
	if l.IsModel() || l.Compare {
		return ""
	}
	set.RestartCheck = swarm.RestartCheck{}
	return restartCheckOff
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

// LiveRun is one run's live substrate, to compare, clean up and close when the run ends, and
// the model worlds of its restart check. Cleanup may be called from another goroutine (a Ctrl-C
// handler) while the run goes on.
type LiveRun struct {
	live   Live
	prefix string
	mu     sync.Mutex
	// cleaning is held for the whole of a Cleanup, so a second call (the run's end racing a
	// Ctrl-C handler) returns only once the first has deleted everything.
	cleaning sync.Mutex
	first    *substrate.Kafka // made by StartLive, handed to the first world
	made     []*substrate.Kafka
	comp     *comparison.Substrate // the first world's comparison, when compared
	// watch is the first world's substrate when not compared: it keeps the first call that
	// failed because the connection was lost.
	watch  *pinnedIDs
	worlds int // the worlds that asked for a substrate
	closed bool
	// log is what the first world's processes did and the topic IDs it was given, for the
	// second, live-only run to match and the restart check's model runs to adopt.
	log *processLog
}

// StartLive connects the first live substrate of a run of seed (starting an embedded kfake
// cluster, or reaching the brokers), so a cluster that cannot be reached is an error before the
// run starts (wrapping ErrLiveFailed). It returns nil, nil for the model.
func (l Live) StartLive(seed uint64) (*LiveRun, error) {
	if l.IsModel() {
		return nil, nil
	}
	r := &LiveRun{live: l, prefix: l.Kafka.TopicPrefix, log: &processLog{}} // the IDs alone
	if l.Compare {
		r.log = newProcessLog()
	}
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

// newKfake starts an embedded cluster for a run (a variable so a test can make it fail).
var newKfake = substrate.NewKfake

// connectWith makes one live substrate of the run, under prefix on real brokers. A failure wraps
// ErrLiveFailed; after Cleanup (an interrupt) it is ErrInterrupted.
func (r *LiveRun) connectWith(prefix string) (*substrate.Kafka, error) {
	var k *substrate.Kafka
	var err error
	if r.live.Substrate == substrateKfake {
		k, err = newKfake()
	} else {
		opts := r.live.Kafka
		opts.TopicPrefix = prefix
		k, err = substrate.NewKafka(r.live.Brokers, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: connecting to %s: %v", ErrLiveFailed, r.live.name(), err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		k.Close()
		return nil, ErrInterrupted
	}
	r.made = append(r.made, k)
	return k, nil
}

// Interrupted reports whether Cleanup ran before the run was judged (a Ctrl-C handler): its
// clients were closed under it, so what it saw after that, a panic included, says nothing about
// the model.
func (r *LiveRun) Interrupted() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Use makes opts run on the live substrate (compared with the model when asked).
func (r *LiveRun) Use(opts *sim.RunOptions) {
	if r == nil {
		return
	}
	opts.Substrate = r.substrate
	if r.live.Compare {
		opts.Sinks = append(opts.Sinks, r.log)
	}
}

// substrate is sim.RunOptions.Substrate. The first world gets the live substrate, wrapped in a
// comparison dated by the world's step when asked. Any later world is the restart check's (the
// script again, with a clean restart inserted): it gets the model, whose topic IDs are the ones
// the first world was given, in the order it was given them (then ids), so the check compares
// runs that drain alike, as it does on the model.
func (r *LiveRun) substrate(ids func() substrate.TopicID, step func() int) substrate.Substrate {
	if r.worlds++; r.worlds > 1 {
		return substrate.NewModel(r.log.replayIDs(ids))
	}
	var s substrate.Substrate = r.first
	r.first = nil
	if r.live.Wrap != nil {
		s = r.live.Wrap(s)
	}
	if r.live.Compare {
		c := comparison.New(s, ids)
		c.DateBy(step)
		r.mu.Lock()
		r.comp = c
		r.mu.Unlock()
		s = c
	} else {
		r.watch = newPinnedIDs(s, nil)
		r.watch.step = step
		s = r.watch
	}
	return recording{s, r.log}
}

// divergence is the first disagreement of the run's comparison, nil while they agree.
func (r *LiveRun) divergence() *comparison.Divergence {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.comp == nil {
		return nil
	}
	return r.comp.Divergence()
}

// Cleanup deletes every topic and consumer group the run created on real brokers and closes its
// clients (an embedded cluster stops). It is idempotent and safe from a Ctrl-C handler: a call
// made while another is deleting waits for it to finish. The first error is returned, naming the
// prefix and wrapping ErrLiveFailed: a cleanup that fails says nothing about the run's verdict.
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
				first = fmt.Errorf("%w: cleaning up the topics under prefix %q: %v", ErrLiveFailed, r.prefix, err)
			}
		}
		k.Close()
	}
	return first
}

// Stopped says why what went wrong in the run, a panic included, says nothing about the model:
// ErrInterrupted when Cleanup ran under it, an error wrapping ErrLiveFailed naming the call when
// an uncompared run lost its connection to the cluster (a compared run answers with the model,
// and Judge names its lost call); nil otherwise.
func (r *LiveRun) Stopped() error {
	if r.Interrupted() {
		return ErrInterrupted
	}
	if r == nil || r.watch == nil || r.watch.lost == nil {
		return nil
	}
	lost := r.watch.lost
	return fmt.Errorf("%w: %s lost its connection at step %d, %s: %v", ErrLiveFailed, r.live.name(), lost.step, lost.method, lost.err)
}

// Judge adds to res, as a violation of CritModelDivergence, the first disagreement of a compared
// run (scn under set and opts, which Use prepared): the first call on which the model and the live
// substrate disagreed (the step of the call, the call and both results), or else the first
// process whose deliveries, refusals or stamps differ in a second run of the same choices on the
// live substrate alone. It reports whether there was one. What is not a finding about the model
// is an error instead, and res is left as it is: ErrInterrupted when the run was interrupted
// (Cleanup ran under it, on any live run, compared or not), an error wrapping ErrLiveFailed when
// the second live run could not start or a call failed because the connection to the cluster was
// lost (compared or not: an uncompared run is judged for that alone).
func (r *LiveRun) Judge(scn *spec.Scenario, set swarm.Settings, opts sim.RunOptions, res *spec.Result) (bool, error) {
	if r == nil {
		return false, nil
	}
	if r.Interrupted() {
		return false, ErrInterrupted
	}
	if !r.live.Compare {
		return false, r.Stopped()
	}
	d := r.divergence()
	if d == nil {
		v, err := r.compareProcesses(scn, set, opts, res, r.log)
		if err == nil && r.Interrupted() {
			err = ErrInterrupted
		}
		if v == nil || err != nil {
			return false, err
		}
		res.Violations = append(res.Violations, *v)
		res.Verdict = "violation"
		return true, nil
	}
	if d.Lost {
		return false, fmt.Errorf("%w: %s lost its connection at step %d, %s(%s): %s", ErrLiveFailed, r.live.name(), d.Step, d.Method, d.Args, d.Live)
	}
	res.Violations = append(res.Violations, spec.Violation{Criterion: CritModelDivergence, Process: -1, Step: d.Step,
		Detail: fmt.Sprintf("the model and the live substrate disagree at step %d, %s", d.Step, d)})
	res.Verdict = "violation"
	return true, nil
}

package scenarios

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/substrate"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runLive runs seed of random (80 steps) on live, compared with the model, with sink beside the
// run's own, and judges it; lr is handed to the caller's Wrap through *lrOut before the run.
func runLive(t *testing.T, seed uint64, live Live, lrOut **LiveRun, sink trace.Sink) (*spec.Result, bool, error) {
	t.Helper()
	prep, err := Spec{Scenario: RandomName, Seed: seed, Steps: 80}.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	lr, err := live.StartLive(seed)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Cleanup()
	if lrOut != nil {
		*lrOut = lr
	}
	lr.Use(&prep.Options)
	if sink != nil {
		prep.Options.Sinks = append(prep.Options.Sinks, sink)
	}
	res := sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(seed), prep.Options)
	found, err := lr.Judge(prep.Scenario, prep.Settings, prep.Options, res)
	return res, found, err
}

// TestLiveSecondRunCannotStart: when the live run of the same choices cannot reach its cluster,
// the run is not judged: Judge returns an error wrapping ErrLiveFailed and adds no violation.
func TestLiveSecondRunCannotStart(t *testing.T) {
	made := 0
	newKfake = func(opts ...kfake.Opt) (*substrate.Kafka, error) {
		if made++; made == 2 {
			return nil, errors.New("no cluster today")
		}
		return substrate.NewKfake(opts...)
	}
	t.Cleanup(func() { newKfake = substrate.NewKfake })
	res, found, err := runLive(t, 3, Live{Substrate: substrateKfake, Compare: true}, nil, nil)
	if !errors.Is(err, ErrLiveFailed) || !strings.Contains(err.Error(), "no cluster today") || found || len(res.Violations) > 0 {
		t.Fatalf("Judge: found %v, error %v, violations %v; want an ErrLiveFailed naming the cause and no violation", found, err, res.Violations)
	}
}

// cutAt calls cut at the n-th fetch, then goes on: a Ctrl-C handler cleaning up under the run.
type cutAt struct {
	substrate.Substrate
	calls *int
	n     int
	cut   func()
}

func (c cutAt) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, max int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	if *c.calls++; *c.calls == c.n {
		c.cut()
	}
	return c.Substrate.FetchInto(dst, tp, from, max)
}

// TestLiveInterruptIsNoDivergence: a compared run whose live clients are closed under it (Cleanup
// from a Ctrl-C handler) sees the live calls fail after that, which is no finding about the
// model: Judge returns ErrInterrupted and adds no violation.
func TestLiveInterruptIsNoDivergence(t *testing.T) {
	var lr *LiveRun
	calls := 0
	live := Live{Substrate: substrateKfake, Compare: true, Wrap: func(s substrate.Substrate) substrate.Substrate {
		return cutAt{s, &calls, 3, func() { lr.Cleanup() }}
	}}
	res, found, err := runLive(t, 3, live, &lr, nil)
	if calls < 3 {
		t.Fatalf("only %d fetches: the interrupt never came", calls)
	}
	if !errors.Is(err, ErrInterrupted) || found || len(res.Violations) > 0 {
		t.Fatalf("Judge: found %v, error %v, violations %v; want ErrInterrupted and no violation", found, err, res.Violations)
	}
}

// lieAt answers the n-th ListOffsets with a high watermark five too far, noting the step of the
// last event traced before it.
type lieAt struct {
	substrate.Substrate
	calls *int
	n     int
	steps *eventSteps
}

func (l lieAt) ListOffsets(tp substrate.TopicPartition) (substrate.Offsets, error) {
	o, err := l.Substrate.ListOffsets(tp)
	if *l.calls++; *l.calls == l.n {
		o.HighWatermark += 5
		l.steps.atLie = l.steps.last
	}
	return o, err
}

// eventSteps notes the step of the last event traced and of the first one after the lie.
type eventSteps struct{ last, atLie, next int }

func (e *eventSteps) Record(ev *trace.Event) {
	if e.atLie > 0 && e.next == 0 {
		e.next = ev.Step
	}
	e.last = ev.Step
}

// TestLiveDivergenceStep: a divergence names the step of the call that differed. On seed 2 the
// 20th ListOffsets is a refresh made after its step's events (step 30's), and the next event is
// step 31's: the report says step 30.
func TestLiveDivergenceStep(t *testing.T) {
	calls, steps := 0, &eventSteps{}
	live := Live{Substrate: substrateKfake, Compare: true, Wrap: func(s substrate.Substrate) substrate.Substrate {
		return lieAt{s, &calls, 20, steps}
	}}
	res, found, err := runLive(t, 2, live, nil, steps)
	if err != nil || !found {
		t.Fatalf("no divergence reported (error %v): %v", err, res.Violations)
	}
	v := res.Violations[len(res.Violations)-1]
	if steps.atLie != 30 || steps.next != 31 {
		t.Fatalf("the lie came after an event of step %d, before one of step %d: the test's seed no longer shows the case", steps.atLie, steps.next)
	}
	if v.Criterion != CritModelDivergence || v.Step != 30 || !strings.Contains(v.Detail, "at step 30, call ") {
		t.Errorf("violation %s at step %d; want MODEL_DIVERGENCE at step 30, the ListOffsets call's", v.Criterion, v.Step)
	}
}

// TestLiveLostConnectionIsNoDivergence: a compared run on brokers that go away mid-run (the
// cluster closed at the third fetch) is a failure of the live substrate, not of the model:
// Judge returns an error wrapping ErrLiveFailed, naming the lost call, and adds no violation.
func TestLiveLostConnectionIsNoDivergence(t *testing.T) {
	cluster := shortCluster(t)
	calls := 0
	live := Live{Substrate: SubstrateKafka, Brokers: cluster.ListenAddrs(), Compare: true,
		Kafka: shortWaits("lost-"),
		Wrap:  func(s substrate.Substrate) substrate.Substrate { return cutAt{s, &calls, 3, cluster.Close} }}
	res, found, err := runLive(t, 3, live, nil, nil)
	if !errors.Is(err, ErrLiveFailed) || !strings.Contains(err.Error(), "lost its connection") || found || len(res.Violations) > 0 {
		t.Fatalf("Judge: found %v, error %v, violations %v; want ErrLiveFailed naming the lost call and no violation", found, err, res.Violations)
	}
}

// TestLiveSecondRunLostConnectionIsNoDivergence: when the brokers go away under the second,
// live-only run of a compared run (the cluster closed at that run's third fetch), the run stops
// on a lost connection, which is no finding about the model: Judge returns an error wrapping
// ErrLiveFailed, naming the call and its step, and adds no violation.
func TestLiveSecondRunLostConnectionIsNoDivergence(t *testing.T) {
	cluster := shortCluster(t)
	calls, wrapped := 0, 0
	live := Live{Substrate: SubstrateKafka, Brokers: cluster.ListenAddrs(), Compare: true,
		Kafka: shortWaits("lost2-"),
		Wrap: func(s substrate.Substrate) substrate.Substrate {
			if wrapped++; wrapped == 2 {
				return cutAt{s, &calls, 3, cluster.Close}
			}
			return s
		}}
	res, found, err := runLive(t, 3, live, nil, nil)
	if wrapped != 2 || calls < 3 {
		t.Fatalf("%d live runs, %d fetches in the second: the cluster was never closed under it", wrapped, calls)
	}
	if !errors.Is(err, ErrLiveFailed) || !strings.Contains(err.Error(), "lost its connection in the live run of the same choices at step") ||
		found || len(res.Violations) > 0 {
		t.Fatalf("Judge: found %v, error %v, violations %v; want ErrLiveFailed naming the lost call and its step, and no violation", found, err, res.Violations)
	}
	t.Log(err)
}

// stallAt holds the cluster's answer to the n-th ListOffsets until the adapter's call has
// returned, so the call runs out of its time.
type stallAt struct {
	substrate.Substrate
	cluster *kfake.Cluster
	calls   *int
	n       int
}

func (s stallAt) ListOffsets(tp substrate.TopicPartition) (substrate.Offsets, error) {
	if *s.calls++; *s.calls != s.n {
		return s.Substrate.ListOffsets(tp)
	}
	returned := make(chan struct{})
	s.cluster.ControlKey(int16(kmsg.ListOffsets), func(kmsg.Request) (kmsg.Response, error, bool) {
		s.cluster.DropControl()
		s.cluster.SleepControl(func() { <-returned })
		return nil, nil, false
	})
	o, err := s.Substrate.ListOffsets(tp)
	close(returned)
	return o, err
}

// TestLiveTimeoutIsDivergence: a compared live call that gets no answer within the adapter's
// time (its deadline error is a net.Error too) is a finding about the adapter, not a lost
// connection: MODEL_DIVERGENCE at that call, no error.
func TestLiveTimeoutIsDivergence(t *testing.T) {
	cluster := shortCluster(t)
	calls := 0
	live := Live{Substrate: SubstrateKafka, Brokers: cluster.ListenAddrs(), Compare: true,
		Kafka: shortWaits("stall-"),
		Wrap:  func(s substrate.Substrate) substrate.Substrate { return stallAt{s, cluster, &calls, 3} }}
	res, found, err := runLive(t, 3, live, nil, nil)
	if calls < 3 {
		t.Fatalf("only %d ListOffsets calls: none stalled", calls)
	}
	if err != nil || !found || res.Violations[len(res.Violations)-1].Criterion != CritModelDivergence {
		t.Fatalf("Judge: found %v, error %v, violations %v; want MODEL_DIVERGENCE at the call that timed out", found, err, res.Violations)
	}
	t.Log(res.Violations[len(res.Violations)-1].Detail)
}

// TestLiveSweepKeepsFindingsOnFailure: a sweep that a seed's live substrate stops still reports
// the seeds that ran: seed 1's divergence (its 20th ListOffsets lies) comes back with seed 2's
// ErrLiveFailed (its cluster cannot start), not in place of it.
func TestLiveSweepKeepsFindingsOnFailure(t *testing.T) {
	made := 0
	newKfake = func(opts ...kfake.Opt) (*substrate.Kafka, error) {
		if made++; made > 1 {
			return nil, errors.New("no cluster today")
		}
		return substrate.NewKfake(opts...)
	}
	t.Cleanup(func() { newKfake = substrate.NewKfake })
	calls := 0
	live := Live{Substrate: substrateKfake, Compare: true, Wrap: func(s substrate.Substrate) substrate.Substrate {
		return lieAt{s, &calls, 20, &eventSteps{}}
	}}
	rep, err := Sweep(context.Background(), SweepConfig{Spec: Spec{Steps: 80}, First: 1, Last: 2, Workers: 1, Live: live})
	if !errors.Is(err, ErrLiveFailed) || rep == nil {
		t.Fatalf("Sweep: report %v, error %v; want seed 1's report with seed 2's ErrLiveFailed", rep, err)
	}
	if rep.Runs != 1 || !slices.Equal(rep.FailedSeeds, []uint64{1}) || !rep.Interrupted {
		t.Errorf("report: %d runs, failed seeds %v, interrupted %v; want seed 1's divergence alone, interrupted", rep.Runs, rep.FailedSeeds, rep.Interrupted)
	}
}

// oneAtATime fetches at most one record per call: a fetch may return fewer records than asked,
// so a live substrate may, and the model does not.
type oneAtATime struct{ substrate.Substrate }

func (o oneAtATime) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, max int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	return o.Substrate.FetchInto(dst, tp, from, min(max, 1))
}

// TestLiveUncomparedNoRestartCheck: an uncompared live run sees the cluster's answers, which a
// restart check's rerun on the model cannot be held to: on a cluster that answers fetches a
// record at a time (as a cluster may, and the model does not), a sweep without --compare makes no
// restart check, and finds nothing.
func TestLiveUncomparedNoRestartCheck(t *testing.T) {
	live := Live{Substrate: substrateKfake, Wrap: func(s substrate.Substrate) substrate.Substrate { return oneAtATime{s} }}
	rep, err := Sweep(context.Background(), SweepConfig{Spec: Spec{Steps: 120}, First: 1, Last: 12, Workers: 1, Live: live})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Exercised.Count("restart_checks").Total; n != 0 || rep.Failed() > 0 {
		t.Errorf("%d restart checks, failed seeds %v (%v); want no check and no failure", n, rep.FailedSeeds, rep.ViolationsByCriterion)
	}
}

// TestLiveUncomparedLostConnection: an uncompared run on brokers that go away mid-run (the
// cluster closed at the third fetch) is a failure of the live substrate, not a finding: the world
// panics on the failed fetch, and the seed ends with an error wrapping ErrLiveFailed naming the
// lost call, not with PANIC.
func TestLiveUncomparedLostConnection(t *testing.T) {
	cluster := shortCluster(t)
	calls := 0
	live := Live{Substrate: SubstrateKafka, Brokers: cluster.ListenAddrs(),
		Kafka: shortWaits("lost3-"),
		Wrap:  func(s substrate.Substrate) substrate.Substrate { return cutAt{s, &calls, 3, cluster.Close} }}
	rep, err := Sweep(context.Background(), SweepConfig{Spec: Spec{Steps: 80}, First: 3, Last: 3, Workers: 1, Live: live})
	if calls < 3 {
		t.Fatalf("only %d fetches: the cluster was never closed under the run", calls)
	}
	if !errors.Is(err, ErrLiveFailed) || !strings.Contains(err.Error(), "lost its connection at step") || rep.Failed() > 0 {
		t.Fatalf("Sweep: error %v, failed seeds %v; want ErrLiveFailed naming the lost call and no failed seed", err, rep.FailedSeeds)
	}
	t.Log(err)
}

// TestLiveCleanupFailureIsLiveFailure: a cleanup that cannot delete the run's topics (the
// brokers gone after the run) is a failure of the live substrate, wrapping ErrLiveFailed, not an
// error of the command's usage.
func TestLiveCleanupFailureIsLiveFailure(t *testing.T) {
	cluster := shortCluster(t)
	live := Live{Substrate: SubstrateKafka, Brokers: cluster.ListenAddrs(),
		Kafka: shortWaits("gone-")}
	prep, err := Spec{Scenario: RandomName, Seed: 3, Steps: 20}.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	lr, err := live.StartLive(3)
	if err != nil {
		t.Fatal(err)
	}
	lr.Use(&prep.Options)
	sim.Run(prep.Scenario, prep.Settings, choose.NewRandom(3), prep.Options)
	cluster.Close()
	if err := lr.Cleanup(); !errors.Is(err, ErrLiveFailed) || !strings.Contains(err.Error(), `prefix "gone-"`) {
		t.Fatalf("Cleanup on brokers gone: %v; want an ErrLiveFailed naming the prefix", err)
	}
}

// shortCluster starts an embedded one-broker kfake cluster, closed when the test ends (closing it
// twice, as the tests that cut it under a run do, is harmless).
func shortCluster(t *testing.T) *kfake.Cluster {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	return cluster
}

// shortWaits are adapter options under prefix whose calls and deletions give up after 300 ms, so
// a test that takes the cluster away or stalls a call learns it quickly.
func shortWaits(prefix string) substrate.KafkaOptions {
	return substrate.KafkaOptions{TopicPrefix: prefix, Timeout: 300 * time.Millisecond, DeletionTimeout: 300 * time.Millisecond}
}

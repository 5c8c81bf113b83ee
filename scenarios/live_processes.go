package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parsleysim/parsleysim/sim"
	"github.com/parsleysim/parsleysim/sim/choose"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
	"github.com/parsleysim/parsleysim/sim/trace"
	"github.com/parsleysim/parsleysim/substrate"
	"github.com/parsleysim/parsleysim/substrate/comparison"
)

// The per-process half of a comparison. The compared run answers every call with the model's
// results, so its processes see the model; a second run of the same choices goes to a fresh live
// substrate alone, its topic IDs pinned to the ones the first run adopted (pinnedIDs), so its
// processes see the live substrate's answers with the same IDs, hence the same drain orders and
// stamp bytes. Each process's deliveries, refusals and sends (what it wrote where, stamp
// included) must be the same in both.

// processLog is what a run's processes did, per process, as comparable lines: every delivery,
// refusal and send (trace events) and the headers of every record it wrote (its stamps, by
// transactional ID, which names the process).
type processLog struct {
	events map[int][]loggedEvent
	stamps map[string][]string
	ids    []substrate.TopicID // topic IDs in creation order
}

// loggedEvent is one event of a process, with its step.
type loggedEvent struct {
	step int
	text string
}

func newProcessLog() *processLog {
	return &processLog{events: map[int][]loggedEvent{}, stamps: map[string][]string{}}
}

// Record implements trace.Sink: deliveries, refusals and sends, per process.
func (l *processLog) Record(ev *trace.Event) {
	switch ev.Kind {
	case "delivered", "refused", "sent":
		l.events[ev.Process] = append(l.events[ev.Process], loggedEvent{ev.Step,
			fmt.Sprintf("%s m%d %s#%d/%d@%d %s", ev.Kind, ev.Msg, ev.Topic, ev.Incarn, ev.Partition, ev.Position, ev.Detail)})
	}
}

// stamp records the headers of a record written under transactional ID txn ("" for a plain
// producer); a log without a stamps map (an uncompared run's, which keeps its IDs alone) keeps
// none.
func (l *processLog) stamp(txn string, rec substrate.Record) {
	if l.stamps == nil {
		return
	}
	var b strings.Builder
	for _, h := range rec.Headers {
		fmt.Fprintf(&b, "%s=%x;", h.Key, h.Value)
	}
	l.stamps[txn] = append(l.stamps[txn], b.String())
}

// replayIDs returns a source of topic IDs that gives the logged ones in the order they were
// given, then then's.
func (l *processLog) replayIDs(then func() substrate.TopicID) func() substrate.TopicID {
	next := 0
	return func() substrate.TopicID {
		if next < len(l.ids) {
			next++
			return l.ids[next-1]
		}
		return then()
	}
}

// recording is a substrate that logs the topic IDs it hands out and the headers of every record
// written through it.
type recording struct {
	substrate.Substrate
	log *processLog
}

func (r recording) CreateTopic(name string, partitions int) (substrate.TopicID, error) {
	id, err := r.Substrate.CreateTopic(name, partitions)
	if err == nil {
		r.log.ids = append(r.log.ids, id)
	}
	return id, err
}

func (r recording) RecreateTopic(name string) (substrate.TopicID, error) {
	id, err := r.Substrate.RecreateTopic(name)
	if err == nil {
		r.log.ids = append(r.log.ids, id)
	}
	return id, err
}

func (r recording) Produce(tp substrate.TopicPartition, rec substrate.Record, mode substrate.ProduceMode) (substrate.Offset, error) {
	r.log.stamp("", rec)
	return r.Substrate.Produce(tp, rec, mode)
}

func (r recording) ProduceTx(p substrate.TxnProducer, tp substrate.TopicPartition, rec substrate.Record) (substrate.Offset, error) {
	r.log.stamp(p.TransactionalID, rec)
	return r.Substrate.ProduceTx(p, tp, rec)
}

// compareProcesses runs the choices of the compared run (first, its log firstLog) again on a
// fresh live substrate alone, with the first run's topic IDs, and returns the first process whose
// deliveries, refusals or stamps differ, as a violation (nil when every process agrees). The
// restart check does not run again: only the processes' events are compared. A live substrate
// that cannot be made is an error (ErrLiveFailed, or ErrInterrupted after Cleanup), not a
// violation; so is one whose connection was lost during the run (ErrLiveFailed naming the call
// and its step), unless the processes' events already differ before that step.
func (r *LiveRun) compareProcesses(scn *spec.Scenario, set swarm.Settings, opts sim.RunOptions, first *spec.Result, firstLog *processLog) (*spec.Violation, error) {
	k, err := r.connectWith(r.prefix + "again-")
	if err != nil {
		if !errors.Is(err, ErrInterrupted) {
			err = fmt.Errorf("the live run of the same choices could not start: %w", err)
		}
		return nil, err
	}
	var live substrate.Substrate = k
	if r.live.Wrap != nil {
		live = r.live.Wrap(live)
	}
	again := newProcessLog()
	pinned := newPinnedIDs(live, firstLog.ids)
	opts.Sinks = []trace.Sink{again}
	opts.Substrate = func(_ func() substrate.TopicID, step func() int) substrate.Substrate {
		pinned.step = step
		return recording{pinned, again}
	}
	set.RestartCheck = swarm.RestartCheck{}
	crash := runRecovered(scn, set, choose.NewReplay(first.Choices), opts)
	if r.Interrupted() {
		return nil, ErrInterrupted
	}
	if lost := pinned.lost; lost != nil {
		// What the processes did before the connection was lost is still a finding when it differs.
		if v := r.compareEvents(scn, first, firstLog, again, lost.step); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("%w: %s lost its connection in the live run of the same choices at step %d, %s: %v",
			ErrLiveFailed, r.live.name(), lost.step, lost.method, lost.err)
	}
	if crash != "" {
		return &spec.Violation{Criterion: CritModelDivergence, Process: -1, Step: first.Steps, Detail: fmt.Sprintf(
			"the same choices on %s alone, with the model's topic IDs, stopped the simulator where the model's answers did not: %s", r.live.name(), crash)}, nil
	}
	if v := r.compareEvents(scn, first, firstLog, again, -1); v != nil {
		return v, nil
	}
	// Every transactional ID either run wrote under, in order, so the first difference reported
	// is the same on every run of the comparison.
	txns := slices.Sorted(maps.Keys(firstLog.stamps))
	for txn := range again.stamps {
		if _, ok := firstLog.stamps[txn]; !ok {
			txns = append(txns, txn)
		}
	}
	slices.Sort(txns)
	for _, txn := range txns {
		a, b := firstLog.stamps[txn], again.stamps[txn]
		for i := 0; i < len(a) || i < len(b); i++ {
			if i < len(a) && i < len(b) && a[i] == b[i] {
				continue
			}
			model, kafka := "(no such record)", "(no such record)"
			if i < len(a) {
				model = a[i]
			}
			if i < len(b) {
				kafka = b[i]
			}
			return &spec.Violation{Criterion: CritModelDivergence, Process: -1, Step: first.Steps, Detail: fmt.Sprintf(
				"record %d written under transactional ID %q has other headers on the model's answers than on %s's alone: model %s; live %s",
				i+1, txn, r.live.name(), model, kafka)}, nil
		}
	}
	return nil, nil
}

// compareEvents returns the first process whose deliveries, refusals or sends differ between the
// compared run (first, its log firstLog) and the live-only one (again), as a violation; nil when
// they agree. Only events before step before are compared, all of them when it is negative.
func (r *LiveRun) compareEvents(scn *spec.Scenario, first *spec.Result, firstLog, again *processLog, before int) *spec.Violation {
	for p := range len(scn.Processes) {
		a, b := eventsBefore(firstLog.events[p], before), eventsBefore(again.events[p], before)
		for i := 0; i < len(a) || i < len(b); i++ {
			if i < len(a) && i < len(b) && a[i].text == b[i].text {
				continue
			}
			step, model, kafka := first.Steps, "(nothing more)", "(nothing more)"
			if i < len(a) {
				step, model = a[i].step, a[i].text
			}
			if i < len(b) {
				step, kafka = min(step, b[i].step), b[i].text
			}
			return &spec.Violation{Criterion: CritModelDivergence, Process: p, Step: step, Detail: fmt.Sprintf(
				"process %s's event %d differs between the model's answers and %s's alone: model %q; live %q",
				scn.Processes[p].Name, i+1, r.live.name(), model, kafka)}
		}
	}
	return nil
}

// eventsBefore returns the events of evs (in step order) before step, all of them when step is
// negative.
func eventsBefore(evs []loggedEvent, step int) []loggedEvent {
	if step < 0 {
		return evs
	}
	n := 0
	for n < len(evs) && evs[n].step < step {
		n++
	}
	return evs[:n]
}

// runRecovered runs scn and returns the panic that stopped it ("" if none): on a live substrate
// alone, an answer the model would not give can break what the world relies on.
func runRecovered(scn *spec.Scenario, set swarm.Settings, ch choose.Chooser, opts sim.RunOptions) (crash string) {
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Sprint(r)
		}
	}()
	sim.Run(scn, set, ch, opts)
	return ""
}

// pinnedIDs is a live substrate whose topic IDs are translated to the ones another run of the
// same schedule was given (want, in creation order), so a second live run speaks of its topics
// with the first run's IDs. It keeps the first call that failed because the connection to the
// cluster was lost (lost, dated by step): what follows it, a crash or events that differ, says
// nothing about the model.
type pinnedIDs struct {
	live             substrate.Substrate
	want             []substrate.TopicID
	created          int
	toLive, fromLive map[substrate.TopicID]substrate.TopicID
	step             func() int // the world's step (nil: undated)
	lost             *lostCall
}

// newPinnedIDs returns live with its topic IDs pinned to want (none: its own IDs, so it only
// keeps the lost call).
func newPinnedIDs(live substrate.Substrate, want []substrate.TopicID) *pinnedIDs {
	return &pinnedIDs{live: live, want: want, toLive: map[substrate.TopicID]substrate.TopicID{},
		fromLive: map[substrate.TopicID]substrate.TopicID{}}
}

// lostCall is a call of a live run that failed because the connection to the cluster was lost.
type lostCall struct {
	step   int
	method string
	err    error
}

// keep notes err as the run's lost call when it is the first that says the connection was lost,
// and returns it.
func (p *pinnedIDs) keep(method string, err error) error {
	if err != nil && p.lost == nil && comparison.LostConnection(err) {
		p.lost = &lostCall{method: method, err: err}
		if p.step != nil {
			p.lost.step = p.step()
		}
	}
	return err
}

// pin maps the k-th created live ID to the k-th wanted one (itself once the wanted ones run out).
func (p *pinnedIDs) pin(id substrate.TopicID) substrate.TopicID {
	as := id
	if p.created < len(p.want) {
		as = p.want[p.created]
	}
	p.created++
	p.toLive[as], p.fromLive[id] = id, as
	return as
}

func (p *pinnedIDs) in(id substrate.TopicID) substrate.TopicID {
	if l, ok := p.toLive[id]; ok {
		return l
	}
	return id
}

func (p *pinnedIDs) out(id substrate.TopicID) substrate.TopicID {
	if w, ok := p.fromLive[id]; ok {
		return w
	}
	return id
}

func (p *pinnedIDs) inTP(tp substrate.TopicPartition) substrate.TopicPartition {
	tp.Topic = p.in(tp.Topic)
	return tp
}

func (p *pinnedIDs) offsets(offs []substrate.GroupOffset, f func(substrate.TopicID) substrate.TopicID) []substrate.GroupOffset {
	out := make([]substrate.GroupOffset, len(offs))
	for i, o := range offs {
		o.Topic = f(o.Topic)
		out[i] = o
	}
	return out
}

func (p *pinnedIDs) description(d substrate.TopicDescription) substrate.TopicDescription {
	d.ID = p.out(d.ID)
	if !d.CurrentID.IsZero() {
		d.CurrentID = p.out(d.CurrentID)
	}
	return d
}

func (p *pinnedIDs) CreateTopic(name string, partitions int) (substrate.TopicID, error) {
	id, err := p.live.CreateTopic(name, partitions)
	if err != nil {
		p.keep("CreateTopic", err)
		return id, err
	}
	return p.pin(id), nil
}

func (p *pinnedIDs) DeleteTopic(name string) error {
	return p.keep("DeleteTopic", p.live.DeleteTopic(name))
}

func (p *pinnedIDs) RecreateTopic(name string) (substrate.TopicID, error) {
	id, err := p.live.RecreateTopic(name)
	if err != nil {
		p.keep("RecreateTopic", err)
		return id, err
	}
	return p.pin(id), nil
}

func (p *pinnedIDs) LookupTopic(name string) (substrate.TopicID, int, error) {
	id, n, err := p.live.LookupTopic(name)
	return p.out(id), n, p.keep("LookupTopic", err)
}

func (p *pinnedIDs) DescribeTopic(id substrate.TopicID) (substrate.TopicDescription, error) {
	d, err := p.live.DescribeTopic(p.in(id))
	return p.description(d), p.keep("DescribeTopic", err)
}

func (p *pinnedIDs) Topics() []substrate.TopicDescription {
	ds := p.live.Topics()
	for i := range ds {
		ds[i] = p.description(ds[i])
	}
	return ds
}

func (p *pinnedIDs) Produce(tp substrate.TopicPartition, rec substrate.Record, mode substrate.ProduceMode) (substrate.Offset, error) {
	off, err := p.live.Produce(p.inTP(tp), rec, mode)
	return off, p.keep("Produce", err)
}

func (p *pinnedIDs) InitTransactions(id string) (substrate.TxnProducer, error) {
	tx, err := p.live.InitTransactions(id)
	return tx, p.keep("InitTransactions", err)
}

func (p *pinnedIDs) BeginTransaction(tx substrate.TxnProducer) error {
	return p.keep("BeginTransaction", p.live.BeginTransaction(tx))
}

func (p *pinnedIDs) ProduceTx(tx substrate.TxnProducer, tp substrate.TopicPartition, rec substrate.Record) (substrate.Offset, error) {
	off, err := p.live.ProduceTx(tx, p.inTP(tp), rec)
	return off, p.keep("ProduceTx", err)
}

func (p *pinnedIDs) SendOffsetsToTransaction(tx substrate.TxnProducer, group string, offs []substrate.GroupOffset) error {
	return p.keep("SendOffsetsToTransaction", p.live.SendOffsetsToTransaction(tx, group, p.offsets(offs, p.in)))
}

func (p *pinnedIDs) CommitTransaction(tx substrate.TxnProducer) error {
	return p.keep("CommitTransaction", p.live.CommitTransaction(tx))
}

func (p *pinnedIDs) AbortTransaction(tx substrate.TxnProducer) error {
	return p.keep("AbortTransaction", p.live.AbortTransaction(tx))
}

func (p *pinnedIDs) Fetch(tp substrate.TopicPartition, from substrate.Offset, max int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	recs, next, err := p.live.Fetch(p.inTP(tp), from, max)
	return recs, next, p.keep("Fetch", err)
}

func (p *pinnedIDs) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, max int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	recs, next, err := p.live.FetchInto(dst, p.inTP(tp), from, max)
	return recs, next, p.keep("FetchInto", err)
}

func (p *pinnedIDs) ListOffsets(tp substrate.TopicPartition) (substrate.Offsets, error) {
	o, err := p.live.ListOffsets(p.inTP(tp))
	return o, p.keep("ListOffsets", err)
}

func (p *pinnedIDs) DeleteRecords(tp substrate.TopicPartition, before substrate.Offset) error {
	return p.keep("DeleteRecords", p.live.DeleteRecords(p.inTP(tp), before))
}

func (p *pinnedIDs) SetRetention(name string, policy substrate.RetentionPolicy) error {
	return p.keep("SetRetention", p.live.SetRetention(name, policy))
}

func (p *pinnedIDs) AdvanceClock(now int64) error {
	return p.keep("AdvanceClock", p.live.AdvanceClock(now))
}

func (p *pinnedIDs) CommitOffsets(group string, offs []substrate.GroupOffset) error {
	return p.keep("CommitOffsets", p.live.CommitOffsets(group, p.offsets(offs, p.in)))
}

func (p *pinnedIDs) CommittedOffsets(group string) ([]substrate.GroupOffset, error) {
	offs, err := p.live.CommittedOffsets(group)
	p.keep("CommittedOffsets", err)
	out := p.offsets(offs, p.out)
	slices.SortFunc(out, func(a, b substrate.GroupOffset) int { return a.TopicPartition.Compare(b.TopicPartition) })
	return out, err
}

func (p *pinnedIDs) Close() error { return p.live.Close() }

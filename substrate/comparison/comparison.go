// Package comparison runs the model beside a live substrate (the Kafka adapter over kfake or a
// real cluster), call for call, and reports the first call on which the two disagree: a finding
// about the model or the adapter. Agreement is substrate's (agreement.go), which also lists every
// disagreement found between the model and kfake and how it was settled.
package comparison

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/parsleysim/parsleysim/substrate"
)

// Substrate is a substrate.Substrate that runs the model beside a live substrate (the adapter over kfake
// or a real cluster): every call goes to both, in the caller's order, and the model's answer is
// returned, so a run over a comparison is the model run of the same schedule. The first call
// whose results disagree (agreement.go: offsets, errors by sentinel, records, watermarks, topic
// descriptions, group offsets) is kept as a Divergence, a finding about the model or the adapter;
// from then on the live substrate is no longer called, since its state has left the model's.
//
// The model adopts the topic IDs the live substrate assigns (create and recreate go to the live
// substrate first), so both speak of every topic by the same ID and IDs compare by value. Handles
// of transactional producers are the model's; the comparison maps each to the live one.
//
// Like every substrate.Substrate it is not safe for concurrent use.
type Substrate struct {
	model *substrate.Model
	live  substrate.Substrate
	ids   *adoptedIDs
	// handles maps each handle the model issued to the live substrate's handle of the same
	// InitTransactions.
	handles map[substrate.TxnProducer]substrate.TxnProducer
	scratch []substrate.FetchedRecord // the live substrate's fetched records, reused
	calls   int
	first   *Divergence
	step    func() int // the caller's step, dating a divergence (nil: undated)
}

// Divergence is the first call on which the model and the live substrate disagreed, with what
// each answered, in a form a report prints as is.
type Divergence struct {
	// Call is the call's number among all calls on the comparison, from 1.
	Call int
	// Step is the caller's step when the call was made (DateBy), 0 when undated.
	Step int
	// Method is the substrate.Substrate method, and Args its arguments as the model received them.
	Method string
	Args   string
	// Model and Live are each side's results, errors included.
	Model string
	Live  string
	// Lost says the live call failed because the connection to the cluster was lost (it ended,
	// a network error, a closed client): a failure of the infrastructure, not of the model or
	// the adapter.
	Lost bool
}

// LostConnection reports whether err says the client lost the cluster rather than that the
// cluster answered: the connection ended (EOF), a network error, or the client was closed. A
// timeout is not a lost connection, though the context's and the connection's deadline errors are
// net.Errors too: every adapter call runs under a deadline, and an adapter that waits for an answer
// that never comes is a finding about the adapter.
func LostConnection(err error) bool {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || errors.Is(err, kgo.ErrClientClosed)
}

// String says the whole divergence in one line.
func (d *Divergence) String() string {
	return fmt.Sprintf("call %d, %s(%s): model %s; live %s", d.Call, d.Method, d.Args, d.Model, d.Live)
}

// New returns a comparison of a fresh model against live, which must not have been
// used yet (its topics would be unknown to the model). fallbackIDs gives the model's topic IDs
// when the live substrate assigned none (its call failed, so the runs have diverged); the
// simulator passes its seeded ID stream. Close closes live.
func New(live substrate.Substrate, fallbackIDs func() substrate.TopicID) *Substrate {
	if fallbackIDs == nil {
		fallbackIDs = substrate.SeededTopicIDs(1)
	}
	ids := &adoptedIDs{fallback: fallbackIDs}
	return &Substrate{
		model:   substrate.NewModel(ids.draw),
		live:    live,
		ids:     ids,
		handles: make(map[substrate.TxnProducer]substrate.TxnProducer),
	}
}

// DateBy makes every divergence carry step's answer at the call that disagreed: the simulator
// passes its world's step, so a report names the step of the call, not of what the world did next.
func (c *Substrate) DateBy(step func() int) { c.step = step }

// Divergence returns the first disagreement, or nil while the two have agreed on every call.
func (c *Substrate) Divergence() *Divergence { return c.first }

// compared reports whether the live substrate still takes part, and counts the call.
func (c *Substrate) compared() bool {
	c.calls++
	return c.first == nil
}

// check records a divergence unless the two sides agree: same error class and, when both
// succeeded, same results (same). args and the results are formatted only for a divergence.
func (c *Substrate) check(method string, errM, errL error, same func() bool, args func() string,
	model, live func() string) {
	if substrate.ErrorClass(errM) == substrate.ErrorClass(errL) && (errM != nil || same()) {
		return
	}
	c.first = &Divergence{Call: c.calls, Method: method, Args: args(), Model: model(), Live: live(), Lost: LostConnection(errL)}
	if c.step != nil {
		c.first.Step = c.step()
	}
}

// showResult formats results followed by an error ("ok" when nil).
func showResult(err error, results ...any) string {
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%s, ", showValue(r))
	}
	if err == nil {
		b.WriteString("ok")
	} else {
		b.WriteString("error: " + err.Error())
	}
	return b.String()
}

// showValue formats one argument or result: byte strings quoted, records field by field.
func showValue(v any) string {
	switch v := v.(type) {
	case substrate.Record:
		return showRecord(v)
	case substrate.FetchedRecord:
		return fmt.Sprintf("@%d %s", v.Offset, showRecord(v.Record))
	case []substrate.FetchedRecord:
		parts := make([]string, len(v))
		for i, r := range v {
			parts[i] = showValue(r)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case substrate.TopicPartition:
		return fmt.Sprintf("%s/%d", v.Topic, v.Partition)
	case substrate.TxnProducer:
		return fmt.Sprintf("%q epoch %d", v.TransactionalID, v.Epoch)
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%+v", v)
}

func showRecord(r substrate.Record) string {
	bs := func(b []byte) string {
		if b == nil {
			return "null"
		}
		return fmt.Sprintf("%q", b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{key %s value %s", bs(r.Key), bs(r.Value))
	for _, h := range r.Headers {
		fmt.Fprintf(&b, " header %q=%s", h.Key, bs(h.Value))
	}
	fmt.Fprintf(&b, " ts %dus}", r.TimestampMicros)
	return b.String()
}

// showArgs formats a call's arguments.
func showArgs(args ...any) func() string {
	return func() string {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = showValue(a)
		}
		return strings.Join(parts, ", ")
	}
}

func shown(err error, results ...any) func() string {
	return func() string { return showResult(err, results...) }
}

// liveHandle maps a model handle to the live one; a handle the model never issued goes as is
// (both refuse it).
func (c *Substrate) liveHandle(p substrate.TxnProducer) substrate.TxnProducer {
	if l, ok := c.handles[p]; ok {
		return l
	}
	return p
}

// CreateTopic implements substrate.Substrate: the live substrate first, whose ID the model adopts.
func (c *Substrate) CreateTopic(name string, partitions int) (substrate.TopicID, error) {
	if !c.compared() {
		return c.model.CreateTopic(name, partitions)
	}
	idL, errL := c.live.CreateTopic(name, partitions)
	c.ids.adopt(idL)
	idM, errM := c.model.CreateTopic(name, partitions)
	c.check("CreateTopic", errM, errL, func() bool { return idM == idL }, showArgs(name, partitions),
		shown(errM, idM), shown(errL, idL))
	return idM, errM
}

// DeleteTopic implements substrate.Substrate.
func (c *Substrate) DeleteTopic(name string) error {
	return c.sameErr("DeleteTopic", c.model.DeleteTopic(name), func() error { return c.live.DeleteTopic(name) }, name)
}

func alwaysSame() bool { return true }

// sameErr compares a call whose only result is an error: errM is the model's, live makes the
// live call (only while the two still agree), args are the call's arguments for the report.
func (c *Substrate) sameErr(method string, errM error, live func() error, args ...any) error {
	if c.compared() {
		errL := live()
		c.check(method, errM, errL, alwaysSame, showArgs(args...), shown(errM), shown(errL))
	}
	return errM
}

// RecreateTopic implements substrate.Substrate: the live substrate first, whose new ID the model adopts.
func (c *Substrate) RecreateTopic(name string) (substrate.TopicID, error) {
	if !c.compared() {
		return c.model.RecreateTopic(name)
	}
	idL, errL := c.live.RecreateTopic(name)
	c.ids.adopt(idL)
	idM, errM := c.model.RecreateTopic(name)
	c.check("RecreateTopic", errM, errL, func() bool { return idM == idL }, showArgs(name),
		shown(errM, idM), shown(errL, idL))
	return idM, errM
}

// LookupTopic implements substrate.Substrate.
func (c *Substrate) LookupTopic(name string) (substrate.TopicID, int, error) {
	idM, nM, errM := c.model.LookupTopic(name)
	if c.compared() {
		idL, nL, errL := c.live.LookupTopic(name)
		c.check("LookupTopic", errM, errL, func() bool { return idM == idL && nM == nL }, showArgs(name),
			shown(errM, idM, nM), shown(errL, idL, nL))
	}
	return idM, nM, errM
}

func equalIDs(a, b substrate.TopicID) bool { return a == b }

// DescribeTopic implements substrate.Substrate.
func (c *Substrate) DescribeTopic(id substrate.TopicID) (substrate.TopicDescription, error) {
	dM, errM := c.model.DescribeTopic(id)
	if c.compared() {
		dL, errL := c.live.DescribeTopic(id)
		c.check("DescribeTopic", errM, errL, func() bool { return substrate.SameDescription(dM, dL, equalIDs) },
			showArgs(id), shown(errM, dM), shown(errL, dL))
	}
	return dM, errM
}

// Topics implements substrate.Substrate.
func (c *Substrate) Topics() []substrate.TopicDescription {
	m := c.model.Topics()
	if c.compared() {
		l := c.live.Topics()
		same := func() bool {
			return slices.EqualFunc(m, l, func(a, b substrate.TopicDescription) bool { return substrate.SameDescription(a, b, equalIDs) })
		}
		c.check("Topics", nil, nil, same, showArgs(), shown(nil, m), shown(nil, l))
	}
	return m
}

// Produce implements substrate.Substrate.
func (c *Substrate) Produce(tp substrate.TopicPartition, rec substrate.Record, mode substrate.ProduceMode) (substrate.Offset, error) {
	oM, errM := c.model.Produce(tp, rec, mode)
	if c.compared() {
		oL, errL := c.live.Produce(tp, rec, mode)
		c.check("Produce", errM, errL, func() bool { return oM == oL }, showArgs(tp, rec, mode),
			shown(errM, oM), shown(errL, oL))
	}
	return oM, errM
}

// InitTransactions implements substrate.Substrate.
func (c *Substrate) InitTransactions(transactionalID string) (substrate.TxnProducer, error) {
	pM, errM := c.model.InitTransactions(transactionalID)
	if c.compared() {
		pL, errL := c.live.InitTransactions(transactionalID)
		if errM == nil && errL == nil {
			c.handles[pM] = pL
		}
		c.check("InitTransactions", errM, errL, func() bool { return pM.Epoch == pL.Epoch },
			showArgs(transactionalID), shown(errM, pM), shown(errL, pL))
	}
	return pM, errM
}

// BeginTransaction implements substrate.Substrate.
func (c *Substrate) BeginTransaction(p substrate.TxnProducer) error {
	return c.sameErr("BeginTransaction", c.model.BeginTransaction(p), func() error { return c.live.BeginTransaction(c.liveHandle(p)) }, p)
}

// ProduceTx implements substrate.Substrate.
func (c *Substrate) ProduceTx(p substrate.TxnProducer, tp substrate.TopicPartition, rec substrate.Record) (substrate.Offset, error) {
	oM, errM := c.model.ProduceTx(p, tp, rec)
	if c.compared() {
		oL, errL := c.live.ProduceTx(c.liveHandle(p), tp, rec)
		c.check("ProduceTx", errM, errL, func() bool { return oM == oL }, showArgs(p, tp, rec),
			shown(errM, oM), shown(errL, oL))
	}
	return oM, errM
}

// SendOffsetsToTransaction implements substrate.Substrate.
func (c *Substrate) SendOffsetsToTransaction(p substrate.TxnProducer, group string, offsets []substrate.GroupOffset) error {
	errM := c.model.SendOffsetsToTransaction(p, group, offsets)
	if c.compared() {
		errL := c.live.SendOffsetsToTransaction(c.liveHandle(p), group, offsets)
		c.check("SendOffsetsToTransaction", errM, errL, alwaysSame, showArgs(p, group, offsets),
			shown(errM), shown(errL))
	}
	return errM
}

// CommitTransaction implements substrate.Substrate.
func (c *Substrate) CommitTransaction(p substrate.TxnProducer) error {
	return c.sameErr("CommitTransaction", c.model.CommitTransaction(p), func() error { return c.live.CommitTransaction(c.liveHandle(p)) }, p)
}

// AbortTransaction implements substrate.Substrate.
func (c *Substrate) AbortTransaction(p substrate.TxnProducer) error {
	return c.sameErr("AbortTransaction", c.model.AbortTransaction(p), func() error { return c.live.AbortTransaction(c.liveHandle(p)) }, p)
}

// Fetch implements substrate.Substrate.
func (c *Substrate) Fetch(tp substrate.TopicPartition, from substrate.Offset, maxRecords int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	return c.FetchInto(nil, tp, from, maxRecords)
}

// FetchInto implements substrate.Substrate: the model's records go to dst; the live substrate's to a
// buffer of the comparison's own.
func (c *Substrate) FetchInto(dst []substrate.FetchedRecord, tp substrate.TopicPartition, from substrate.Offset, maxRecords int) ([]substrate.FetchedRecord, substrate.Offset, error) {
	n := len(dst)
	out, nextM, errM := c.model.FetchInto(dst, tp, from, maxRecords)
	if c.compared() {
		var nextL substrate.Offset
		var errL error
		c.scratch, nextL, errL = c.live.FetchInto(c.scratch[:0], tp, from, maxRecords)
		recsM, recsL := out[n:], c.scratch
		same := func() bool { return nextM == nextL && substrate.FirstRecordDifference(recsM, recsL) < 0 }
		c.check("FetchInto", errM, errL, same, showArgs(tp, from, maxRecords),
			shown(errM, recsM, nextM), shown(errL, recsL, nextL))
	}
	return out, nextM, errM
}

// ListOffsets implements substrate.Substrate.
func (c *Substrate) ListOffsets(tp substrate.TopicPartition) (substrate.Offsets, error) {
	oM, errM := c.model.ListOffsets(tp)
	if c.compared() {
		oL, errL := c.live.ListOffsets(tp)
		c.check("ListOffsets", errM, errL, func() bool { return oM == oL }, showArgs(tp),
			shown(errM, oM), shown(errL, oL))
	}
	return oM, errM
}

// DeleteRecords implements substrate.Substrate.
func (c *Substrate) DeleteRecords(tp substrate.TopicPartition, before substrate.Offset) error {
	return c.sameErr("DeleteRecords", c.model.DeleteRecords(tp, before), func() error { return c.live.DeleteRecords(tp, before) }, tp, before)
}

// SetRetention implements substrate.Substrate.
func (c *Substrate) SetRetention(name string, policy substrate.RetentionPolicy) error {
	return c.sameErr("SetRetention", c.model.SetRetention(name, policy), func() error { return c.live.SetRetention(name, policy) }, name, policy)
}

// AdvanceClock implements substrate.Substrate.
func (c *Substrate) AdvanceClock(nowMicros int64) error {
	return c.sameErr("AdvanceClock", c.model.AdvanceClock(nowMicros), func() error { return c.live.AdvanceClock(nowMicros) }, nowMicros)
}

// CommitOffsets implements substrate.Substrate.
func (c *Substrate) CommitOffsets(group string, offsets []substrate.GroupOffset) error {
	return c.sameErr("CommitOffsets", c.model.CommitOffsets(group, offsets), func() error { return c.live.CommitOffsets(group, offsets) }, group, offsets)
}

// CommittedOffsets implements substrate.Substrate.
func (c *Substrate) CommittedOffsets(group string) ([]substrate.GroupOffset, error) {
	m, errM := c.model.CommittedOffsets(group)
	if c.compared() {
		l, errL := c.live.CommittedOffsets(group)
		c.check("CommittedOffsets", errM, errL, func() bool { return slices.Equal(m, l) }, showArgs(group),
			shown(errM, m), shown(errL, l))
	}
	return m, errM
}

// Close implements substrate.Substrate: it closes the live substrate.
func (c *Substrate) Close() error { return c.live.Close() }

package node

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// refModel is the obviously-correct slow reference for the engine: explicit sets of received
// causes, delivered coordinates and delivered causes, explicit hold lists, maps everywhere, no
// incremental bookkeeping. It implements SPEC §1.3–§3 and §2.3 straight from the text.
type refModel struct {
	// Committed-form state.
	fed  map[Channel]Offset
	held map[Channel][]refMsg
	seen map[Cause]bool // every pair the frontier took in: received causes and delivered coordinates
	past map[Cause]bool // every cause of every delivered message
	// Per execution.
	received []Channel
	floor    map[Channel]Offset
	lastFed  map[Channel]Offset
	refused  Reason
}

type refMsg struct {
	pos    Offset
	value  string
	causes []Cause
}

func newRefModel() *refModel {
	return &refModel{fed: map[Channel]Offset{}, held: map[Channel][]refMsg{}, seen: map[Cause]bool{}, past: map[Cause]bool{}}
}

// clone copies the committed-form state.
func (m *refModel) clone() *refModel {
	c := newRefModel()
	for k, v := range m.fed {
		c.fed[k] = v
	}
	for k, v := range m.held {
		c.held[k] = slices.Clone(v)
	}
	for k := range m.seen {
		c.seen[k] = true
	}
	for k := range m.past {
		c.past[k] = true
	}
	return c
}

func (m *refModel) receives(ch Channel) bool { return slices.Contains(m.received, ch) }

// maxOf returns the largest position set names on ch.
func maxOf(set map[Cause]bool, ch Channel) (Offset, bool) {
	best, ok := Offset(-1), false
	for c := range set {
		if c.Channel == ch && c.Position > best {
			best, ok = c.Position, true
		}
	}
	return best, ok
}

// frontier is the per-channel maximum of seen.
func (m *refModel) frontier() Causes {
	var pairs []Cause
	for c := range m.seen {
		pairs = append(pairs, c)
	}
	return CausesOf(pairs...)
}

// start is INIT of §2.3.
func (m *refModel) start(received []Channel, starts map[Channel]Offset) Reason {
	m.received = slices.Clone(received)
	slices.SortFunc(m.received, compareChannels)
	m.refused = ""
	var heldChans []Channel
	for ch, list := range m.held {
		if len(list) > 0 && !m.receives(ch) {
			heldChans = append(heldChans, ch)
		}
	}
	if len(heldChans) > 0 {
		m.refused = ReasonChannelRemovedWithHeldMessages
		return m.refused
	}
	for _, ch := range m.received {
		if p, ok := maxOf(m.past, ch); ok {
			if f, known := m.fed[ch]; !known || f < p {
				m.fed[ch] = p
			}
		}
		if s := starts[ch]; s > 0 {
			if f, known := m.fed[ch]; !known || f < s-1 {
				m.fed[ch] = s - 1
			}
		}
	}
	m.floor, m.lastFed = map[Channel]Offset{}, map[Channel]Offset{}
	for _, ch := range m.received {
		if f, ok := m.fed[ch]; ok {
			m.floor[ch] = f
		}
	}
	return ""
}

// identity is IDENTITY of §2.3.
func (m *refModel) identity(dead, recreated []TopicID) Reason {
	if m.refused != "" {
		return m.refused
	}
	for _, ch := range m.received {
		if slices.Contains(recreated, ch.Topic) {
			m.refused = ReasonChannelIdentityChanged
			return m.refused
		}
	}
	for _, ch := range m.received {
		if slices.Contains(dead, ch.Topic) && len(m.held[ch]) > 0 {
			m.refused = ReasonChannelDeletedWithUndelivered
			return m.refused
		}
	}
	for _, ch := range m.received {
		if slices.Contains(dead, ch.Topic) {
			m.fed[ch] = MaxOffset
		}
	}
	for _, set := range []map[Cause]bool{m.seen, m.past} {
		for c := range set {
			if slices.Contains(dead, c.Channel.Topic) || slices.Contains(recreated, c.Channel.Topic) {
				delete(set, c)
			}
		}
	}
	return ""
}

// receive is RECEIVE of §2.3; undecodable stands for a header that fails to decode.
func (m *refModel) receive(ch Channel, pos Offset, msg refMsg, undecodable bool) (ReceiveOutcome, Reason) {
	if m.refused != "" {
		return 0, m.refused
	}
	if undecodable {
		m.refused = ReasonUndecodableMetadata
		return 0, m.refused
	}
	if last, ok := m.lastFed[ch]; ok && pos <= last {
		m.refused = ReasonOutOfOrderFeed
		return 0, m.refused
	}
	m.lastFed[ch] = pos
	for _, c := range msg.causes {
		m.seen[c] = true
	}
	if f, ok := m.fed[ch]; ok && pos <= f {
		floor, hasFloor := m.floor[ch]
		switch {
		case f == MaxOffset:
			m.refused = ReasonOutOfOrderFeed
		case !hasFloor || pos > floor:
			m.refused = ReasonCoveredPositionFed
		default:
			return Duplicate, ""
		}
		return 0, m.refused
	}
	m.fed[ch] = pos
	msg.pos = pos
	m.held[ch] = append(m.held[ch], msg)
	return Held, ""
}

// settled is §1.4.
func (m *refModel) settled(ch Channel) (Offset, bool) {
	if list := m.held[ch]; len(list) > 0 {
		return list[0].pos - 1, true
	}
	f, ok := m.fed[ch]
	return f, ok
}

// next is NEXT + DELIVERED of §2.3.
func (m *refModel) next() (Channel, refMsg, bool) {
	if m.refused != "" {
		return Channel{}, refMsg{}, false
	}
	for _, ch := range m.received {
		list := m.held[ch]
		if len(list) == 0 {
			continue
		}
		ok := true
		for _, c := range list[0].causes {
			if !m.receives(c.Channel) {
				continue
			}
			s, known := m.settled(c.Channel)
			if !known || c.Position > s {
				ok = false
			}
		}
		if !ok {
			continue
		}
		head := list[0]
		m.held[ch] = list[1:]
		m.seen[Cause{Channel: ch, Position: head.pos}] = true
		for _, c := range head.causes {
			m.past[c] = true
		}
		return ch, head, true
	}
	return Channel{}, refMsg{}, false
}

// modelSabotage runs the model test against a sabotaged engine, to see the comparison bite:
// go test ./node/ -run TestModel -model.sabotage=NO_FIFO must fail.
var modelSabotage = flag.String("model.sabotage", "", "sabotage mode for TestModelEngineAgreesWithReference (expect failure)")

// modelWorld drives engine and model together.
type modelWorld struct {
	opts      Options
	universe  []Channel
	topics    []TopicID
	e         *Engine
	m         *refModel
	committed *State
	mCommit   *refModel
	identity  bool // identity report still allowed in this initialisation
	value     int
	lastList  map[Channel][]Channel // the channels of the last header sent on each channel
	spare     *Engine               // a dead engine, for CloneInto
	indexed   int                   // deliveries whose causes went through an index (indexUsed)
}

func (w *modelWorld) restart(t *rapid.T) {
	n := rapid.IntRange(1, len(w.universe)).Draw(t, "received count")
	perm := rapid.Permutation(w.universe).Draw(t, "received perm")
	received := perm[:n]
	starts := map[Channel]Offset{}
	var startList []Cause
	for _, ch := range received {
		s := Offset(rapid.IntRange(0, 6).Draw(t, "start "+etName(ch, 0)))
		starts[ch] = s
		startList = append(startList, Cause{Channel: ch, Position: s})
	}
	st := w.committed.Clone()
	e, err := Start(st, Init{Received: received, StartPositions: startList, SendTopics: w.topics}, w.opts)
	w.m = w.mCommit.clone()
	want := w.m.start(received, starts)
	if err != nil {
		etEqual(t, "start refusal", string(err.(*Refusal).Reason), string(want))
		w.e = nil
		return
	}
	etEqual(t, "start refusal", "", string(want))
	w.e, w.identity = e, true
}

func (w *modelWorld) receive(t *rapid.T) {
	ch := rapid.SampledFrom(w.e.Received()).Draw(t, "channel")
	last, ok := w.m.lastFed[ch]
	if !ok {
		last = -1
	}
	pos := Offset(rapid.IntRange(0, 3).Draw(t, "step")) + last + 1
	if rapid.IntRange(0, 30).Draw(t, "regress") == 0 {
		pos = Offset(rapid.IntRange(0, int(max(0, last))).Draw(t, "regressed"))
	}
	// A sender usually repeats its channel list with new positions, sometimes changed by one
	// channel: the engine's per-sender index must follow both.
	var chans []Channel
	if prev := w.lastList[ch]; len(prev) > 0 && rapid.IntRange(0, 2).Draw(t, "repeat") > 0 {
		chans = slices.Clone(prev)
		k := rapid.IntRange(0, len(chans)-1).Draw(t, "changed")
		switch rapid.IntRange(0, 5).Draw(t, "change") {
		case 0:
			chans = slices.Delete(chans, k, k+1)
		case 1:
			chans = append(chans, rapid.SampledFrom(w.universe).Draw(t, "added"))
		case 2:
			chans[k] = rapid.SampledFrom(w.universe).Draw(t, "replaced")
		}
	} else if rapid.IntRange(0, 2).Draw(t, "fan-in") == 0 {
		// A run of the received channels, as a sender that receives what this process does
		// stamps: the indexes then hold runs.
		recv := w.e.Received()
		from := rapid.IntRange(0, len(recv)-1).Draw(t, "run from")
		chans = recv[from:rapid.IntRange(from+1, len(recv)).Draw(t, "run to")]
	} else {
		for i := rapid.IntRange(0, 3).Draw(t, "causes"); i > 0; i-- {
			chans = append(chans, rapid.SampledFrom(w.universe).Draw(t, "cause channel"))
		}
	}
	var causes []Cause
	for _, c := range chans {
		causes = append(causes, Cause{Channel: c, Position: Offset(rapid.IntRange(0, 14).Draw(t, "cause position"))})
	}
	if w.lastList == nil {
		w.lastList = map[Channel][]Channel{}
	}
	w.lastList[ch] = nil
	for _, c := range CausesOf(causes...).Pairs() {
		w.lastList[ch] = append(w.lastList[ch], c.Channel)
	}
	undecodable := rapid.IntRange(0, 60).Draw(t, "undecodable") == 0
	w.value++
	msg := refMsg{value: fmt.Sprint(w.value), causes: causes}
	rec := etRec(msg.value, causes...)
	if undecodable {
		rec = etRaw([]byte{0x63, 0x01, 0x02, 0x03})
	}
	msg.causes = CausesOf(causes...).Pairs() // the model keeps the per-channel maximum, as the wire does
	got, err := w.e.Receive(ch, pos, rec)
	want, wantReason := w.m.receive(ch, pos, msg, undecodable)
	if err != nil {
		etEqual(t, "receive refusal", string(err.(*Refusal).Reason), string(wantReason))
		return
	}
	etEqual(t, "receive", []any{got, ""}, []any{want, string(wantReason)})
}

func (w *modelWorld) drain(t *rapid.T) {
	for {
		w.indexed += indexUsed(w.e)
		d, ok := w.e.Next()
		ch, msg, mok := w.m.next()
		etEqual(t, "delivers", ok, mok)
		if !ok {
			return
		}
		etEqual(t, "delivery", etName(d.Channel, d.Position)+" "+string(d.Record.Value)+" "+d.Causes.String(),
			etName(ch, msg.pos)+" "+msg.value+" "+CausesOf(msg.causes...).String())
	}
}

func (w *modelWorld) stamp(t *rapid.T) {
	got, err := w.e.Stamp()
	if w.m.refused != "" {
		if err == nil {
			t.Fatalf("stamp after refusal")
		}
		return
	}
	if err != nil {
		t.Fatalf("stamp: %v", err)
	}
	etEqual(t, "stamp", fmt.Sprintf("%x", got), fmt.Sprintf("%x", Encode(w.m.frontier())))
}

func (w *modelWorld) commit(t *rapid.T) {
	if w.m.refused != "" {
		return // a refused step never commits
	}
	d := w.e.Commit()
	if err := w.committed.Apply(d); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := w.committed.validate(); err != nil || !w.committed.checked {
		// An honest engine's deltas keep every invariant, and Apply must know it (so that Start
		// skips revalidating), without ever vouching for a state validate refuses.
		t.Fatalf("applied state: validate %v, checked %v; want nil and true", err, w.committed.checked)
	}
	if !w.committed.Equal(w.e.Snapshot()) {
		t.Fatalf("committed state differs from the engine's snapshot")
	}
	w.mCommit = w.m.clone()
	for _, ch := range w.universe {
		f, ok := w.committed.FedUpTo(ch)
		mf, mok := w.mCommit.fed[ch]
		etEqual(t, "committed fed "+ch.String(), []any{f, ok}, []any{mf * Offset(btoi(mok)), mok})
		var got, want []Offset
		for _, h := range w.committed.Held(ch) {
			got = append(got, h.Position)
		}
		for _, h := range w.mCommit.held[ch] {
			want = append(want, h.pos)
		}
		etEqual(t, "committed holds "+ch.String(), got, want)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *modelWorld) identityReport(t *rapid.T) {
	var dead, recreated []TopicID
	for _, id := range w.topics {
		switch rapid.IntRange(0, 9).Draw(t, "fate "+id.String()) {
		case 0:
			dead = append(dead, id)
		case 1:
			recreated = append(recreated, id)
		}
	}
	w.identity = false
	err := w.e.Identity(dead, recreated)
	want := w.m.identity(dead, recreated)
	if err != nil {
		etEqual(t, "identity refusal", string(err.(*Refusal).Reason), string(want))
		return
	}
	etEqual(t, "identity refusal", "", string(want))
}

// clone goes on with a copy of the engine (into a dead engine's storage when there is one), and
// makes the engine it copied receive a record first, mostly a repeat of the channel's last list
// with higher positions (through the per-sender index, when it has one), and drain: the two share
// immutable state (decoded causes, the per-sender indexes), and nothing one does may reach the
// other. The copied engine's indexes must still hold, and the copy's frontier, delivered past and
// held messages' causes must be as they were.
func (w *modelWorld) clone(t *rapid.T) {
	old := w.e
	if w.spare != nil && rapid.Bool().Draw(t, "into spare") {
		w.e = old.CloneInto(w.spare)
	} else {
		w.e = old.Clone()
	}
	frontier, past, held := w.e.frontier.Clone(), w.e.past.Clone(), heldCauses(w.e)
	ch := rapid.SampledFrom(old.Received()).Draw(t, "old channel")
	c := &old.chans[old.mustIndex(ch)]
	causes := []Cause{{rapid.SampledFrom(w.universe).Draw(t, "old cause"), 20}}
	if len(c.lastList) > 0 && rapid.IntRange(0, 3).Draw(t, "old repeat") > 0 {
		causes = slices.Clone(c.lastList)
		for k := range causes {
			causes[k].Position = Offset(rapid.IntRange(15, 25).Draw(t, "old position"))
		}
	}
	_, _ = old.Receive(ch, c.lastFed+1, etRec("old", causes...))
	for range 3 {
		_, _ = old.Next()
	}
	checkIndexes(t, old)
	if !w.e.frontier.Equal(frontier) || !w.e.past.Equal(past) || !slices.EqualFunc(heldCauses(w.e), held, Causes.Equal) {
		t.Fatalf("the copied engine's receipt reached the copy: frontier %v, past %v (were %v, %v)", w.e.frontier, w.e.past, frontier, past)
	}
	w.spare = old
}

// heldCauses returns copies of the causes of e's held messages, channel by channel, head first.
func heldCauses(e *Engine) []Causes {
	var all []Causes
	for i := range e.chans {
		b := &e.chans[i].held
		for j := range b.len() {
			all = append(all, b.msg(j).Causes.Clone())
		}
	}
	return all
}

// newModelWorld builds a world over three topics of two partitions each and starts its first
// execution.
func newModelWorld(t *rapid.T, opts Options) *modelWorld {
	w := &modelWorld{opts: opts, committed: &State{}, mCommit: newRefModel()}
	for tp := byte(1); tp <= 3; tp++ {
		w.topics = append(w.topics, etTopic(tp))
		w.universe = append(w.universe, etCh(tp, 0), etCh(tp, 1))
	}
	w.restart(t)
	if w.e == nil {
		t.Fatalf("fresh start refused")
	}
	return w
}

// actions are the host's moves for t.Repeat: receive, drain, stamp, commit (each only while an
// execution runs), restart, and the identity report (once per initialisation).
func (w *modelWorld) actions() map[string]func(*rapid.T) {
	running := func(f func(*rapid.T)) func(*rapid.T) {
		return func(t *rapid.T) {
			if w.e != nil {
				f(t)
			}
		}
	}
	return map[string]func(*rapid.T){
		"receive": running(w.receive),
		"drain":   running(w.drain),
		"stamp":   running(w.stamp),
		"commit":  running(w.commit),
		"restart": w.restart,
		"clone":   running(w.clone),
		"identity": func(t *rapid.T) {
			if w.e != nil && w.identity {
				w.identityReport(t)
			}
		},
	}
}

// TestModelEngineAgreesWithReference drives the engine and the reference model with random
// receipts (fresh, gapped, regressed, undecodable), drains, stamps, commits, restarts from the
// committed state (with new received sets and start positions, directly or through the codecs)
// and identity reports, and asserts they agree on every delivery, every stamp, every refusal and
// the committed state.
func TestModelEngineAgreesWithReference(t *testing.T) {
	mode, err := parseSabotage(*modelSabotage)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		w := newModelWorld(t, Options{Sabotage: mode})
		actions := w.actions()
		actions[""] = func(t *rapid.T) {
			if w.e != nil && w.e.refusal == nil && w.e.heldCount != w.e.Status().Held {
				t.Fatalf("engine counts %d held messages, its buffers hold %d", w.e.heldCount, w.e.Status().Held)
			}
			if w.e != nil {
				checkGates(t, w.e)
				checkIndexes(t, w.e)
			}
		}
		t.Repeat(actions)
	})
}

package script

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/spec"
)

// fakeWorld is a small world whose facts a test sets and whose operations it logs, one line
// each. Processes "p" (0) and "q" (1) receive channels 10 and 20. Topic "a" (0, external) is in
// its second incarnation, channels 10 (partition 0) and 11 (partition 1); its first was channel
// 5. Topic "b" (1, written by a process) is channel 20. Topic "gone" (2, external) was deleted:
// its one incarnation was channel 30. A record's ID is 100 times its channel plus its offset.
type fakeWorld struct {
	status   [2]Status
	feedable map[int32]bool
	declares map[int]bool
	dead     map[int32]bool // channels deleted besides 5 and 30
	txnOpen  bool
	log      []string
}

var _ World = (*fakeWorld)(nil)

var fakeTopics = []string{"a", "b", "gone"}

// fakeChannels are the channels of each topic's incarnations, from the first, by partition.
var fakeChannels = [][][]int32{{{5}, {10, 11}}, {{20}}, {{30}}}

func newFake() *fakeWorld {
	return &fakeWorld{status: [2]Status{Running, Running}, feedable: map[int32]bool{10: true, 20: true}, declares: map[int]bool{}}
}

func (f *fakeWorld) logf(format string, args ...any) {
	f.log = append(f.log, fmt.Sprintf(format, args...))
}

func (f *fakeWorld) BeginStep(k spec.ActionKind) { f.logf("step %s", k) }
func (f *fakeWorld) Skipped(detail string)       { f.logf("skipped: %s", detail) }

func (f *fakeWorld) Process(name string) int { return strings.Index("pq", name) }
func (f *fakeWorld) Topic(name string) (int, bool) {
	t := slices.Index(fakeTopics, name)
	return max(t, 0), t >= 0
}
func (f *fakeWorld) External(t int) bool { return t != 1 }
func (f *fakeWorld) Channel(t, n, part int) int32 {
	incs := fakeChannels[t]
	if n == 0 {
		if !f.Alive(incs[len(incs)-1][0]) {
			return -1
		}
		n = len(incs)
	}
	if n > len(incs) || part >= len(incs[n-1]) {
		return -1
	}
	return incs[n-1][part]
}
func (f *fakeWorld) ChannelTopic(c int32) int {
	for t, incs := range fakeChannels {
		for _, inc := range incs {
			if slices.Contains(inc, c) {
				return t
			}
		}
	}
	panic(fmt.Sprint("no channel ", c))
}
func (f *fakeWorld) NodeChannel(c int32) node.Channel {
	return node.Channel{Topic: node.TopicID{byte(c)}}
}
func (f *fakeWorld) Alive(c int32) bool                 { return c != 5 && c != 30 && !f.dead[c] }
func (f *fakeWorld) HighWatermark(c int32) int64        { return 7 }
func (f *fakeWorld) RecordAt(c int32, pos int64) uint64 { return uint64(c)*100 + uint64(pos) }
func (f *fakeWorld) TxnOpen() bool                      { return f.txnOpen }

func (f *fakeWorld) Status(p int) Status            { return f.status[p] }
func (f *fakeWorld) Received(p int) int             { return 2 }
func (f *fakeWorld) ReceivedChannel(p, i int) int32 { return []int32{10, 20}[i] }
func (f *fakeWorld) Feedable(p int, c int32) bool   { return f.feedable[c] }
func (f *fakeWorld) Declares(p, t int) bool         { return f.declares[t] }

func (f *fakeWorld) Feed(p int, c int32)                { f.logf("feed %d c%d", p, c) }
func (f *fakeWorld) Rewind(p int, c int32, to int64)    { f.logf("rewind %d c%d to %d", p, c, to) }
func (f *fakeWorld) Redeclare(p, t int)                 { f.logf("redeclare %d topic %d", p, t) }
func (f *fakeWorld) CommitCrash(p, calls int)           { f.logf("commit-crash %d after %d", p, calls) }
func (f *fakeWorld) Lifecycle(k spec.ActionKind, p int) { f.logf("%s %d", k, p) }

func (f *fakeWorld) ProducePlain(c int32, key, value []byte) {
	f.logf("plain c%d key=%x value=%x", c, key, value)
}
func (f *fakeWorld) ProduceCorrupt(c int32, headers [][]byte, key, value []byte) {
	f.logf("corrupt c%d headers=%x key=%x value=%x", c, headers, key, value)
}
func (f *fakeWorld) ProduceForged(c int32, causes node.Causes, header []byte, key, value []byte) {
	var cs []string
	for _, pair := range causes.Pairs() {
		cs = append(cs, fmt.Sprintf("c%d@%d", pair.Channel.Topic[0], pair.Position))
	}
	f.logf("forged c%d causes=%v header=%x", c, cs, header)
}
func (f *fakeWorld) ProduceStamped(c int32, observed uint64) {
	f.logf("stamped c%d observes %d", c, observed)
}
func (f *fakeWorld) OpenTxn(c int32, records int)   { f.logf("txn-open c%d %d records", c, records) }
func (f *fakeWorld) CloseTxn(commit bool)           { f.logf("txn-close commit=%t", commit) }
func (f *fakeWorld) AbortTxn(c int32, records int)  { f.logf("txn-abort c%d %d records", c, records) }
func (f *fakeWorld) DrawRecordCount(maxRecords int) { f.logf("draw 1..%d", maxRecords) }
func (f *fakeWorld) DeleteRecords(c int32, before int64) {
	f.logf("delete-records c%d before %d", c, before)
}
func (f *fakeWorld) NothingToTruncate()  { f.logf("nothing to truncate") }
func (f *fakeWorld) DeleteTopic(t int)   { f.logf("delete topic %d", t) }
func (f *fakeWorld) RecreateTopic(t int) { f.logf("recreate topic %d", t) }
func (f *fakeWorld) Retention()          { f.logf("retention") }
func (f *fakeWorld) Session(a *spec.ScriptedAction) bool {
	f.logf("session %s", a.Kind)
	return a.Topic != ""
}

// run performs script on f and returns the log's lines after the first, one per step: the
// operation performed, or "skipped".
func run(f *fakeWorld, script ...spec.ScriptedAction) []string {
	f.log = nil
	for i := range script {
		Do(f, i, &script[i])
	}
	var out []string
	for _, l := range f.log {
		if strings.HasPrefix(l, "step ") {
			out = append(out, "")
			continue
		}
		if strings.HasPrefix(l, "skipped: ") {
			l = "skipped"
		}
		out[len(out)-1] = strings.TrimPrefix(out[len(out)-1]+"; "+l, "; ")
	}
	return out
}

func check(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("steps:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestSkippedStepIsStillAStep: an action that does not apply takes its step and reports, in its
// "skipped" event, its place in the script and its names.
func TestSkippedStepIsStillAStep(t *testing.T) {
	f := newFake()
	Do(f, 4, &spec.ScriptedAction{Kind: spec.ActFeed, Process: "q", Topic: "gone"})
	want := []string{"step feed", "skipped: script action 4 (feed q gone) does not apply"}
	if !slices.Equal(f.log, want) {
		t.Errorf("log %q, want %q", f.log, want)
	}
}

// TestFeedPicksTheNamedOrFirstFeedableChannel: a feed naming a topic feeds the process's
// received channel of it, one naming none its first feedable one; a feed of a process that is
// down, of a channel with nothing to fetch, or of a topic it does not receive is skipped.
func TestFeedPicksTheNamedOrFirstFeedableChannel(t *testing.T) {
	f := newFake()
	f.feedable[10] = false
	feed := func(proc, topic string) spec.ScriptedAction {
		return spec.ScriptedAction{Kind: spec.ActFeed, Process: proc, Topic: topic}
	}
	check(t, run(f, feed("p", ""), feed("q", "b"), feed("p", "a"), feed("p", "gone")),
		"feed 0 c20", "feed 1 c20", "skipped", "skipped")
	f.status[1] = Down
	check(t, run(f, feed("q", "b")), "skipped")
	f.feedable[20] = false
	check(t, run(f, feed("p", "")), "skipped")
}

// TestProcessActionsNeedTheirStatus: start and rewind act on a process that is down, the other
// process actions on one that is running; a commit-crash crashes after at least one call, a
// rewind needs a live channel, a redeclare a change.
func TestProcessActionsNeedTheirStatus(t *testing.T) {
	f := newFake()
	f.status[1] = Down
	f.declares[1] = true
	f.dead = map[int32]bool{20: true}
	script := []spec.ScriptedAction{
		{Kind: spec.ActStart, Process: "p"},
		{Kind: spec.ActStart, Process: "q"},
		{Kind: spec.ActCrash, Process: "p"},
		{Kind: spec.ActStop, Process: "q"},
		{Kind: spec.ActCommitCrash, Process: "p"},
		{Kind: spec.ActCommitCrash, Process: "p", Calls: 3},
		{Kind: spec.ActCommitCrash, Process: "q", Calls: 3},
		{Kind: spec.ActRewind, Process: "q", Topic: "a", Offset: 2},
		{Kind: spec.ActRewind, Process: "p", Topic: "a", Offset: 2},
		{Kind: spec.ActRewind, Process: "q", Topic: "b", Offset: 2},
		{Kind: spec.ActRedeclare, Process: "q", Topic: "b", Add: false},
		{Kind: spec.ActRedeclare, Process: "q", Topic: "b", Add: true},
		{Kind: spec.ActRedeclare, Process: "q", Topic: "nope", Add: true},
	}
	check(t, run(f, script...),
		"skipped", "start 1", "crash 0", "skipped",
		"commit-crash 0 after 1", "commit-crash 0 after 3", "skipped",
		"rewind 1 c10 to 2", "skipped", "skipped",
		"redeclare 1 topic 1", "skipped", "skipped")
}

// TestProduceWritesWhatTheActionNames: a produce goes to the named partition of the topic's
// live incarnation (skipped when there is none); a corrupt one with no headers writes the
// undecodable 63 01 02 03; named causes resolve to the live incarnations, leaving out those
// that do not exist; a stamped produce observes the record at its coordinate on the topic's live
// incarnation or on the one it counts, and is skipped when that incarnation or record is not
// there.
func TestProduceWritesWhatTheActionNames(t *testing.T) {
	f := newFake()
	stamped := func(incarnation int, topic string, partition int32) spec.ScriptedAction {
		return spec.ScriptedAction{Kind: spec.ActProduceStamped, Topic: "b",
			Observe: spec.CauseRef{Topic: topic, Partition: partition, Position: 3}, ObserveIncarnation: incarnation}
	}
	script := []spec.ScriptedAction{
		{Kind: spec.ActProducePlain, Topic: "a", Partition: 1},
		{Kind: spec.ActProducePlain, Topic: "a", Partition: 2},
		{Kind: spec.ActProducePlain, Topic: "gone"},
		{Kind: spec.ActProducePlain, Topic: "b", Key: []byte{1}, Value: []byte{2}},
		{Kind: spec.ActProduceCorrupt, Topic: "a"},
		{Kind: spec.ActProduceCorrupt, Topic: "a", Headers: [][]byte{{9}, nil}},
		{Kind: spec.ActProducePlain, Topic: "a", Causes: []spec.CauseRef{
			{Topic: "b", Position: 4}, {Topic: "a", Partition: 1, Position: 2}, {Topic: "gone", Position: 1}, {Topic: "a", Partition: 5}}},
		{Kind: spec.ActProduceCorrupt, Topic: "a", Header: []byte{0xff}},
		stamped(0, "a", 1),
		stamped(1, "a", 0),
		stamped(3, "a", 0),
		stamped(1, "gone", 0),
		stamped(0, "gone", 0),
		stamped(0, "nope", 0),
	}
	check(t, run(f, script...),
		"plain c11 key= value=", "skipped", "skipped", "plain c20 key=01 value=02",
		"corrupt c10 headers=[63010203] key= value=", "corrupt c10 headers=[09 ] key= value=",
		"forged c10 causes=[c11@2 c20@4] header=", "forged c10 causes=[] header=ff",
		"stamped c20 observes 1103", "stamped c20 observes 503", "skipped", "stamped c20 observes 3003",
		"skipped", "skipped")
}

// TestTransactionsKeepRecordedDraws: a recorded transaction (Records set) draws its record count
// from the payload stream as the chosen one did, and writes the recorded count; a hand-written
// one writes one record and draws nothing. Only one transaction is open at a time.
func TestTransactionsKeepRecordedDraws(t *testing.T) {
	f := newFake()
	script := []spec.ScriptedAction{
		{Kind: spec.ActTxnClose, Commit: true},
		{Kind: spec.ActTxnAbort, Topic: "a"},
		{Kind: spec.ActTxnAbort, Topic: "a", Records: 2},
		{Kind: spec.ActTxnOpen, Topic: "b", Records: 2},
	}
	check(t, run(f, script...),
		"skipped", "txn-abort c10 1 records", "draw 1..3; txn-abort c10 2 records", "draw 1..2; txn-open c20 2 records")
	f.txnOpen = true
	check(t, run(f, spec.ScriptedAction{Kind: spec.ActTxnOpen, Topic: "a"}, spec.ScriptedAction{Kind: spec.ActTxnClose}),
		"skipped", "txn-close commit=false")
}

// TestTopicFaultsNeedTheirTarget: delete-records cuts no further than the high watermark, and
// one naming no topic is a recorded step that found nothing to truncate; only an external topic
// is deleted or recreated, a deleted one only recreated; retention and session actions pass
// through.
func TestTopicFaultsNeedTheirTarget(t *testing.T) {
	f := newFake()
	script := []spec.ScriptedAction{
		{Kind: spec.ActDeleteRecords, Topic: "a", Offset: 7},
		{Kind: spec.ActDeleteRecords, Topic: "a", Offset: 8},
		{Kind: spec.ActDeleteRecords},
		{Kind: spec.ActDeleteTopic, Topic: "a"},
		{Kind: spec.ActDeleteTopic, Topic: "b"},
		{Kind: spec.ActDeleteTopic, Topic: "gone"},
		{Kind: spec.ActRecreateTopic, Topic: "gone"},
		{Kind: spec.ActRecreateTopic, Topic: "b"},
		{Kind: spec.ActRecreateTopic, Topic: "nope"},
		{Kind: spec.ActRetention},
		{Kind: spec.ActSessionWrite, Topic: "b"},
		{Kind: spec.ActSessionRead},
	}
	check(t, run(f, script...),
		"delete-records c10 before 7", "skipped", "nothing to truncate",
		"delete topic 0", "skipped", "skipped",
		"recreate topic 2", "skipped", "skipped",
		"retention", "session session-write", "session session-read; skipped")
}

package world

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/oracle"
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world/script"
)

// runScripted performs action a, the i-th of the scenario's script, as one step (script.Do).
func (w *World) runScripted(i int, a *spec.ScriptedAction) { script.Do((*scriptWorld)(w), i, a) }

// scriptWorld is the world as a scripted run reads and drives it (script.World): a type of its
// own, so that its facts and operations are no part of World's exported API; each method answers
// or acts as script.World documents it, by the world's own operation of the same name where
// there is one. (*scriptWorld)(w) costs nothing.
type scriptWorld World

var _ script.World = (*scriptWorld)(nil)

func (v *scriptWorld) w() *World { return (*World)(v) }

func (v *scriptWorld) BeginStep(k spec.ActionKind) {
	v.step++
	v.action = k
	v.stats.Actions[k]++
	v.clock.Advance(k)
}

func (v *scriptWorld) Skipped(detail string) { v.w().emitRaw("skipped", -1, detail) }

func (v *scriptWorld) Process(name string) int            { return v.w().procByName(name).idx }
func (v *scriptWorld) External(t int) bool                { return v.topics[t].spec.External }
func (v *scriptWorld) ChannelTopic(c int32) int           { return v.chans[c].topic }
func (v *scriptWorld) NodeChannel(c int32) node.Channel   { return v.chans[c].nc }
func (v *scriptWorld) Alive(c int32) bool                 { return v.w().alive(c) }
func (v *scriptWorld) HighWatermark(c int32) int64        { return int64(v.w().offsets(c).HighWatermark) }
func (v *scriptWorld) RecordAt(c int32, pos int64) uint64 { return v.or.RecordAt(c, pos) }
func (v *scriptWorld) TxnOpen() bool                      { return v.ext.open }

func (v *scriptWorld) Topic(name string) (int, bool) {
	t, ok := v.topicByName[name]
	return t, ok
}

func (v *scriptWorld) Channel(t, n, part int) int32 {
	if n == 0 {
		if inc := v.topics[t].inc; inc >= 0 {
			return v.w().chanOf(inc, part)
		}
		return -1
	}
	for inc := range v.incs {
		if v.incs[inc].topic == t {
			if n--; n == 0 {
				return v.w().chanOf(int32(inc), part)
			}
		}
	}
	return -1
}

func (v *scriptWorld) Status(p int) script.Status     { return script.Status(v.procs[p].status) }
func (v *scriptWorld) Received(p int) int             { return len(v.procs[p].recv) }
func (v *scriptWorld) ReceivedChannel(p, i int) int32 { return v.procs[p].recv[i].ch }
func (v *scriptWorld) Declares(p, t int) bool         { return v.procs[p].declares(t) }

func (v *scriptWorld) Feedable(p int, c int32) bool {
	return v.procs[p].feedable(v.procs[p].pcs.At(c))
}

func (v *scriptWorld) Feed(p int, c int32)                { v.procs[p].feed(v.procs[p].pcs.At(c)) }
func (v *scriptWorld) Redeclare(p, t int)                 { v.w().redeclare(v.procs[p], t) }
func (v *scriptWorld) CommitCrash(p, calls int)           { v.w().commitCrash(v.procs[p], calls) }
func (v *scriptWorld) Lifecycle(k spec.ActionKind, p int) { v.w().doLifecycle(k, v.procs[p]) }

func (v *scriptWorld) Rewind(p int, c int32, to int64) {
	v.w().rewind(v.procs[p], v.procs[p].pcs.At(c), to)
}

func (v *scriptWorld) ProducePlain(c int32, key, value []byte) {
	if key == nil && value == nil {
		v.w().producePlain(c)
		return
	}
	v.w().produce(c, oracle.MsgPlain, oracle.Stamp{}, key, value, nil)
}

func (v *scriptWorld) ProduceCorrupt(c int32, headers [][]byte, key, value []byte) {
	v.w().produceCorrupt(c, headers, key, value)
}

func (v *scriptWorld) ProduceForged(c int32, causes node.Causes, header, key, value []byte) {
	v.w().produceForged(c, causes, header, key, value)
}

func (v *scriptWorld) ProduceStamped(c int32, r uint64)    { v.w().produceStamped(c, r) }
func (v *scriptWorld) OpenTxn(c int32, n int)              { v.w().txnOpen(c, n) }
func (v *scriptWorld) CloseTxn(commit bool)                { v.w().txnClose(commit) }
func (v *scriptWorld) AbortTxn(c int32, n int)             { v.w().txnAbort(c, n) }
func (v *scriptWorld) DrawRecordCount(maxRecords int)      { v.streams.Payloads.IntN(maxRecords) }
func (v *scriptWorld) DeleteRecords(c int32, to int64)     { v.w().deleteRecords(c, to) }
func (v *scriptWorld) DeleteTopic(t int)                   { v.w().deleteTopic(t) }
func (v *scriptWorld) RecreateTopic(t int)                 { v.w().recreateTopic(t) }
func (v *scriptWorld) Retention()                          { v.w().retention() }
func (v *scriptWorld) Session(a *spec.ScriptedAction) bool { return v.sess.DoScripted(a) }

func (v *scriptWorld) NothingToTruncate() { v.w().emitRaw("truncated", -1, "nothing to truncate") }

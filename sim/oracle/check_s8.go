package oracle

// S8 (SPEC §6.1, D115): a process whose read position is, or resumes, below the earliest retained
// position fails closed; world truth: every committed record between where the process first read
// a channel and where it has committed reading to was actually fed to it. The oracle watches each
// fetch: a read position below the log start that does not fail closed, and any committed record
// the reader jumped over that the process was never fed, are violations once the step commits.

import (
	"fmt"

	"github.com/parsleysim/parsleysim/sim/spec"
)

// checkSkippedRecords stages S8 when feeding pos on pc jumps over committed records the process
// was never fed.
func (o *Oracle) checkSkippedRecords(at At, p *Proc, pc *chanState, pos int64) {
	from := max(pc.lastFed+1, pc.fedHigh+1, pc.firstRead)
	if from >= pos {
		return
	}
	if a := o.FirstRecordIn(pc.ch, from, pos-1); a >= 0 {
		o.stage(at, p, spec.CritS8, fmt.Sprintf("read past %s on %s without ever feeding it",
			o.MsgName(o.RecordAt(pc.ch, a)), o.ChanName(pc.ch)))
	}
}

// OnReadReset notes that p's host moved its read position readPos on channel c, below the log
// start logStart, up to the log start instead of failing closed: it stages S8.
func (o *Oracle) OnReadReset(at At, p *Proc, c int32, readPos, logStart int64) {
	o.stage(at, p, spec.CritS8, fmt.Sprintf("read position %d on %s is below log start %d and the process did not fail closed",
		readPos, o.ChanName(c), logStart))
}

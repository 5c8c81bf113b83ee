package world

import "github.com/parsleysim/parsleysim/sim/trace"

// Trace emission. Every event goes to each sink in RunOptions.Sinks, in order. Callers build
// details (fmt) only when w.tracing is set, so an untraced run allocates nothing for its trace.

// emitRaw emits an event about a process (-1: none) with no channel.
func (w *World) emitRaw(kind string, proc int, detail string) {
	if !w.tracing {
		return
	}
	w.ev = trace.Event{Step: w.step, TimeMicros: w.clock.Now(), Action: w.action, ActionName: w.action.String(),
		Kind: kind, Process: proc, Detail: detail}
	w.send()
}

// emitProc emits an event about process p.
func (w *World) emitProc(kind string, p *proc, detail string) {
	w.emitRaw(kind, p.idx, detail)
}

// emitChan emits an event about a position (and message, 0 for none) on channel c, by process p
// (nil: none).
func (w *World) emitChan(kind string, p *proc, c int32, pos int64, uid uint64, detail string) {
	if !w.tracing {
		return
	}
	proc := -1
	if p != nil {
		proc = p.idx
	}
	ch := &w.chans[c]
	w.ev = trace.Event{Step: w.step, TimeMicros: w.clock.Now(), Action: w.action, ActionName: w.action.String(),
		Kind: kind, Process: proc, Topic: w.topics[ch.topic].spec.Name, Incarn: int(ch.inc),
		Partition: ch.part, Position: pos, Msg: uid, Detail: detail}
	w.send()
}

// send hands the current event to every sink.
func (w *World) send() {
	for _, s := range w.opts.Sinks {
		s.Record(&w.ev)
	}
}

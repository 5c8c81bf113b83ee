package world

import "github.com/parsleysim/parsleysim/sim/spec"

// The clean restart the RESTART_INVISIBILITY check inserts into a scripted run (check_restart.go):
// where it goes and what it does to the world.

// restartPoint asks a scripted run for a clean restart of process proc after script action after
// (when the process is running with its step committed then), or, with orLater, after the first
// action from after on where some process is: the first such process counting from process index
// from. at and proc record where it happened and to whom (at -1: not yet).
type restartPoint struct {
	proc    string
	after   int
	orLater bool
	from    int
	at      int
}

// maybeRestart performs the requested clean restart after script action i.
func (w *World) maybeRestart(i int) {
	rp := w.opts.restart
	if rp == nil || rp.at >= 0 || i < rp.after || (!rp.orLater && i != rp.after) {
		return
	}
	var p *proc
	if rp.orLater {
		p = w.firstRestartable(rp.from)
	} else if q := w.procByName(rp.proc); restartable(q) {
		p = q
	}
	if p == nil {
		return
	}
	rp.at, rp.proc = i, p.spec.Name
	w.cleanRestart(p)
}

// firstRestartable returns the first restartable process counting from process index from, or nil.
func (w *World) firstRestartable(from int) *proc {
	for j := range w.procs {
		if p := w.procs[(from+j)%len(w.procs)]; restartable(p) {
			return p
		}
	}
	return nil
}

// cleanRestart stops p (a commit of nothing) and starts it again, as two steps of their own.
func (w *World) cleanRestart(p *proc) {
	p.own()
	w.step++
	w.action = spec.ActStop
	p.stop()
	w.step++
	w.action = spec.ActStart
	p.start(true)
}

// restartable reports whether p can be restarted cleanly now: running, with its step committed.
func restartable(p *proc) bool { return p.status == procRunning && !p.stepDirty }

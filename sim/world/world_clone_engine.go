package world

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/world/engine"
)

// engineRef is a process's engine behind its copy-on-write reference (package engine), which a
// clone shares with its original until one of them changes it.
type engineRef = engine.Ref

// startEngine is node.Start for p's next execution, built in spare (node.StartInto), its
// reference in se; with journaling on (an explored world) it keeps the start state (shared
// copy-on-write with p.committed) and the arguments.
func (p *proc) startEngine(se *startedEngine, spare *node.Engine, init node.Init, opts node.Options) (*engineRef, error) {
	eng, err := node.StartInto(spare, p.committed, init, opts)
	p.started = se
	if err != nil {
		return nil, err
	}
	se.ref.Start(eng)
	if p.w.opts.explored { // only an explored world's shells are recycled (World.cloneInto)
		p.store.noteStarted(eng)
		p.committedShared = true
		se.ref.Journal(&se.j, p.committed, init, opts)
	}
	return &se.ref, nil
}

// startedEngine is a started engine's reference, journal and Init lists (which the journal
// keeps) in one allocation, which lives as long as the execution: the explorer restarts
// processes often. Outside it, the next start reuses it with the engine.
type startedEngine struct {
	ref  engineRef
	j    engine.Journal
	init initRoom
}

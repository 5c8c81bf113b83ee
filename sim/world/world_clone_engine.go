package world

import (
	"github.com/parsleysim/parsleysim/node"
	"github.com/parsleysim/parsleysim/sim/world/engine"
)

// engineRef is a process's engine behind its copy-on-write reference (package engine), which a
// clone shares with its original until one of them changes it.
type engineRef = engine.Ref

// startEngine is node.Start for p's next execution, its reference in se; with journaling on (an
// explored world) it keeps the start state (shared copy-on-write with p.committed) and the
// arguments.
func (p *proc) startEngine(se *startedEngine, init node.Init, opts node.Options) (*engineRef, error) {
	eng, err := node.StartInto(p.deadEngine(), p.committed, init, opts)
	if err != nil {
		return nil, err
	}
	p.store.noteStarted(eng)
	se.ref.Start(eng)
	if p.w.opts.explored {
		p.committedShared = true
		se.ref.Journal(&se.j, p.committed, init, opts)
	}
	return &se.ref, nil
}

// startedEngine is a started engine's reference, journal and Init lists in one allocation: the
// explorer restarts a process on about one transition in six, and all of them live as long as
// the execution.
type startedEngine struct {
	ref  engineRef
	j    engine.Journal
	init initRoom
}

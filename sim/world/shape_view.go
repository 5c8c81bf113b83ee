package world

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/world/shape"
)

// shapeView is the world as the scheduling rules read it (shape.World): a type of its own, so
// that its answers are no part of World's exported API; each method answers as shape.World
// documents it. (*shapeView)(w) costs nothing.
type shapeView World

var _ shape.World = (*shapeView)(nil)

// shapeRun is the run as the rules read it at the step being chosen (shape.Run).
func (w *World) shapeRun() *shape.Run {
	return &shape.Run{Step: w.step, Procs: len(w.procs), Settings: w.set, Stats: &w.stats, World: (*shapeView)(w)}
}

func (v *shapeView) FaultHasTarget(k spec.ActionKind) bool { return (*World)(v).faultHasTarget(k) }
func (v *shapeView) AimableReceivers() int                 { return (*World)(v).aimableReceivers() }
func (v *shapeView) AnyRemovableHolds() bool               { return (*World)(v).anyRemovableHolds() }
func (v *shapeView) DeletionOnlyHeld() bool                { return (*World)(v).deletionOnlyHeld() }
func (v *shapeView) AgedDeletionTarget(since int) bool {
	return (*World)(v).agedDeletionTarget(since)
}

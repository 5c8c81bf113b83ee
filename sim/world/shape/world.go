package shape

import (
	"github.com/parsleysim/parsleysim/sim/spec"
	"github.com/parsleysim/parsleysim/sim/swarm"
)

// Run is what the rules read of a run at the step being chosen: where it stands, its settings
// and counts, and the facts of its world. The world fills one for each question; a rule changes
// nothing in it.
type Run struct {
	// Step is the number of world steps taken so far; the action being chosen runs at Step+1.
	Step int
	// Procs is the number of processes: the safety phase starts at that step, after every
	// process has started.
	Procs int
	// Settings are the run's swarm settings.
	Settings *swarm.Settings
	// Stats are the run's counts so far.
	Stats *spec.Stats
	// World answers what the rules ask of the world's state.
	World World
}

// World is what the rules read of a run's world: facts about its state, never which sabotage
// mode is on, and nothing a rule could change the world with. The world answers from its own
// tables (package world implements it); a rule decides from the answers what to prefer, how much
// and when.
type World interface {
	// FaultHasTarget reports whether fail-closed kind k has an interesting target now: a receiver
	// it would stop that no earlier fault already stops.
	FaultHasTarget(k spec.ActionKind) bool
	// AimableReceivers counts the processes that have not failed closed, are not doomed by an
	// earlier fault, read no deletion-only topic, and receive a channel of a live external topic.
	AimableReceivers() int
	// AnyRemovableHolds reports whether a down process that is not doomed holds messages on a
	// channel a redeclaration can remove, while no redeclaration has removed a channel with
	// holds yet.
	AnyRemovableHolds() bool
	// DeletionOnlyHeld reports whether a live deletion-only topic has a blocked head a rollback
	// keeps, at a receiver that is neither failed nor doomed.
	DeletionOnlyHeld() bool
	// AgedDeletionTarget reports whether a deletion has a target whose blocked head was fed at
	// world step since or earlier.
	AgedDeletionTarget(since int) bool
}

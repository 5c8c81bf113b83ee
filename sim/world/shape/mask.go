package shape

import "github.com/parsleysim/parsleysim/sim/swarm"

// The rules on a process's eligibility: the exemptions that take a process out of an action
// kind's targets, or a channel out of a feed's, for a while. Unlike the weights they change what
// can be chosen, so each is a setting's own (swarm runs switch it on; an exploration leaves it
// off and enumerates every schedule) or a property of the scenario.

// LeftRunning reports whether running process p is no target of a crash, stop, migration or
// zombie (and so of a crash inside a commit): under Settings.SpareDeadHoldSurvivors, when it
// holds fed, undelivered messages on a channel that no longer exists (World.HeldOnDead). Its
// engine carried on where an honest one refuses (CHANNEL_DELETED_WITH_UNDELIVERED_MESSAGES,
// CHANNEL_IDENTITY_CHANGED), so it survives only in a sabotaged run. Each of those faults
// restarts it, rolls back what it delivered since its last commit (a staged S9 violation with it)
// and, when the restart drops its feed state, can lose the hold; left running, the survivor shows
// whether it delivers past its dead hold. An honest run never has a running process holding on a
// dead channel (its receivers refuse at the restart the deletion or recreation forces), so its
// schedule is unchanged.
func LeftRunning(set *swarm.Settings, w World, p int) bool {
	return set.SpareDeadHoldSurvivors && w.HeldOnDead(p)
}

// Redeclarable reports whether down process p may be redeclared: not when it declares a
// deletion-only topic (World.ReadsDeletionOnly), the deletion quarry's reader, which a removal
// with holds would stop before the deletion it waits for.
func Redeclarable(w World, p int) bool { return !w.ReadsDeletionOnly(p) }

// FeedPause is the first world step whose fed heads pause the feed of their causes, for a feed
// at world step step, and whether feeds pause at all (Settings.HoldPauseSteps): a feed does not
// pick a channel that a head fed at that step or later waits on (a fact the world keeps beside
// its feed state). Feeding the cause at once would release the hold at the next drain; paused, the
// held message stays held across drains and more records queue behind it, which is the shape
// FIFO, crash and deletion faults test.
func FeedPause(set *swarm.Settings, step int) (since int, on bool) {
	return step - set.HoldPauseSteps, set.HoldPauseSteps > 0
}

package swarm

// The timing rules of the world's schedule (sim/world/world_schedule.go): when a rule raises the weight
// of an enabled action kind, and by how much. The rules change weights only, never which kinds
// are enabled.
const (
	// LastCallFraction: the last-call rule acts in the last 1/LastCallFraction of the safety
	// phase.
	LastCallFraction = 6
	// FaultDueBoost is how many times the other kinds' total weight a due fail-closed fault
	// weighs: it fires at its step with probability 4/5, and within a few steps almost surely.
	FaultDueBoost = 4
	// RedeclareHeldBoost multiplies the weight of a redeclaration while a down process holds
	// messages on a channel a redeclaration can remove, late in the safety phase.
	RedeclareHeldBoost = 20
	// RedeclareLatePct is the last part of the safety phase, in percent, in which
	// RedeclareHeldBoost applies: a removal makes its receiver fail closed, so earlier it would
	// end the deliveries the run's other faults need. It reaches further back than the late
	// fail-closed faults because a recreation may come early (DueEarlyPct) and stop the last
	// receivers a removal could find.
	RedeclareLatePct = 70
	// DueEarlyPct is the part of the safety phase, in percent, before which no fault is due
	// early: the run first delivers and builds up holds.
	DueEarlyPct = 40
)

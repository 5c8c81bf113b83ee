package swarm

// The bias weights of the world's target choices (sim/world/world_targets.go): each is what a receiver
// that makes a target interesting adds to the target's weight, or what a target's shape
// multiplies or divides it by. Every candidate keeps a weight of at least 1, so they change how
// likely a target is, never whether it can be chosen.

// Bias weights added per receiver that makes a target interesting.
const (
	TargetLiveReceiver    = 2  // a process that has not failed closed receives the target
	TargetRunningReceiver = 12 // ... and is running, so a topic change re-initialises it now
	TargetHeldOn          = 16 // ... and holds fed, undelivered messages from it
	TargetSharedReceiver  = 6  // ... and also receives the channel a stamped record names
	TargetBlockedHead     = 48 // ... and its head there waits on another channel (blockedHead)
	TargetUnfedCause      = 24 // ... and has not been fed the record a stamped record names
	// A truncation is aimed hard at running receivers it passes (sim's receiverWeight): aimed weakly,
	// it lands on channels nobody receives, or passes no live receiver although one is there to
	// pass, and exposes nothing.
	TargetUnread   = 48 // a live receiver has not read the truncated channel to its end
	TargetPastRead = 48 // a truncation offset past a receiver's position
	// A corrupt header is aimed hard at the running receivers that will read it
	// (sim's receiverWeight: a quarter for a down one), on its topic and its partition: a corrupt
	// record on a partition nobody receives, or whose receivers have all stopped, refuses
	// nothing and exposes nothing.
	TargetCorruptReader = 48
	// TargetRewindable is added to a rewind's process when it is not doomed (sim/world/world_doomed.go:
	// a doomed process refuses at its next start whatever it re-reads) and to a received
	// channel that has a record between its log start and the committed position (the rewind
	// re-feeds something): a rewind re-feeds delivered records, which the engine must drop as
	// replays.
	TargetRewindable = 8
	// TargetUnreadCorrupt divides the weight of deleting or recreating a topic with a corrupt
	// record that a live receiver has not read yet (sim's unreadCorrupt): the new incarnation (or no
	// incarnation) erases the corrupt record before anyone reads it, so the run loses the one
	// corrupt header its settings insist on. It divides rather than zeroes the weight: the
	// recreation and deletion faults need those topics too.
	TargetUnreadCorrupt = 4
	// TargetUndisturbed multiplies the weight of a topic no fail-closed fault has hit yet
	// (sim's topicDisturbed), so the run's few fail-closed faults spread over the topology instead of
	// piling onto the receivers an earlier one already stopped.
	TargetUndisturbed = 3
	// TargetSpared is added to a fail-closed fault's target that stops no doomed process (a
	// survivor of an earlier fault), so that even with no live receiver left anywhere a last-call
	// fault prefers a target that spares the survivors.
	TargetSpared = 4
)

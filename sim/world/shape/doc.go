// Package shape holds the scheduling rules: the biases the swarm's settings and the world's
// scheduler apply so that a run builds the states that expose a fault. A uniformly random schedule
// rarely builds them: a message held while its cause is not yet fed, a topic deleted under such a
// hold, a truncation past a running receiver's position. Each bias is one named rule, listed in
// the table below with the file that holds it; its doc comment says what shape it builds and why
// that shape matters.
//
// The rules read the settings and the world's state, never which sabotage mode is on: the rules
// of this package read the world through World, a read-only view of facts that package world
// implements (the facts themselves, such as a blocked head or a doomed process, are computed
// beside the data they read). Most rules change weights only, never whether a choice is possible;
// the exceptions are the settings' own (a fault class a seed switches off, FeedPause and
// LeftRunning, which swarm settings switch on and explorations leave off, so an exploration still
// enumerates every schedule) and the deletion quarry's reservation, a property of the scenario
// (Redeclarable, TopicSpec.Spares).
//
// The deletion quarry is a topic a scenario reserves for the deletion fault
// (TopicSpec.DeletionOnly; TopicSpec.Spares names the reservation once): no corrupt record
// (ExternalWeight), truncation (TruncationWeight; the world gives it no retention policy),
// recreation (ExternalWeight) or redeclaration (Redeclarable, RedeclareWeight) is aimed at it or
// at its receivers, so they are still running, holding its messages, when a deletion comes due.
// Every other rule treats it as any external topic: it is produced to, fed, crashed around. Its
// deletion is due early once it has a blocked head to strand (DeletionDueEarly,
// World.DeletionOnlyHeld), and weighs more then (ExternalWeight): its receivers stop (in an
// honest run) without costing any other fault a receiver. There is no such reservation for
// truncation: the extra topic and reader it needs thin out the produce and the steps the other
// receivers get.
//
// The measurements that chose each rule and its weights are in results/heuristics.md.
// TestShapesTable keeps the table and the code in step: every row names an identifier its file
// declares, and every exported function of this package has a row.
//
//	rule                     file                              shape
//	swarmKinds               sim/swarm/swarm.go                each seed switches on its own subset of fault classes
//	scaleFailClosed          sim/swarm/swarm.go                faults that stop receivers for good come about once a run
//	drawFaultSchedule        sim/swarm/swarm.go                each fail-closed fault is due once, late in the safety phase
//	stampWhereDeleted        sim/swarm/swarm.go                a seed that deletes topics produces stamped records to hold
//	rewindStopWeight         sim/swarm/swarm.go                a seed that rewinds has a way to stop a process
//	holdPauseSteps           sim/swarm/swarm.go                swarm runs pause feeding a held message's cause
//	KindWeights              sim/world/shape/kinds.go          the rules on the action kind, in order
//	LastCall                 sim/world/shape/kinds.go          every fault class a seed switches on fires before the end
//	DueFailClosed            sim/world/shape/kinds.go          a due fail-closed fault fires at a target that shows something
//	FaultDue                 sim/world/shape/kinds.go          a fail-closed fault comes due at its step, or early when the run loses receivers
//	FaultFired               sim/world/shape/kinds.go          a corrupt record that decodes does not count as the fault
//	dueEarlyKinds            sim/world/shape/kinds.go          a recreation comes due early while receivers still run
//	DeletionDueEarly         sim/world/shape/kinds.go          a deletion comes due early at the quarry or at an aged blocked head
//	RemoveHeldChannelsLate   sim/world/shape/kinds.go          a redeclaration removes a channel with holds, once, late
//	RedeclareProcWeight      sim/world/shape/targets.go        the redeclared process holds on a removable channel
//	RedeclareWeight          sim/world/shape/targets.go        the redeclared topic is one the process holds on
//	ExternalWeight           sim/world/shape/targets.go        produce and topic faults aim at receivers that meet them
//	ExternalWeights          sim/world/shape/targets.go        the same over every topic, a produce's from the memo's counts
//	PartitionWeight          sim/world/shape/targets.go        the same aim at partition grain
//	TruncationWeight         sim/world/shape/targets.go        truncations aim at channels running receivers have not read
//	TruncationOffsetWeight   sim/world/shape/targets.go        a truncation passes one receiver's position, not several
//	targetUndisturbed        sim/world/shape/targets.go        fail-closed faults spread over the topology
//	targetUnreadCorrupt      sim/world/shape/targets.go        a topic change spares a corrupt record still to be read
//	RewindProcWeight         sim/world/shape/targets.go        a rewind targets a process that can start again
//	RewindChannelWeight      sim/world/shape/targets.go        a rewind re-feeds records
//	doomed                   sim/world/world_doomed.go         faults spare processes an earlier fault already stops
//	LeftRunning              sim/world/shape/mask.go           a survivor holding on a dead channel is left running
//	Redeclarable             sim/world/shape/mask.go           the deletion quarry's reader is never redeclared
//	deletionOnlyHeld         sim/world/world_deletion_only.go  the deletion quarry: a topic kept for its deletion
//	TruncationOffsets        sim/world/shape/offsets.go        truncation offsets sit at receivers' positions and held heads
//	drawCorruption           sim/world/world_produce.go        a due corrupt-header fault writes a header no engine may decode
//	crashInsideCommit        sim/world/host_commit.go          a seeded share of crashes lands inside a commit
//	RewindOffsets            sim/world/shape/offsets.go        rewind offsets land on records, not markers
//	LagChannel               sim/world/shape/feed.go           one channel of each receiver lags, so records wait for causes
//	FeedWeight               sim/world/shape/feed.go           the feed rules' weight of one channel
//	FeedPause                sim/world/shape/mask.go           a held message's cause is not fed for a while
//	heldCauseLast            sim/world/shape/feed.go           a held message's cause is fed last
//	waitingRecordBoost       sim/world/shape/feed.go           a record that will be held is fed first
//	LaggingRecords           sim/world/shape/observed.go       a stamped record names a recent record or one a receiver lags on
//	UnfedReceivers           sim/world/shape/observed.go       ... counting the receivers it can reach before the named record
//	ObservedWeight           sim/world/shape/targets.go        ... most likely one several receivers have not been fed
//
// The random topology's own shapes (how many external topics, how many readers each, the deletion
// quarry's silent reader) are rules of package scenarios (random_topology.go, random_quarry.go).
package shape

package scenarios

import "fmt"

// Deletion quarry names: the held topic, whose deletion strands the quarry's holds, and the
// cause topic its stamped records wait on.
const (
	quarryHeldTopic  = "xh"
	quarryCauseTopic = "xc"
)

// addDeletionQuarry adds to a small topology whose seed deletes topics a silent process reading
// two deletion-only external topics (spec.TopicSpec.DeletionOnly): stamped records on the held
// topic name records of the cause topic, so the quarry holds them whenever it lags on the cause
// topic, and no fault but the deletion stops it first. A deletion of the held topic while the
// quarry holds messages from it is the shape DELIVER_PAST_DEAD_HOLDS needs (SPEC §6.1 S9): the
// honest engine refuses, a faulty one delivers the cause topic's next record past the dead hold.
// In the rest of the topology every fail-closed fault competes for the same receivers, and by the
// time a deletion comes due (late, so the others have had their run) most receivers holding
// anything have already failed closed.
func addDeletionQuarry(t *Topology) {
	t.Topics = append(t.Topics,
		Topic{Name: quarryCauseTopic, Partitions: 1, External: true, DeletionOnly: true},
		Topic{Name: quarryHeldTopic, Partitions: 1, External: true, DeletionOnly: true})
	t.Processes = append(t.Processes, Process{
		Name:     fmt.Sprintf("p%d", len(t.Processes)),
		Receives: []string{quarryCauseTopic, quarryHeldTopic},
	})
}

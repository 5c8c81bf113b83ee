package substrate

// Retention on the adapter. A broker applies retention.ms against its wall clock and the batch
// timestamps it stores, which would make a run depend on when it ran and lose the record
// timestamps' microseconds. So the adapter disables broker retention (topicConfigs) and carries
// out the contract's retention itself, at AdvanceClock, as DeleteRecords up to the offset the
// policy asks for, computed exactly as the model computes it: from the run's virtual time.
//
// That needs the virtual time of every offset, which the adapter knows because it wrote every
// offset of its topics: a record's is its TimestampMicros (the offset comes back from the
// produce), a transaction marker's is the virtual clock when the transaction ended or was
// aborted by fencing. A marker's offset is not returned by anything, so markers are located
// lazily: the offsets a partition skipped between two writes of the adapter's (or before its
// high watermark) are its markers, in the order the transactions ended, which is also the order
// in which a broker writes them to one partition. An offset the adapter did not account for (a
// broker aborting a transaction on its timeout) gets the clock reading at which it was found.

import (
	"fmt"
	"maps"
	"slices"
)

// partitionTimes is the virtual time of each offset of one partition, as far as it is known.
type partitionTimes struct {
	// base is the offset of times[0]; times[i] is the virtual time (micros) of offset base+i.
	// Offsets below base are below the log start and no longer needed.
	base  Offset
	times []int64
	// marks are the clock readings of transaction markers written to the partition whose
	// offsets are not located yet, oldest first.
	marks []int64
}

// next is the first offset whose time is not known yet.
func (pt *partitionTimes) next() Offset { return pt.base + Offset(len(pt.times)) }

// fill gives the offsets in [next, to) their times: they are the pending markers, oldest
// first, or written by someone else (time nowMicros).
func (pt *partitionTimes) fill(to Offset, nowMicros int64) {
	for pt.next() < to {
		t := nowMicros
		if len(pt.marks) > 0 {
			t, pt.marks = pt.marks[0], pt.marks[1:]
		}
		pt.times = append(pt.times, t)
	}
}

// record notes that a record with virtual time micros was written at offset o.
func (pt *partitionTimes) record(o Offset, micros, nowMicros int64) {
	if o < pt.next() { // already located (cannot happen while the adapter is the only writer)
		if o >= pt.base {
			pt.times[o-pt.base] = micros
		}
		return
	}
	pt.fill(o, nowMicros)
	pt.times = append(pt.times, micros)
}

// retentionStart returns the log start policy asks for at nowMicros, given the partition's
// watermarks: past the longest prefix of [logStart, hw) older than nowMicros - TimeMicros, and
// past the oldest offsets beyond MaxOffsets (see RetentionPolicy).
func (pt *partitionTimes) retentionStart(policy RetentionPolicy, offsets Offsets, nowMicros int64) Offset {
	to := offsets.LogStart
	if policy.TimeMicros > 0 {
		pt.fill(offsets.HighWatermark, nowMicros)
		cutoffMicros := nowMicros - policy.TimeMicros
		for to < offsets.HighWatermark && to >= pt.base && pt.times[to-pt.base] < cutoffMicros {
			to++
		}
	}
	if policy.MaxOffsets > 0 {
		to = max(to, offsets.HighWatermark-Offset(policy.MaxOffsets))
	}
	return to
}

// trim forgets the times of offsets below logStart once they are many, so a partition held at
// a steady size by retention does not keep the times of everything it ever held.
func (pt *partitionTimes) trim(logStart Offset) {
	if dead := int(logStart - pt.base); dead >= 64 && dead*2 >= len(pt.times) {
		dead = min(dead, len(pt.times))
		pt.times = slices.Delete(pt.times, 0, dead)
		pt.base += Offset(dead)
	}
}

// timesOf returns tp's times, creating them empty.
func (k *Kafka) timesOf(tp TopicPartition) *partitionTimes {
	pt, ok := k.times[tp]
	if !ok {
		pt = &partitionTimes{}
		k.times[tp] = pt
	}
	return pt
}

// noteMarkers records that a transaction that wrote to parts ended now: each partition's
// current incarnation of the same name and number receives one marker (see Substrate.DeleteTopic
// and the differential test's settled disagreement on markers after recreation).
func (k *Kafka) noteMarkers(parts []TopicPartition) {
	var marked []TopicPartition
	for _, tp := range parts {
		t := k.topics[tp.Topic]
		if t.deleted {
			cur, bound := k.byName[t.name]
			if !bound || int(tp.Partition) >= k.topics[cur].partitions {
				continue
			}
			tp.Topic = cur
		}
		if slices.Contains(marked, tp) {
			continue
		}
		marked = append(marked, tp)
		pt := k.timesOf(tp)
		pt.marks = append(pt.marks, k.clock)
	}
}

// SetRetention implements Substrate. The policy is carried out by the adapter at AdvanceClock
// from virtual time; the broker's own retention stays disabled.
func (k *Kafka) SetRetention(name string, policy RetentionPolicy) error {
	id, ok := k.byName[name]
	if !ok {
		return fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	if policy.TimeMicros < 0 || policy.MaxOffsets < 0 {
		return fmt.Errorf("%w: retention %+v for %q", ErrInvalidArgument, policy, name)
	}
	if policy == (RetentionPolicy{}) {
		delete(k.retention, id)
		return nil
	}
	k.retention[id] = policy
	return nil
}

// AdvanceClock implements Substrate: every topic's retention policy, as DeleteRecords, in
// topic ID order.
func (k *Kafka) AdvanceClock(nowMicros int64) error {
	k.clock = max(k.clock, nowMicros)
	for _, id := range slices.SortedFunc(maps.Keys(k.retention), TopicID.Compare) {
		policy := k.retention[id]
		for p := range k.topics[id].partitions {
			tp := TopicPartition{id, Partition(p)}
			offsets, err := k.ListOffsets(tp)
			if err != nil {
				return err
			}
			pt := k.timesOf(tp)
			if to := pt.retentionStart(policy, offsets, k.clock); to > offsets.LogStart {
				if err := k.DeleteRecords(tp, to); err != nil {
					return err
				}
				pt.trim(to)
			}
		}
	}
	return nil
}

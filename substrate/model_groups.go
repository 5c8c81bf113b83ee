package substrate

import (
	"fmt"
	"slices"
)

// modelGroup is one consumer group's committed offsets, sorted by TopicPartition.
type modelGroup struct {
	name    string
	offsets []GroupOffset
	// shared says offsets is shared with a clone (copy-on-write: ownGroupAt).
	shared bool
}

// set commits o, replacing the group's previous offset for the same partition.
func (g *modelGroup) set(o GroupOffset) {
	lo, hi := 0, len(g.offsets) // binary search for the first offset not below o's partition
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if g.offsets[mid].TopicPartition.Compare(o.TopicPartition) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(g.offsets) && g.offsets[lo].TopicPartition == o.TopicPartition {
		g.offsets[lo] = o
		return
	}
	g.offsets = slices.Insert(g.offsets, lo, o)
}

// hasTopic reports whether the group has an offset on topic id.
func (g *modelGroup) hasTopic(id TopicID) bool {
	return slices.ContainsFunc(g.offsets, func(o GroupOffset) bool { return o.Topic == id })
}

// dropTopic removes the offsets on a deleted topic.
func (g *modelGroup) dropTopic(id TopicID) {
	g.offsets = filterInPlace(g.offsets, func(o GroupOffset) bool { return o.Topic != id })
}

// validGroupOffset checks that o names a live partition and a non-negative offset, and returns
// the partition's incarnation number.
func (m *Model) validGroupOffset(o GroupOffset) (int32, error) {
	idx, _, err := m.livePartition(o.TopicPartition)
	if err != nil {
		return 0, err
	}
	if o.Offset < 0 {
		return 0, fmt.Errorf("%w: negative group offset %d on %s/%d", ErrInvalidArgument, o.Offset,
			o.Topic, o.Partition)
	}
	return idx, nil
}

// CommitOffsets implements Substrate. All offsets are validated before any is committed.
func (m *Model) CommitOffsets(group string, offsets []GroupOffset) error {
	if group == "" {
		return fmt.Errorf("%w: empty group", ErrInvalidArgument)
	}
	for _, o := range offsets {
		if _, err := m.validGroupOffset(o); err != nil {
			return err
		}
	}
	g := m.ownGroup(group)
	for _, o := range offsets {
		g.set(o)
	}
	return nil
}

// CommittedOffsets implements Substrate. Offsets on deleted topics were dropped at deletion.
func (m *Model) CommittedOffsets(group string) ([]GroupOffset, error) {
	i, ok := m.searchGroup(group)
	if !ok || len(m.groups[i].offsets) == 0 {
		return nil, nil
	}
	return slices.Clone(m.groups[i].offsets), nil
}

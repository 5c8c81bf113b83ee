package substrate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// groupPartition keys a committed group offset the way Kafka's group coordinator does: by name.
type groupPartition struct {
	group     string
	topic     string
	partition Partition
}

// validGroupOffsets checks every offset against the adapter's table and returns the topic names.
func (k *Kafka) validGroupOffsets(offsets []GroupOffset) ([]string, error) {
	names := make([]string, len(offsets))
	for i, o := range offsets {
		name, err := k.knownPartition(o.TopicPartition)
		if err != nil {
			return nil, err
		}
		if o.Offset < 0 {
			return nil, fmt.Errorf("%w: negative group offset %d on %s/%d", ErrInvalidArgument, o.Offset,
				o.Topic, o.Partition)
		}
		names[i] = name
	}
	return names, nil
}

// CommitOffsets implements Substrate with an OffsetCommit outside any group generation (what
// kadm and admin tools send).
func (k *Kafka) CommitOffsets(group string, offsets []GroupOffset) error {
	if group == "" {
		return fmt.Errorf("%w: empty group", ErrInvalidArgument)
	}
	names, err := k.validGroupOffsets(offsets)
	if err != nil || len(offsets) == 0 {
		return err
	}
	k.groups[group] = true
	k.addGroup(k.clusterGroup(group))
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group = k.clusterGroup(group)
	req.Generation = -1
	for i, o := range offsets {
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic = k.clusterName(names[i])
		rt.TopicID = o.Topic
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition = int32(o.Partition)
		rp.Offset = int64(o.Offset)
		rp.LeaderEpoch = -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	err = k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return mapErr(err, fmt.Sprintf("commit offsets of group %q", group))
	}
	for i, o := range offsets {
		k.committed[groupPartition{group, names[i], o.Partition}] = o
	}
	return nil
}

// settleTxnOffsets runs after a transaction with staged offsets commits. Kafka's coordinator
// drops pending transactional offsets of partitions deleted meanwhile; kfake applies them by
// name, possibly over the offset of the topic's next incarnation. The adapter undoes that: it
// restores the offset it last committed for the live incarnation, or deletes the stray one.
// Pending offsets are keyed by name and partition, so only the last offset staged for one counts
// (a recreated topic's offset staged after the deletion replaces the dead incarnation's, in
// Kafka as in kfake): the earlier ones are skipped, or undoing a dead one would delete it.
func (k *Kafka) settleTxnOffsets(staged []stagedKafkaOffset) error {
	for i, s := range staged {
		key := groupPartition{s.group, s.name, s.offset.Partition}
		if stagedLater(staged[i+1:], key) {
			continue
		}
		if t := k.topics[s.offset.Topic]; !t.deleted {
			k.committed[key] = s.offset
			continue
		}
		if prev, ok := k.committed[key]; ok && !k.topics[prev.Topic].deleted {
			if err := k.CommitOffsets(s.group, []GroupOffset{prev}); err != nil {
				return err
			}
			continue
		}
		ctx, cancel := k.ctx()
		set := make(kadm.TopicsSet)
		set.Add(k.clusterName(s.name), int32(s.offset.Partition))
		_, err := k.adm.DeleteOffsets(ctx, k.clusterGroup(s.group), set)
		cancel()
		if err != nil {
			return mapErr(err, fmt.Sprintf("delete stray offset of %q/%d in group %q", s.name, s.offset.Partition, s.group))
		}
	}
	return nil
}

// stagedLater reports whether an offset for key was staged among later.
func stagedLater(later []stagedKafkaOffset, key groupPartition) bool {
	for _, s := range later {
		if s.group == key.group && s.name == key.topic && s.offset.Partition == key.partition {
			return true
		}
	}
	return false
}

// CommittedOffsets implements Substrate: OffsetFetch, keeping offsets on topics alive now.
func (k *Kafka) CommittedOffsets(group string) ([]GroupOffset, error) {
	var out []GroupOffset
	err := k.withRetry(func(ctx context.Context) error {
		out = out[:0]
		resp, err := k.adm.FetchOffsets(ctx, k.clusterGroup(group))
		if err != nil {
			return err
		}
		for cluster, ps := range resp {
			name, under := k.scenarioName(cluster)
			id, live := k.byName[name]
			if !under || !live {
				continue
			}
			for p, o := range ps {
				if o.Err != nil || o.At < 0 {
					continue
				}
				out = append(out, GroupOffset{TopicPartition{id, Partition(p)}, Offset(o.At)})
			}
		}
		return nil
	})
	if errors.Is(err, kerr.GroupIDNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err, fmt.Sprintf("fetch offsets of group %q", group))
	}
	if len(out) == 0 {
		return nil, nil
	}
	slices.SortFunc(out, func(a, b GroupOffset) int { return a.TopicPartition.Compare(b.TopicPartition) })
	return out, nil
}

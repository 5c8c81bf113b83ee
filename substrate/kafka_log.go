package substrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchMaxBytes bounds one fetch response; FetchInto issues more requests when a response stops
// short of the LSO.
const fetchMaxBytes = 1 << 20

// produceTimeoutMillis is the broker-side produce timeout.
const produceTimeoutMillis = 10_000

// Produce implements Substrate. Plain produces carry no producer ID; idempotent ones carry the
// adapter's idempotent producer ID and per-partition sequence numbers.
func (k *Kafka) Produce(tp TopicPartition, rec Record, mode ProduceMode) (Offset, error) {
	if mode != ProducePlain && mode != ProduceIdempotent {
		return 0, fmt.Errorf("%w: produce mode %d", ErrInvalidArgument, mode)
	}
	name, err := k.knownPartition(tp)
	if err != nil {
		return 0, err
	}
	pf := noProducer
	if mode == ProduceIdempotent {
		if err := k.initIdempotent(); err != nil {
			return 0, err
		}
		pf = k.idempotent
		pf.sequence = k.sequences[tp]
	}
	o, err := k.produce(tp, name, nil, rec, pf)
	if err != nil {
		return 0, err
	}
	if mode == ProduceIdempotent {
		k.sequences[tp]++
	}
	return o, nil
}

// initIdempotent obtains the idempotent producer ID once.
func (k *Kafka) initIdempotent() error {
	if k.idempotent.id >= 0 {
		return nil
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.ProducerID, req.ProducerEpoch = -1, -1
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return err
		}
		k.idempotent = producerFields{id: resp.ProducerID, epoch: resp.ProducerEpoch}
		return nil
	})
	return mapErr(err, "init idempotent producer")
}

// produce sends one single-record batch to tp's leader and returns its offset.
func (k *Kafka) produce(tp TopicPartition, name string, txnID *string, rec Record, pf producerFields) (Offset, error) {
	req := kmsg.NewPtrProduceRequest()
	if txnID != nil {
		req.TransactionID = kmsg.StringPtr(k.clusterTxnID(*txnID))
	}
	req.Acks = -1
	req.TimeoutMillis = produceTimeoutMillis
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic, rt.TopicID = k.clusterName(name), tp.Topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition = int32(tp.Partition)
	rp.Records = encodeBatch(rec, pf)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	var offset Offset
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.broker(tp))
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return fmt.Errorf("substrate: malformed produce response for %q/%d", name, tp.Partition)
		}
		p := resp.Topics[0].Partitions[0]
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			if errors.Is(err, kerr.NotLeaderForPartition) {
				delete(k.leaders, tp)
			}
			return err
		}
		offset = Offset(p.BaseOffset)
		return nil
	})
	if err != nil {
		return 0, mapErr(err, fmt.Sprintf("produce to %q/%d", name, tp.Partition))
	}
	k.timesOf(tp).record(offset, rec.TimestampMicros, k.clock)
	return offset, nil
}

// Fetch implements Substrate.
func (k *Kafka) Fetch(tp TopicPartition, from Offset, maxRecords int) ([]FetchedRecord, Offset, error) {
	return k.FetchInto(nil, tp, from, maxRecords)
}

// fetchedPartition is one partition's answer to a raw fetch.
type fetchedPartition struct {
	offsets Offsets
	batches []decodedBatch
	aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction
}

// fetchRaw issues one read_committed fetch of tp from offset from, by topic ID.
func (k *Kafka) fetchRaw(tp TopicPartition, name string, from Offset) (fetchedPartition, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 0
	req.MaxBytes = fetchMaxBytes
	req.IsolationLevel = 1 // read_committed
	req.SessionID, req.SessionEpoch = 0, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.TopicID = tp.Topic
	if name != "" {
		rt.Topic = k.clusterName(name)
	}
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = int32(tp.Partition)
	rp.FetchOffset = int64(from)
	rp.LogStartOffset = -1
	rp.PartitionMaxBytes = fetchMaxBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)

	var out fetchedPartition
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.broker(tp))
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return fmt.Errorf("substrate: malformed fetch response for %s/%d", tp.Topic, tp.Partition)
		}
		p := &resp.Topics[0].Partitions[0]
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			if errors.Is(err, kerr.NotLeaderForPartition) {
				delete(k.leaders, tp)
			}
			return err
		}
		out.offsets = Offsets{
			LogStart:      Offset(p.LogStartOffset),
			LastStable:    max(Offset(p.LastStableOffset), Offset(p.LogStartOffset)),
			HighWatermark: Offset(p.HighWatermark),
		}
		out.aborted = p.AbortedTransactions
		out.batches, err = decodeBatches(p.RecordBatches, k.decompressor)
		return err
	})
	return out, mapErr(err, fmt.Sprintf("fetch %s/%d from %d", tp.Topic, tp.Partition, from))
}

// FetchInto implements Substrate. It fetches until it has maxRecords records or has passed every
// batch below the LSO, filtering markers and aborted records as a read_committed KafkaConsumer
// does. A deleted ID of this adapter's is sent to the broker as is, which answers
// UNKNOWN_TOPIC_ID; an ID it did not create is refused without asking.
func (k *Kafka) FetchInto(dst []FetchedRecord, tp TopicPartition, from Offset, maxRecords int) ([]FetchedRecord, Offset, error) {
	name := ""
	t, ok := k.topics[tp.Topic]
	if !ok {
		return dst, from, fmt.Errorf("%w: id %s was not created by this adapter", ErrUnknownTopic, tp.Topic)
	}
	if !t.deleted {
		if tp.Partition < 0 || int(tp.Partition) >= t.partitions {
			return dst, from, fmt.Errorf("%w: %s (%q) partition %d of %d", ErrUnknownPartition,
				tp.Topic, t.name, tp.Partition, t.partitions)
		}
		name = t.name
	}
	cur, n := from, 0
	for {
		fp, err := k.fetchRaw(tp, name, cur)
		if err != nil {
			return dst, from, err
		}
		lso, start := fp.offsets.LastStable, cur
		filter := newAbortFilter(fp.aborted)
		for i := range fp.batches {
			b := &fp.batches[i]
			if b.firstOffset >= lso {
				break
			}
			if filter.visible(b) {
				for _, r := range b.records {
					if r.Offset < cur || r.Offset >= lso {
						continue
					}
					dst = append(dst, r)
					n++
					if n == maxRecords {
						return dst, r.Offset + 1, nil
					}
				}
			}
			cur = max(cur, b.lastOffset+1)
		}
		if cur >= lso || cur == start { // done, or the broker has nothing more below the LSO
			return dst, max(from, lso), nil
		}
	}
}

// ListOffsets implements Substrate: the high watermark from ListOffsets, then LogStart and LSO
// from an empty fetch at the high watermark (one partition can only be listed once per request).
func (k *Kafka) ListOffsets(tp TopicPartition) (Offsets, error) {
	name, err := k.knownPartition(tp)
	if err != nil {
		return Offsets{}, err
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = k.clusterName(name)
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition = int32(tp.Partition)
	rp.CurrentLeaderEpoch = -1
	rp.Timestamp = -1 // latest
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	var hw Offset
	err = k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.broker(tp)) // direct: kgo's sharding trusts its metadata cache
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return fmt.Errorf("substrate: malformed list offsets response for %q/%d", name, tp.Partition)
		}
		p := resp.Topics[0].Partitions[0]
		hw = Offset(p.Offset)
		return kerr.ErrorForCode(p.ErrorCode)
	})
	if err != nil {
		return Offsets{}, mapErr(err, fmt.Sprintf("list offsets of %q/%d", name, tp.Partition))
	}
	fp, err := k.fetchRaw(tp, name, hw)
	if err != nil {
		return Offsets{}, err
	}
	return fp.offsets, nil
}

// DeleteRecords implements Substrate. Kafka treats a target at or below the log start as a no-op
// (UnifiedLog.maybeIncrementLogStartOffset); kfake answers OFFSET_OUT_OF_RANGE, so the adapter
// answers such requests itself.
func (k *Kafka) DeleteRecords(tp TopicPartition, before Offset) error {
	name, err := k.knownPartition(tp)
	if err != nil {
		return err
	}
	if before < 0 {
		return fmt.Errorf("%w: delete records of %q/%d before %d", ErrOffsetOutOfRange, name, tp.Partition, before)
	}
	offsets, err := k.ListOffsets(tp)
	if err != nil {
		return err
	}
	if before > offsets.HighWatermark {
		return fmt.Errorf("%w: delete records of %q/%d before %d, high watermark %d",
			ErrOffsetOutOfRange, name, tp.Partition, before, offsets.HighWatermark)
	}
	if before <= offsets.LogStart {
		return nil
	}
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = produceTimeoutMillis
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = k.clusterName(name)
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition = int32(tp.Partition)
	rp.Offset = int64(before)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	err = k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.broker(tp))
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return fmt.Errorf("substrate: malformed delete records response for %q/%d", name, tp.Partition)
		}
		return kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
	})
	return mapErr(err, fmt.Sprintf("delete records of %q/%d before %d", name, tp.Partition, before))
}

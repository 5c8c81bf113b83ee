package substrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnTimeoutMillis is the transaction timeout registered with InitProducerID: long enough that
// the broker never aborts a simulated transaction on its own during a test.
const txnTimeoutMillis = 60_000

// errZombieAccepted reports a broker that let a fenced producer act: a broker bug, and a
// deliberate non-sentinel so that a differential test flags it.
var errZombieAccepted = errors.New("substrate: broker accepted a request from a fenced producer")

// kafkaTxn is one transactional ID; gens[e] is the producer state handed out with handle epoch e.
type kafkaTxn struct {
	id   string
	gens []*kafkaTxnGen
}

// kafkaTxnGen is one InitTransactions' producer ID and epoch, and its transaction in progress.
type kafkaTxnGen struct {
	producer  producerFields
	open      bool
	added     []TopicPartition // partitions registered with AddPartitionsToTxn in this transaction
	groups    []string         // groups registered with AddOffsetsToTxn in this transaction
	staged    []stagedKafkaOffset
	sequences map[TopicPartition]int32
}

// stagedKafkaOffset is an offset sent to a transaction, with the topic name it was sent under.
type stagedKafkaOffset struct {
	group  string
	name   string
	offset GroupOffset
}

// InitTransactions implements Substrate: InitProducerID, which fences older epochs and makes the
// coordinator abort their open transaction.
func (k *Kafka) InitTransactions(transactionalID string) (TxnProducer, error) {
	if transactionalID == "" {
		return TxnProducer{}, fmt.Errorf("%w: empty transactional ID", ErrInvalidArgument)
	}
	slot, ok := k.txnByName[transactionalID]
	if !ok {
		slot = int32(len(k.txns))
		k.txns = append(k.txns, kafkaTxn{id: transactionalID})
		k.txnByName[transactionalID] = slot
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = kmsg.StringPtr(k.clusterTxnID(transactionalID))
	req.TransactionTimeoutMillis = txnTimeoutMillis
	req.ProducerID, req.ProducerEpoch = -1, -1
	g := &kafkaTxnGen{sequences: make(map[TopicPartition]int32)}
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
			return err
		}
		g.producer = producerFields{id: resp.ProducerID, epoch: resp.ProducerEpoch, txn: true}
		return nil
	})
	if err != nil {
		return TxnProducer{}, mapErr(err, fmt.Sprintf("init transactions %q", transactionalID))
	}
	t := &k.txns[slot]
	if n := len(t.gens); n > 0 && t.gens[n-1].open {
		k.noteMarkers(t.gens[n-1].added) // the fenced transaction was aborted
	}
	t.gens = append(t.gens, g)
	return TxnProducer{TransactionalID: transactionalID, Epoch: int32(len(t.gens) - 1), slot: slot}, nil
}

// txnGen resolves a handle to its generation and whether a later InitTransactions superseded it.
func (k *Kafka) txnGen(p TxnProducer) (*kafkaTxnGen, bool, error) {
	if p.TransactionalID == "" || p.slot < 0 || int(p.slot) >= len(k.txns) || k.txns[p.slot].id != p.TransactionalID ||
		p.Epoch < 0 || int(p.Epoch) >= len(k.txns[p.slot].gens) {
		return nil, false, fmt.Errorf("%w: transactional producer %+v was not issued by this substrate",
			ErrInvalidArgument, p)
	}
	gens := k.txns[p.slot].gens
	return gens[p.Epoch], int(p.Epoch) < len(gens)-1, nil
}

// zombieResult turns the outcome of a request a fenced producer sent into the contract's answer.
func zombieResult(p TxnProducer, err error) error {
	switch {
	case err == nil:
		return fmt.Errorf("%w: %q epoch %d", errZombieAccepted, p.TransactionalID, p.Epoch)
	case errors.Is(err, ErrFenced):
		return err
	}
	return fmt.Errorf("%w: %q epoch %d (broker said: %v)", ErrFenced, p.TransactionalID, p.Epoch, err)
}

// BeginTransaction implements Substrate. Beginning is client-side in Kafka, so a zombie is
// refused locally.
func (k *Kafka) BeginTransaction(p TxnProducer) error {
	g, stale, err := k.txnGen(p)
	if err != nil {
		return err
	}
	if stale {
		return fmt.Errorf("%w: %q epoch %d", ErrFenced, p.TransactionalID, p.Epoch)
	}
	if g.open {
		return fmt.Errorf("%w: %q began a transaction while one is open", ErrTxnState, p.TransactionalID)
	}
	g.open, g.added, g.groups, g.staged = true, g.added[:0], g.groups[:0], g.staged[:0]
	return nil
}

// ProduceTx implements Substrate. A zombie's request is still sent, with its old epoch, so the
// broker's fencing is what is observed.
func (k *Kafka) ProduceTx(p TxnProducer, tp TopicPartition, rec Record) (Offset, error) {
	g, stale, err := k.txnGen(p)
	if err != nil {
		return 0, err
	}
	name, perr := k.knownPartition(tp)
	if stale {
		if perr != nil {
			return 0, fmt.Errorf("%w: %q epoch %d", ErrFenced, p.TransactionalID, p.Epoch)
		}
		_, err := k.produceTx(p, g, tp, name, rec)
		return 0, zombieResult(p, err)
	}
	if !g.open {
		return 0, fmt.Errorf("%w: %q produced without an open transaction", ErrTxnState, p.TransactionalID)
	}
	if perr != nil {
		return 0, perr
	}
	return k.produceTx(p, g, tp, name, rec)
}

func (k *Kafka) produceTx(p TxnProducer, g *kafkaTxnGen, tp TopicPartition, name string, rec Record) (Offset, error) {
	if !slices.Contains(g.added, tp) {
		if err := k.addPartitionToTxn(p.TransactionalID, g, tp, name); err != nil {
			return 0, err
		}
		g.added = append(g.added, tp)
	}
	pf := g.producer
	pf.sequence = g.sequences[tp]
	o, err := k.produce(tp, name, &p.TransactionalID, rec, pf)
	if err != nil {
		return 0, err
	}
	g.sequences[tp]++
	return o, nil
}

func (k *Kafka) addPartitionToTxn(txnID string, g *kafkaTxnGen, tp TopicPartition, name string) error {
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.TransactionalID = k.clusterTxnID(txnID)
	req.ProducerID, req.ProducerEpoch = g.producer.id, g.producer.epoch
	rt := kmsg.NewAddPartitionsToTxnRequestTopic()
	rt.Topic = k.clusterName(name)
	rt.Partitions = []int32{int32(tp.Partition)}
	req.Topics = append(req.Topics, rt)
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
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
	return mapErr(err, fmt.Sprintf("add %q/%d to transaction %q", name, tp.Partition, txnID))
}

// SendOffsetsToTransaction implements Substrate: AddOffsetsToTxn once per group per
// transaction, then TxnOffsetCommit.
func (k *Kafka) SendOffsetsToTransaction(p TxnProducer, group string, offsets []GroupOffset) error {
	g, stale, err := k.txnGen(p)
	if err != nil {
		return err
	}
	if stale {
		if group == "" {
			return fmt.Errorf("%w: %q epoch %d", ErrFenced, p.TransactionalID, p.Epoch)
		}
		return zombieResult(p, k.addOffsetsToTxn(p.TransactionalID, g, group))
	}
	if !g.open {
		return fmt.Errorf("%w: %q sent offsets without an open transaction", ErrTxnState, p.TransactionalID)
	}
	if group == "" {
		return fmt.Errorf("%w: empty group", ErrInvalidArgument)
	}
	names, err := k.validGroupOffsets(offsets)
	if err != nil || len(offsets) == 0 {
		return err
	}
	if !slices.Contains(g.groups, group) {
		if err := k.addOffsetsToTxn(p.TransactionalID, g, group); err != nil {
			return err
		}
		g.groups = append(g.groups, group)
	}
	k.groups[group] = true
	k.addGroup(k.clusterGroup(group))
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID = k.clusterTxnID(p.TransactionalID)
	req.Group = k.clusterGroup(group)
	req.ProducerID, req.ProducerEpoch = g.producer.id, g.producer.epoch
	req.Generation = -1
	for i, o := range offsets {
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic = k.clusterName(names[i])
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
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
		return mapErr(err, fmt.Sprintf("transactional offset commit of %q for %q", group, p.TransactionalID))
	}
	for i, o := range offsets {
		g.staged = append(g.staged, stagedKafkaOffset{group: group, name: names[i], offset: o})
	}
	return nil
}

func (k *Kafka) addOffsetsToTxn(txnID string, g *kafkaTxnGen, group string) error {
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.TransactionalID = k.clusterTxnID(txnID)
	req.ProducerID, req.ProducerEpoch = g.producer.id, g.producer.epoch
	req.Group = k.clusterGroup(group)
	err := k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	return mapErr(err, fmt.Sprintf("add offsets of group %q to transaction %q", group, txnID))
}

// CommitTransaction implements Substrate.
func (k *Kafka) CommitTransaction(p TxnProducer) error { return k.endTxn(p, true) }

// AbortTransaction implements Substrate.
func (k *Kafka) AbortTransaction(p TxnProducer) error { return k.endTxn(p, false) }

// endTxn sends EndTxn. A transaction that registered nothing with the coordinator never began
// there, so ending it is local (as in every Kafka client).
func (k *Kafka) endTxn(p TxnProducer, commit bool) error {
	g, stale, err := k.txnGen(p)
	if err != nil {
		return err
	}
	if !stale {
		if !g.open {
			return fmt.Errorf("%w: %q ended a transaction that is not open", ErrTxnState, p.TransactionalID)
		}
		if len(g.added) == 0 && len(g.groups) == 0 {
			g.open = false
			return nil
		}
	}
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = k.clusterTxnID(p.TransactionalID)
	req.ProducerID, req.ProducerEpoch = g.producer.id, g.producer.epoch
	req.Commit = commit
	err = k.withRetry(func(ctx context.Context) error {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return err
		}
		return kerr.ErrorForCode(resp.ErrorCode)
	})
	err = mapErr(err, fmt.Sprintf("end transaction %q (commit=%v)", p.TransactionalID, commit))
	if stale {
		return zombieResult(p, err)
	}
	if err != nil {
		return err
	}
	k.noteMarkers(g.added)
	if err := k.awaitMarkers(p.TransactionalID, g); err != nil {
		return err
	}
	staged := g.staged
	g.open, g.added, g.groups, g.staged = false, g.added[:0], g.groups[:0], nil
	if commit {
		return k.settleTxnOffsets(staged)
	}
	return nil
}

// awaitMarkers returns once the transaction g just ended is no longer open on any live partition
// it wrote to. Kafka answers EndTxn as soon as the coordinator has logged the decision and writes
// the markers afterwards, so until then the partitions' LSO still holds the transaction's records
// back; the contract says they are visible (or aborted) when CommitTransaction (AbortTransaction)
// returns. DescribeProducers says whether the producer still has a transaction open on each
// partition; an embedded kfake has always written the markers already, so one request suffices.
// It gives up after the adapter's timeout with an error naming the transaction and a partition.
func (k *Kafka) awaitMarkers(txnID string, g *kafkaTxnGen) error {
	req := kmsg.NewPtrDescribeProducersRequest()
	for _, tp := range g.added {
		t := k.topics[tp.Topic]
		if t.deleted {
			continue
		}
		rt := kmsg.NewDescribeProducersRequestTopic()
		rt.Topic = k.clusterName(t.name)
		rt.Partitions = []int32{int32(tp.Partition)}
		req.Topics = append(req.Topics, rt)
	}
	if len(req.Topics) == 0 {
		return nil
	}
	ctx, cancel := k.ctx()
	defer cancel()
	for {
		resp, err := req.RequestWith(ctx, k.cl)
		if err != nil {
			return mapErr(err, fmt.Sprintf("describe producers after ending transaction %q", txnID))
		}
		open := ""
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				for _, ap := range p.ActiveProducers {
					if ap.ProducerID == g.producer.id && ap.CurrentTxnStartOffset >= 0 {
						open = fmt.Sprintf("%q/%d", t.Topic, p.Partition)
					}
				}
			}
		}
		if open == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("substrate: transaction %q ended but is still open on %s after %v (its markers were not written)",
				txnID, open, k.timeout)
		case <-time.After(retryBackoff):
		}
	}
}

package substrate

import (
	"fmt"
	"slices"
)

// modelTxn is one transactional ID's producer state. Its index in Model.txns is the slot carried
// by every TxnProducer handle for that ID.
type modelTxn struct {
	id    string
	epoch int32
	open  bool
	// parts lists the partitions the open transaction wrote to, in first-write order.
	parts []txnPartition
	// records lists every offset the open transaction wrote, to settle them when it ends.
	records []txnRecord
	// staged are the group offsets sent to the open transaction.
	staged []stagedOffset
	// shared says parts, records and staged are shared with a clone (copy-on-write: ownTxn).
	shared bool
}

type txnPartition struct {
	topic     int32 // incarnation number
	partition Partition
}

type txnRecord struct {
	txnPartition
	offset Offset
}

type stagedOffset struct {
	group  string
	topic  int32 // incarnation number, to skip offsets on topics deleted before commit
	offset GroupOffset
}

// dropTopic forgets the records and staged offsets of the open transaction on incarnation idx
// (deleted). The partitions stay listed: the coordinator tracks them by name, so the end marker
// still goes to whatever topic has that name then (see endTxn).
func (t *modelTxn) dropTopic(idx int32) {
	t.records = filterInPlace(t.records, func(r txnRecord) bool { return r.topic != idx })
	t.staged = filterInPlace(t.staged, func(s stagedOffset) bool { return s.topic != idx })
}

// hasTopic reports whether the open transaction wrote records or staged offsets on incarnation
// idx (what dropTopic would remove).
func (t *modelTxn) hasTopic(idx int32) bool {
	return slices.ContainsFunc(t.records, func(r txnRecord) bool { return r.topic == idx }) ||
		slices.ContainsFunc(t.staged, func(s stagedOffset) bool { return s.topic == idx })
}

// filterInPlace keeps the elements for which keep is true, preserving order.
func filterInPlace[T any](s []T, keep func(T) bool) []T {
	out := s[:0]
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	clear(s[len(out):])
	return out
}

// txnFor validates a handle: ErrInvalidArgument if this model did not issue it, ErrFenced if a
// later InitTransactions superseded it.
func (m *Model) txnFor(p TxnProducer) (*modelTxn, error) {
	if p.TransactionalID == "" || p.slot < 0 || int(p.slot) >= len(m.txns) ||
		m.txns[p.slot].id != p.TransactionalID {
		return nil, fmt.Errorf("%w: transactional producer %+v was not issued by this substrate",
			ErrInvalidArgument, p)
	}
	t := &m.txns[p.slot]
	switch {
	case p.Epoch < t.epoch:
		return nil, fmt.Errorf("%w: %q epoch %d, current epoch %d", ErrFenced, p.TransactionalID,
			p.Epoch, t.epoch)
	case p.Epoch > t.epoch:
		return nil, fmt.Errorf("%w: %q epoch %d from the future (current %d)", ErrInvalidArgument,
			p.TransactionalID, p.Epoch, t.epoch)
	}
	return t, nil
}

// InitTransactions implements Substrate.
func (m *Model) InitTransactions(transactionalID string) (TxnProducer, error) {
	if transactionalID == "" {
		return TxnProducer{}, fmt.Errorf("%w: empty transactional ID", ErrInvalidArgument)
	}
	m.ownTxns()
	slot, ok := m.txnByName[transactionalID]
	if !ok {
		m.ownTxnNames()
		slot = int32(len(m.txns))
		m.txns = append(m.txns, modelTxn{id: transactionalID})
		m.txnByName[transactionalID] = slot
	} else {
		t := &m.txns[slot]
		if t.open {
			m.endTxn(slot, false)
		}
		t.epoch++
	}
	return TxnProducer{TransactionalID: transactionalID, Epoch: m.txns[slot].epoch, slot: slot}, nil
}

// BeginTransaction implements Substrate.
func (m *Model) BeginTransaction(p TxnProducer) error {
	m.ownTxns()
	t, err := m.txnFor(p)
	if err != nil {
		return err
	}
	if t.open {
		return fmt.Errorf("%w: %q began a transaction while one is open", ErrTxnState, p.TransactionalID)
	}
	t.open = true
	return nil
}

// openTxnFor is txnFor plus "a transaction is open".
func (m *Model) openTxnFor(p TxnProducer, what string) (*modelTxn, error) {
	t, err := m.txnFor(p)
	if err != nil {
		return nil, err
	}
	if !t.open {
		return nil, fmt.Errorf("%w: %q %s without an open transaction", ErrTxnState, p.TransactionalID, what)
	}
	return t, nil
}

// ProduceTx implements Substrate.
func (m *Model) ProduceTx(p TxnProducer, tp TopicPartition, rec Record) (Offset, error) {
	if _, err := m.openTxnFor(p, "produced"); err != nil {
		return 0, err
	}
	t := m.ownTxn(p.slot)
	idx, part, err := m.writablePartition(tp)
	if err != nil {
		return 0, err
	}
	key := txnPartition{topic: idx, partition: tp.Partition}
	o := part.append(logEntry{rec: rec, kind: entryOpen, txn: p.slot})
	if !containsPartition(t.parts, key) {
		t.parts = append(t.parts, key)
		if len(part.open) == cap(part.open) { // grow into the pool's room, not a fresh array
			part.open = m.pool.openRecycler().clone(part.open, 1)
		}
		part.open = append(part.open, openTxn{txn: p.slot, first: o})
	}
	t.records = append(t.records, txnRecord{txnPartition: key, offset: o})
	return o, nil
}

func containsPartition(parts []txnPartition, key txnPartition) bool {
	for _, q := range parts {
		if q == key {
			return true
		}
	}
	return false
}

// SendOffsetsToTransaction implements Substrate.
func (m *Model) SendOffsetsToTransaction(p TxnProducer, group string, offsets []GroupOffset) error {
	if _, err := m.openTxnFor(p, "sent offsets"); err != nil {
		return err
	}
	if group == "" {
		return fmt.Errorf("%w: empty group", ErrInvalidArgument)
	}
	var idxRoom [8]int32 // a step sends a few offsets: no allocation for their incarnations
	idxs := idxRoom[:0]
	for _, o := range offsets {
		idx, err := m.validGroupOffset(o)
		if err != nil {
			return err
		}
		idxs = append(idxs, idx)
	}
	t := m.ownTxn(p.slot)
	for i, o := range offsets {
		s := stagedOffset{group: group, topic: idxs[i], offset: o}
		replaced := false
		for j := range t.staged {
			if t.staged[j].offset.TopicPartition == o.TopicPartition && t.staged[j].group == group {
				t.staged[j], replaced = s, true
				break
			}
		}
		if !replaced {
			t.staged = append(t.staged, s)
		}
	}
	return nil
}

// CommitTransaction implements Substrate.
func (m *Model) CommitTransaction(p TxnProducer) error {
	if _, err := m.openTxnFor(p, "committed"); err != nil {
		return err
	}
	m.endTxn(p.slot, true)
	return nil
}

// AbortTransaction implements Substrate.
func (m *Model) AbortTransaction(p TxnProducer) error {
	if _, err := m.openTxnFor(p, "aborted"); err != nil {
		return err
	}
	m.endTxn(p.slot, false)
	return nil
}

// endTxn settles slot's open transaction: its records become committed or aborted, a marker is
// written on every partition it touched (stamped with the model clock), the partitions' LSOs are
// released, and on commit its staged group offsets are committed.
//
// Kafka's transaction coordinator tracks a transaction's partitions by topic name, so when a
// touched topic was deleted meanwhile the marker goes to the name's current incarnation if it has
// that partition (a recreated topic receives a stray marker), and nowhere otherwise. Each
// partition receives one marker however many incarnations of it the transaction touched.
func (m *Model) endTxn(slot int32, commit bool) {
	m.ownTxns()
	t := &m.txns[slot] // its lists are only read here, then emptied: no need to copy them
	recKind, markKind := entryAborted, entryAbortMark
	if commit {
		recKind, markKind = entryCommitted, entryCommitMark
	}
	for _, r := range t.records {
		p := m.ownPartition(r.topic, r.partition)
		if r.offset >= p.base { // records below base were removed by retention or DeleteRecords
			p.entry(r.offset).kind = recKind
		}
	}
	var markedRoom [4]txnPartition
	marked := markedRoom[:0]
	for _, tp := range t.parts {
		target, ok := m.markerTarget(tp)
		if !ok || containsPartition(marked, target) {
			continue
		}
		marked = append(marked, target)
		p := m.ownPartition(target.topic, target.partition)
		p.append(logEntry{rec: Record{TimestampMicros: m.clockMicros}, kind: markKind})
		p.open = filterInPlace(p.open, func(o openTxn) bool { return o.txn != slot })
	}
	if commit {
		for _, s := range t.staged {
			m.ownGroup(s.group).set(s.offset)
		}
	}
	t.open = false
	if t.shared { // the lists are a clone's too: let go of them instead of truncating them
		t.parts, t.records, t.staged, t.shared = nil, nil, nil, false
		if m.pool != nil { // room from the pool for the next transaction's lists
			t.parts = m.pool.txnPartRecycler().alloc(txnHeadroom)
			t.records = m.pool.txnRecordRecycler().alloc(txnHeadroom)
			t.staged = m.pool.stagedRecycler().alloc(txnHeadroom)
		}
		return
	}
	t.parts = t.parts[:0]
	t.records = t.records[:0]
	t.staged = t.staged[:0]
}

// markerTarget resolves a touched partition to the live incarnation that receives its marker.
func (m *Model) markerTarget(tp txnPartition) (txnPartition, bool) {
	t := &m.topics[tp.topic]
	if !t.deleted {
		return tp, true
	}
	cur, bound := m.boundTopic(t.name)
	if !bound || int(tp.partition) >= len(m.topics[cur].partitions) {
		return txnPartition{}, false
	}
	return txnPartition{topic: cur, partition: tp.partition}, true
}

package substrate

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"
	"strings"
)

// Clone returns a copy of the model: logs, transactions, group offsets, retention policies and
// clock. Record byte slices are shared, which is safe because nothing mutates them (see the
// ownership rule in the package comment). TxnProducer handles issued by m are valid on the clone.
//
// The copy is copy-on-write (the exhaustive explorer clones a model per transition, and a
// transition touches one or two partitions): the clone and m share the incarnations, the ID maps,
// the partition logs, the transactions and the group offsets, each marked shared on both sides,
// and whichever side changes a shared part first copies it (ownTopics, ownTopicMaps,
// ownPartition, ownTxns, ownGroups). Only the model struct is copied at once.
//
// A model from NewSeededModel clones its ID stream, so the clone issues the IDs m would have
// issued; a model from NewModel(ids) shares ids with its clone (use CloneWithIDs to give the clone
// its own source).
func (m *Model) Clone() *Model {
	if m.seeded != nil {
		pcg := *m.seeded
		c := m.CloneWithIDs(pcgTopicIDs(&pcg))
		c.seeded = &pcg
		return c
	}
	return m.CloneWithIDs(m.ids)
}

// CloneWithIDs is Clone with a different topic ID source for the clone.
func (m *Model) CloneWithIDs(ids func() TopicID) *Model {
	m.markShared()
	c := *m
	c.ids, c.seeded, c.pool = ids, nil, nil
	return &c
}

// markShared marks every copy-on-write part of m shared, before a clone is made of it.
func (m *Model) markShared() {
	m.topicsShared, m.topicMapsShared, m.txnNamesShared, m.txnsShared, m.groupsShared = true, true, true, true, true
}

// CloneInto is CloneWithIDs reusing the storage of dst, when not nil: a model its owner is done
// with, made by Clone, CloneWithIDs or CloneInto (so its struct is its own). dst must not be used afterwards except as the clone returned. The clone's copy-on-write
// copies reuse the slices dst's own copies allocated (model_pool.go), so every model cloned from
// dst, directly or not, must be done with as well (the explorer recycles a world only after its
// successors).
func (m *Model) CloneInto(dst *Model, ids func() TopicID) *Model {
	if dst == nil {
		return m.CloneWithIDs(ids)
	}
	pool := dst.pool
	if pool == nil {
		pool = new(modelPool)
	}
	pool.recycle() // dst and every model that shared its copies are done with
	m.markShared()
	*dst = *m
	dst.ids, dst.seeded, dst.pool = ids, nil, pool
	return dst
}

// ownTopics gives m its own copy of the incarnation slice if it is shared with a clone (every
// change of an incarnation or its partitions starts here). The copies' partition slices are still
// the clone's too, so they are marked shared (ownPartition).
func (m *Model) ownTopics() {
	if !m.topicsShared {
		return
	}
	m.topics = m.pool.topicRecycler().clone(m.topics, 1) // room for a recreation
	for i := range m.topics {
		m.topics[i].partsShared = true
	}
	m.topicsShared = false
}

// ownTopicMaps gives m its own copy of the topic ID and name maps if they are shared with a
// clone (only creating a topic changes them).
func (m *Model) ownTopicMaps() {
	if !m.topicMapsShared {
		return
	}
	m.byID, m.byName = maps.Clone(m.byID), maps.Clone(m.byName)
	m.topicMapsShared = false
}

// ownTxnNames gives m its own copy of the transactional ID map if it is shared with a clone (only
// a new transactional ID changes it).
func (m *Model) ownTxnNames() {
	if !m.txnNamesShared {
		return
	}
	m.txnByName = maps.Clone(m.txnByName)
	m.txnNamesShared = false
}

// ownPartition returns partition part of incarnation idx for a change, first copying the
// incarnation's partition slice and then the partition's log if they are shared with a clone.
// The copied log keeps only the reachable suffix [logStart, HW).
func (m *Model) ownPartition(idx int32, part Partition) *modelPartition {
	p := m.ownPartitionStart(idx, part)
	if p.shared {
		live := p.entries[p.logStart-p.base:]
		p.entries = m.pool.logRecycler().clone(live, logHeadroom)
		p.base = p.logStart
		p.open = m.pool.openRecycler().clone(p.open, 0)
		p.shared = false
	}
	return p
}

// ownPartitionStart returns partition part of incarnation idx for a change of its log start
// only, first copying the incarnation's partition slice if it is shared with a clone, but not the
// partition's log: raising the log start does not write a shared log (raiseLogStart), so deleting
// records and retention copy no records.
func (m *Model) ownPartitionStart(idx int32, part Partition) *modelPartition {
	m.ownTopics()
	t := &m.topics[idx]
	if t.partsShared {
		t.partitions = m.pool.partRecycler().clone(t.partitions, 0)
		for i := range t.partitions {
			t.partitions[i].shared = true
		}
		t.partsShared = false
	}
	return &t.partitions[part]
}

// logHeadroom is the spare capacity a copied log gets, so the next few appends do not copy it
// again.
const logHeadroom = 4

// ownTxns gives m its own copy of the transaction slice if it is shared with a clone; each
// transaction's lists stay shared until ownTxn.
func (m *Model) ownTxns() {
	if !m.txnsShared {
		return
	}
	m.txns = m.pool.txnRecycler().clone(m.txns, 0)
	for i := range m.txns {
		m.txns[i].shared = true
	}
	m.txnsShared = false
}

// ownTxn returns transaction slot for a change of its lists, copying them first if they are
// shared with a clone.
func (m *Model) ownTxn(slot int32) *modelTxn {
	m.ownTxns()
	t := &m.txns[slot]
	if t.shared {
		if m.pool == nil {
			t.parts = slices.Clone(t.parts)
			t.records = slices.Clone(t.records)
			t.staged = slices.Clone(t.staged)
		} else { // with room for the change to come, so it appends in place
			t.parts = m.pool.txnPartRecycler().clone(t.parts, txnHeadroom)
			t.records = m.pool.txnRecordRecycler().clone(t.records, txnHeadroom)
			t.staged = m.pool.stagedRecycler().clone(t.staged, txnHeadroom)
		}
		t.shared = false
	}
	return t
}

// txnHeadroom is the spare room a pooled copy of a transaction's lists gets.
const txnHeadroom = 2

// ownGroups gives m its own copy of the group slice if it is shared with a clone; the copies'
// offset lists stay shared (marked so) until ownGroupAt. spare is room for groups about to be
// added.
func (m *Model) ownGroups(spare int) {
	if !m.groupsShared {
		return
	}
	m.groups = m.pool.groupRecycler().clone(m.groups, spare)
	for i := range m.groups {
		m.groups[i].shared = true
	}
	m.groupsShared = false
}

// groupScanMax is the most groups searchGroup compares one by one for equality before it falls
// back to a binary search: a few length-and-bytes comparisons beat ordering comparisons through a
// callback, and a scope has a group per process.
const groupScanMax = 8

// searchGroup finds the named group: its index, or the insertion point.
func (m *Model) searchGroup(name string) (int, bool) {
	if len(m.groups) <= groupScanMax {
		for i := range m.groups {
			if m.groups[i].name == name {
				return i, true
			}
		}
	}
	return slices.BinarySearchFunc(m.groups, name, func(g modelGroup, n string) int { return strings.Compare(g.name, n) })
}

// ownGroup returns the named group for a change, creating it empty, or copying its offsets first
// if they are shared with a clone.
func (m *Model) ownGroup(name string) *modelGroup {
	i, ok := m.searchGroup(name)
	if !ok {
		m.ownGroups(1)
		m.groups = slices.Insert(m.groups, i, modelGroup{name: name})
		return &m.groups[i]
	}
	return m.ownGroupAt(i)
}

// ownGroupAt returns the i-th group for a change, copying its offsets first if they are shared
// with a clone.
func (m *Model) ownGroupAt(i int) *modelGroup {
	m.ownGroups(0)
	g := &m.groups[i]
	if g.shared {
		g.offsets, g.shared = m.pool.offsetRecycler().clone(g.offsets, 0), false
	}
	return g
}

// appendCanonical appends a canonical byte encoding of the model's observable state to dst and
// returns the extended slice. Two models that would answer every future call alike (up to the
// values of topic IDs) encode equally: topic IDs are replaced by incarnation numbers, maps are
// walked in sorted order, and storage details (trimmed prefixes, slice capacities) are left out.
// The tests compare models by it: a clone and its source, a pooled model and a fresh one.
func (m *Model) appendCanonical(dst []byte) []byte {
	dst = binary.AppendVarint(dst, m.clockMicros)
	dst = binary.AppendUvarint(dst, uint64(len(m.topics)))
	for i := range m.topics {
		dst = m.topics[i].appendCanonical(dst)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.txns)))
	for i := range m.txns {
		dst = m.txns[i].appendCanonical(dst)
	}
	n := 0
	for i := range m.groups {
		if len(m.groups[i].offsets) > 0 { // a group with no offsets is indistinguishable from no group
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i := range m.groups {
		offsets := m.groups[i].offsets
		if len(offsets) == 0 {
			continue
		}
		dst = appendString(dst, m.groups[i].name)
		type keyed struct {
			topic int32
			o     GroupOffset
		}
		ks := make([]keyed, len(offsets))
		for i, o := range offsets {
			ks[i] = keyed{m.byID[o.Topic], o}
		}
		slices.SortFunc(ks, func(a, b keyed) int {
			return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.o.Partition, b.o.Partition))
		})
		dst = binary.AppendUvarint(dst, uint64(len(ks)))
		for _, k := range ks {
			dst = binary.AppendVarint(dst, int64(k.topic))
			dst = binary.AppendVarint(dst, int64(k.o.Partition))
			dst = binary.AppendVarint(dst, int64(k.o.Offset))
		}
	}
	return dst
}

func (t *modelTopic) appendCanonical(dst []byte) []byte {
	dst = appendString(dst, t.name)
	dst = appendBool(dst, t.deleted)
	dst = binary.AppendVarint(dst, t.retention.TimeMicros)
	dst = binary.AppendVarint(dst, t.retention.MaxOffsets)
	dst = binary.AppendUvarint(dst, uint64(len(t.partitions)))
	for i := range t.partitions {
		p := &t.partitions[i]
		dst = binary.AppendVarint(dst, int64(p.logStart))
		dst = binary.AppendVarint(dst, int64(p.highWatermark()))
		for o := p.logStart; o < p.highWatermark(); o++ {
			dst = p.entry(o).appendCanonical(dst)
		}
		dst = binary.AppendUvarint(dst, uint64(len(p.open)))
		for _, ot := range p.open {
			dst = binary.AppendVarint(dst, int64(ot.txn))
			dst = binary.AppendVarint(dst, int64(ot.first))
		}
	}
	return dst
}

func (e *logEntry) appendCanonical(dst []byte) []byte {
	dst = append(dst, byte(e.kind))
	if e.kind == entryOpen {
		dst = binary.AppendVarint(dst, int64(e.txn))
	}
	dst = binary.AppendVarint(dst, e.rec.TimestampMicros)
	dst = appendNullableBytes(dst, e.rec.Key)
	dst = appendNullableBytes(dst, e.rec.Value)
	dst = binary.AppendUvarint(dst, uint64(len(e.rec.Headers)))
	for _, h := range e.rec.Headers {
		dst = appendString(dst, h.Key)
		dst = appendNullableBytes(dst, h.Value)
	}
	return dst
}

func (t *modelTxn) appendCanonical(dst []byte) []byte {
	dst = appendString(dst, t.id)
	dst = binary.AppendVarint(dst, int64(t.epoch))
	dst = appendBool(dst, t.open)
	dst = binary.AppendUvarint(dst, uint64(len(t.parts)))
	for _, p := range t.parts {
		dst = binary.AppendVarint(dst, int64(p.topic))
		dst = binary.AppendVarint(dst, int64(p.partition))
	}
	dst = binary.AppendUvarint(dst, uint64(len(t.records)))
	for _, r := range t.records {
		dst = binary.AppendVarint(dst, int64(r.topic))
		dst = binary.AppendVarint(dst, int64(r.partition))
		dst = binary.AppendVarint(dst, int64(r.offset))
	}
	staged := slices.Clone(t.staged)
	slices.SortFunc(staged, func(a, b stagedOffset) int {
		return cmp.Or(strings.Compare(a.group, b.group), cmp.Compare(a.topic, b.topic),
			cmp.Compare(a.offset.Partition, b.offset.Partition))
	})
	dst = binary.AppendUvarint(dst, uint64(len(staged)))
	for _, s := range staged {
		dst = appendString(dst, s.group)
		dst = binary.AppendVarint(dst, int64(s.topic))
		dst = binary.AppendVarint(dst, int64(s.offset.Partition))
		dst = binary.AppendVarint(dst, int64(s.offset.Offset))
	}
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendNullableBytes encodes nil as 0 and a slice of length n as n+1, keeping null and empty
// distinct.
func appendNullableBytes(dst, b []byte) []byte {
	if b == nil {
		return append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(b))+1)
	return append(dst, b...)
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendCommittedOffsets appends group's committed offsets to dst, as CommittedOffsets returns
// them, without allocating a result (the explorer's canonical hash reads them for every process
// a transition changes).
func (m *Model) AppendCommittedOffsets(dst []GroupOffset, group string) []GroupOffset {
	if i, ok := m.searchGroup(group); ok {
		dst = append(dst, m.groups[i].offsets...)
	}
	return dst
}

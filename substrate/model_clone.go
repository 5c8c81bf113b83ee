package substrate

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"
	"strings"
)

// Clone returns a deep copy of the model: logs, transactions, group offsets, retention
// policies and clock. Record byte slices are shared, which is safe because nothing mutates them
// (see the ownership rule in the package comment). TxnProducer handles issued by m are valid on
// the clone.
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
	c := &Model{
		ids:         ids,
		topics:      slices.Clone(m.topics),
		byID:        maps.Clone(m.byID),
		byName:      maps.Clone(m.byName),
		lastID:      m.lastID,
		lastIdx:     m.lastIdx,
		txns:        slices.Clone(m.txns),
		txnByName:   maps.Clone(m.txnByName),
		groups:      make(map[string]*modelGroup, len(m.groups)),
		clockMicros: m.clockMicros,
	}
	for i := range c.topics {
		t := &c.topics[i]
		t.partitions = slices.Clone(t.partitions)
		for j := range t.partitions {
			p := &t.partitions[j]
			p.entries = slices.Clone(p.entries[p.logStart-p.base:])
			p.base = p.logStart
			p.open = slices.Clone(p.open)
		}
	}
	for i := range c.txns {
		t := &c.txns[i]
		t.parts = slices.Clone(t.parts)
		t.records = slices.Clone(t.records)
		t.staged = slices.Clone(t.staged)
	}
	for name, g := range m.groups {
		c.groups[name] = &modelGroup{offsets: slices.Clone(g.offsets)}
	}
	return c
}

// AppendCanonical appends a canonical byte encoding of the model's observable state to dst and
// returns the extended slice. Two models that would answer every future call alike (up to the
// values of topic IDs) encode equally: topic IDs are replaced by incarnation numbers, maps are
// walked in sorted order, and storage details (trimmed prefixes, slice capacities) are left out.
// Hash the result to deduplicate explored states.
func (m *Model) AppendCanonical(dst []byte) []byte {
	dst = binary.AppendVarint(dst, m.clockMicros)
	dst = binary.AppendUvarint(dst, uint64(len(m.topics)))
	for i := range m.topics {
		dst = m.topics[i].appendCanonical(dst)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.txns)))
	for i := range m.txns {
		dst = m.txns[i].appendCanonical(dst)
	}
	var names []string
	for name, g := range m.groups {
		if len(g.offsets) > 0 { // a group with no offsets is indistinguishable from no group
			names = append(names, name)
		}
	}
	slices.Sort(names)
	dst = binary.AppendUvarint(dst, uint64(len(names)))
	for _, name := range names {
		offsets := m.groups[name].offsets
		dst = appendString(dst, name)
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

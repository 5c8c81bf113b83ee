package substrate

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Model is the deterministic in-memory Substrate: the reference implementation and the
// simulator's default.
//
// It has no goroutines, reads no wall clock and draws no global randomness: topic IDs come from
// the source given to NewModel and time from AdvanceClock, so a run is a pure function of its
// calls. CloneInto deep-copies it, for the exhaustive explorer.
//
// Each partition's log is a slice indexed by offset - base, so produce and fetch are a bounds
// check and a slice access. A TopicID is resolved by a small direct-mapped cache, else by a scan
// of the few incarnations (a map past topicScanMax).
type Model struct {
	ids func() TopicID
	// seeded is the ID source of a model built by NewSeededModel; Clone copies it by value so a
	// clone draws the same IDs its original would.
	seeded *rand.PCG

	// topics holds every incarnation ever created, in creation order; the index is the
	// incarnation number used by incarnation and appendCanonical.
	topics []modelTopic
	// byID resolves every ID ever issued (alive or not) to its incarnation number.
	byID map[TopicID]int32
	// byName resolves a name to the last incarnation created under it. That incarnation may have
	// been deleted since (deletion leaves the entry, so it need not copy a shared map): boundTopic
	// is the name's live binding.
	byName map[string]int32
	// idCache caches topicIndex hits (idCacheSlot): an ID's incarnation never changes, so an
	// entry stays true in the model and every clone of it.
	idCache [idCacheSize]idCacheEntry

	// txns holds one slot per transactional ID, in order of first InitTransactions.
	txns      []modelTxn
	txnByName map[string]int32

	// groups holds every consumer group with committed offsets or staged ones committed, sorted
	// by name (a handful per run: a binary search beats hashing the name).
	groups []modelGroup

	clockMicros int64

	// topicsShared, topicMapsShared, txnNamesShared, txnsShared and groupsShared say topics,
	// byID/byName, txnByName, txns and groups are shared with a clone: copied before the next
	// change (copy-on-write, model_clone.go).
	topicsShared, topicMapsShared, txnNamesShared, txnsShared, groupsShared bool

	// pool is the storage the copy-on-write copies reuse (model_pool.go): set by CloneInto, nil
	// otherwise; never shared between models.
	pool *modelPool
}

// modelTopic is one incarnation of a name.
type modelTopic struct {
	id         TopicID
	name       string
	deleted    bool
	partitions []modelPartition
	retention  RetentionPolicy
	// partsShared says partitions is shared with a clone (copy-on-write: ownPartition).
	partsShared bool
}

// NewModel returns an empty model whose topic IDs are drawn from ids (the simulator passes a
// stream seeded from the run's PRNG). A draw that is all-zero or was already issued is discarded
// and ids is called again, so IDs are never zero and never reused. A nil ids uses
// SeededTopicIDs(1).
func NewModel(ids func() TopicID) *Model {
	if ids == nil {
		ids = SeededTopicIDs(1)
	}
	return &Model{
		ids:       ids,
		byID:      make(map[TopicID]int32),
		byName:    make(map[string]int32),
		txnByName: make(map[string]int32),
	}
}

// NewSeededModel returns an empty model whose topic IDs come from a PCG stream seeded with seed.
// Unlike NewModel's caller-supplied source, this one is part of the model's state: a Clone
// continues the stream from the same point as its original.
func NewSeededModel(seed uint64) *Model {
	pcg := rand.NewPCG(seed, idStreamSeed2)
	m := NewModel(pcgTopicIDs(pcg))
	m.seeded = pcg
	return m
}

// idStreamSeed2 is the second PCG seed word of every seeded topic ID stream.
const idStreamSeed2 = 0x9e3779b97f4a7c15

// pcgTopicIDs draws topic IDs from pcg.
func pcgTopicIDs(pcg *rand.PCG) func() TopicID {
	return func() TopicID {
		var id TopicID
		for i := 0; i < 16; i += 8 {
			v := pcg.Uint64()
			for j := 0; j < 8; j++ {
				id[i+j] = byte(v >> (8 * j))
			}
		}
		return id
	}
}

// SeededTopicIDs returns a deterministic stream of random-looking topic IDs (PCG seeded with
// seed). Two streams with the same seed yield the same IDs.
func SeededTopicIDs(seed uint64) func() TopicID {
	return pcgTopicIDs(rand.NewPCG(seed, idStreamSeed2))
}

// maxIDDraws bounds how many times newID calls the ID source before deciding it is broken.
const maxIDDraws = 1 << 16

// newID draws a fresh, non-zero, never-issued topic ID.
func (m *Model) newID() TopicID {
	for range maxIDDraws {
		id := m.ids()
		if id.IsZero() {
			continue
		}
		if _, used := m.byID[id]; used {
			continue
		}
		return id
	}
	panic("substrate: topic ID source keeps returning zero or already-issued IDs")
}

// incarnation returns id's incarnation number: n for the (n+1)-th topic this model created, so
// two models driven by the same calls agree on it whatever their ID sources.
func (m *Model) incarnation(id TopicID) (int, bool) {
	idx, ok := m.byID[id]
	return int(idx), ok
}

// CreateTopic implements Substrate.
func (m *Model) CreateTopic(name string, partitions int) (TopicID, error) {
	if err := ValidateTopicName(name); err != nil {
		return TopicID{}, err
	}
	if partitions < 1 || partitions > MaxPartitions {
		return TopicID{}, fmt.Errorf("%w: topic %q with %d partitions (need 1-%d)",
			ErrInvalidArgument, name, partitions, MaxPartitions)
	}
	if _, ok := m.boundTopic(name); ok {
		return TopicID{}, fmt.Errorf("%w: %q", ErrTopicExists, name)
	}
	return m.createTopic(name, partitions), nil
}

// MaxPartitions caps the partition count of one topic, far above anything a scenario needs.
const MaxPartitions = 1 << 16

func (m *Model) createTopic(name string, partitions int) TopicID {
	m.ownTopicMaps()
	m.ownTopics()
	id := m.newID()
	idx := int32(len(m.topics))
	m.topics = append(m.topics, modelTopic{
		id:         id,
		name:       name,
		partitions: make([]modelPartition, partitions),
	})
	m.byID[id] = idx
	m.byName[name] = idx
	return id
}

// boundTopic returns the live incarnation name is bound to.
func (m *Model) boundTopic(name string) (int32, bool) {
	idx, ok := m.byName[name]
	if !ok || m.topics[idx].deleted {
		return 0, false
	}
	return idx, true
}

// DeleteTopic implements Substrate.
func (m *Model) DeleteTopic(name string) error {
	idx, ok := m.boundTopic(name)
	if !ok {
		return fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	m.deleteTopic(idx)
	return nil
}

// deleteTopic retires incarnation idx: its log is freed, group offsets on it are dropped (as
// Kafka's group coordinator does for deleted partitions), open transactions forget it. The name's
// byName entry stays (boundTopic reads it as unbound), so no shared map is copied.
func (m *Model) deleteTopic(idx int32) {
	m.ownTopics()
	t := &m.topics[idx]
	t.deleted = true
	if m.pool == nil {
		t.partitions = make([]modelPartition, len(t.partitions))
	} else {
		n := len(t.partitions)
		t.partitions = m.pool.partRecycler().alloc(n)[:n]
		clear(t.partitions)
	}
	t.partsShared = false
	for i := range m.groups {
		if m.groups[i].hasTopic(t.id) {
			m.ownGroupAt(i).dropTopic(t.id)
		}
	}
	for i := range m.txns {
		if m.txns[i].hasTopic(idx) {
			m.ownTxn(int32(i)).dropTopic(idx)
		}
	}
}

// RecreateTopic implements Substrate.
func (m *Model) RecreateTopic(name string) (TopicID, error) {
	idx, ok := m.boundTopic(name)
	if !ok {
		return TopicID{}, fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	partitions := len(m.topics[idx].partitions)
	m.deleteTopic(idx)
	return m.createTopic(name, partitions), nil
}

// LookupTopic implements Substrate.
func (m *Model) LookupTopic(name string) (TopicID, int, error) {
	idx, ok := m.boundTopic(name)
	if !ok {
		return TopicID{}, 0, fmt.Errorf("%w: name %q", ErrUnknownTopic, name)
	}
	t := &m.topics[idx]
	return t.id, len(t.partitions), nil
}

// DescribeTopic implements Substrate.
func (m *Model) DescribeTopic(id TopicID) (TopicDescription, error) {
	idx, ok := m.byID[id]
	if !ok {
		return TopicDescription{}, fmt.Errorf("%w: id %s was never issued", ErrUnknownTopic, id)
	}
	return m.describe(idx), nil
}

func (m *Model) describe(idx int32) TopicDescription {
	t := &m.topics[idx]
	d := TopicDescription{ID: t.id, Name: t.name, Partitions: len(t.partitions)}
	switch cur, bound := m.boundTopic(t.name); {
	case !t.deleted:
		d.State, d.CurrentID = TopicAlive, t.id
	case bound:
		d.State, d.CurrentID = TopicRecreated, m.topics[cur].id
	default:
		d.State = TopicDeleted
	}
	return d
}

// Topics implements Substrate.
func (m *Model) Topics() []TopicDescription {
	out := make([]TopicDescription, 0, len(m.byName))
	for _, idx := range m.byName {
		if !m.topics[idx].deleted {
			out = append(out, m.describe(idx))
		}
	}
	slices.SortFunc(out, func(a, b TopicDescription) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close implements Substrate; the model holds no resources.
func (m *Model) Close() error { return nil }

// topicScanMax is the most incarnations topicIndex scans instead of hashing the ID: comparing a
// few 16-byte IDs in place is cheaper than one map lookup, and the explorer's scopes and most
// runs have a handful of topics.
const topicScanMax = 8

// topicIndex resolves any ID ever issued (alive or not) to its incarnation number.
func (m *Model) topicIndex(id TopicID) (int32, bool) {
	if len(m.topics) > topicScanMax {
		idx, ok := m.byID[id]
		return idx, ok
	}
	for i := range m.topics {
		if m.topics[i].id == id {
			return int32(i), true
		}
	}
	return 0, false
}

// idCacheBits sets the number of entries of Model.idCache, idCacheSize.
const (
	idCacheBits = 2
	idCacheSize = 1 << idCacheBits
)

// idCacheEntry is one cached topicIndex hit: ID id is incarnation idx-1 (idx 0: empty).
type idCacheEntry struct {
	id  TopicID
	idx int32
}

// idCacheSlot returns the idCache entry for ID id: a direct-mapped cache indexed by the top bits
// of the ID's first half times a Fibonacci-hashing constant, so the handful of topics a world
// lists the offsets of in turn, tens of times per explored state, mostly keep their own entry.
func idCacheSlot(id TopicID) int {
	return int(binary.LittleEndian.Uint64(id[:8]) * 0x9e3779b97f4a7c15 >> (64 - idCacheBits))
}

// livePartition resolves tp to its log, or ErrUnknownTopic / ErrUnknownPartition. It is on every
// produce, fetch and offset listing (the explorer lists offsets tens of times per state), so the
// found case is kept short: the ID cache, else topicIndex; the errors are built apart
// (partitionError).
func (m *Model) livePartition(tp TopicPartition) (int32, *modelPartition, error) {
	e := &m.idCache[idCacheSlot(tp.Topic)]
	idx := e.idx - 1
	if idx < 0 || tp.Topic != e.id {
		var ok bool
		if idx, ok = m.topicIndex(tp.Topic); !ok {
			return 0, nil, m.partitionError(tp)
		}
		*e = idCacheEntry{id: tp.Topic, idx: idx + 1}
	}
	t := &m.topics[idx]
	if t.deleted || uint64(tp.Partition) >= uint64(len(t.partitions)) {
		return 0, nil, m.partitionError(tp)
	}
	return idx, &t.partitions[tp.Partition], nil
}

// partitionError says why livePartition did not resolve tp: the ID was never issued, its topic
// was deleted, or it has no such partition.
func (m *Model) partitionError(tp TopicPartition) error {
	idx, ok := m.topicIndex(tp.Topic)
	if !ok {
		return fmt.Errorf("%w: id %s", ErrUnknownTopic, tp.Topic)
	}
	t := &m.topics[idx]
	if t.deleted {
		return fmt.Errorf("%w: id %s (%q) was deleted", ErrUnknownTopic, tp.Topic, t.name)
	}
	return fmt.Errorf("%w: %s partition %d of %d", ErrUnknownPartition, tp.Topic, tp.Partition, len(t.partitions))
}

// writablePartition is livePartition for a change: the partition is the model's own
// (ownPartition) afterwards.
func (m *Model) writablePartition(tp TopicPartition) (int32, *modelPartition, error) {
	idx, _, err := m.livePartition(tp)
	if err != nil {
		return 0, nil, err
	}
	return idx, m.ownPartition(idx, tp.Partition), nil
}
